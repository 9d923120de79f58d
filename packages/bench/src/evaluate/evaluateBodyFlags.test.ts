import { describe, expect, it } from 'vitest'
import { BenchError } from '../BenchError.ts'
import { EVALUATE_BODY_CLI } from './evaluateBodyFlags.ts'

/** Expects `argv` to be refused with a message matching `message`. */
const refused = (argv: string[], message: RegExp) => expect(() => EVALUATE_BODY_CLI.parse(argv)).toThrow(message)

describe('benchmark:evaluate-body flags', () => {
  it('has defaults for every flag and reads lists and labels', () => {
    expect(EVALUATE_BODY_CLI.parse([])).toEqual({
      degrees: [4096, 8192],
      inputs: [2, 16],
      requests: 40,
      warmup: 5,
      label: 'current',
    })
    expect(EVALUATE_BODY_CLI.parse(['--', '--degrees=8192', '--inputs', '4,32', '--label', 'after'])).toMatchObject({
      degrees: [8192],
      inputs: [4, 32],
      label: 'after',
    })
    expect(EVALUATE_BODY_CLI.parse(['--help'])).toBe('help')
  })

  it('--help lists every flag with its default; a bad value names the flag', () => {
    const help = EVALUATE_BODY_CLI.help()
    for (const flag of ['--degrees', '--inputs', '--requests', '--warmup', '--label', '--help']) {
      expect(help).toContain(flag)
    }
    expect(help).toContain('(default 4096,8192)')
    refused(['--requests', 'many'], /^--requests: requests must be a number \(got "many"\)/)
    refused(['--inputs', '1'], /^--inputs: inputs must be at least 2/)
    refused(['--degrees', '2048'], /^--degrees:/)
    refused(['--label', 'Before!'], /^--label: label is lower-case/)
    refused(['--rounds', '3'], /unknown flag --rounds/)
    expect(() => EVALUATE_BODY_CLI.parse(['--warmup', '-1'])).toThrow(BenchError)
    expect(() => EVALUATE_BODY_CLI.parse(['--warmup', '-1'])).toThrow(BenchError)
  })
})
