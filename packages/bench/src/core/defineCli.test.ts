import { resolve } from 'node:path'
import process from 'node:process'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { benchErrorOf, parseFlags } from './cliTestKit.ts'
import { commandLine, defineCli } from './defineCli.ts'
import { outFlag } from './flagSchemas.ts'

describe('commandLine', () => {
  it('is the bare command without flags, and drops the separator npm passes on', () => {
    expect(commandLine('npm run benchmark:server', [])).toBe('npm run benchmark:server')
    expect(commandLine('npm run benchmark:server', ['--'])).toBe('npm run benchmark:server')
  })

  it('writes the flags after one separator, as a user types them from the root', () => {
    expect(commandLine('npm run benchmark', ['--', '--quick', '--engines', 'node'])).toBe(
      'npm run benchmark -- --quick --engines node',
    )
  })
})

describe('defineCli: a flag given once per value', () => {
  const cli = defineCli({
    command: 'bench --',
    flags: z.object({
      shape: z
        .array(z.string().regex(/^\d+x\d+$/, 'expected <rows>x<dimension>'))
        .min(1, 'give at least one --shape')
        .describe('a shape'),
      quick: z.boolean().optional(),
    }),
  })

  it('collects every value in order, beside a switch', () => {
    expect(parseFlags(cli, ['--', '--shape', '10x4', '--quick', '--shape=20x8'])).toEqual({
      shape: ['10x4', '20x8'],
      quick: true,
    })
  })

  it('names the one value at fault, and the missing flag', () => {
    const bad = benchErrorOf(() => cli.parse(['--shape', '10x4', '--shape', 'wide']))
    expect(bad.code).toBe('INVALID_FLAGS')
    expect(bad.message).toMatch(/^--shape: expected <rows>x<dimension> \(got "wide"\)/)
    expect(benchErrorOf(() => cli.parse([])).message).toMatch(/^--shape: /)
  })

  it('says in the help that it repeats', () => {
    expect(cli.help()).toMatch(/--shape <value> … +a shape/)
  })
})

describe('outFlag', () => {
  const cli = defineCli({ command: 'bench --', flags: z.object({ out: outFlag('where the report goes') }) })

  it('is absent when not given, absolute as given, and relative to where the command was typed', () => {
    expect(parseFlags(cli, []).out).toBeUndefined()
    expect(parseFlags(cli, ['--out', '/tmp/report']).out).toBe('/tmp/report')
    expect(parseFlags(cli, ['--out', 'results/x']).out).toBe(
      resolve(process.env.INIT_CWD ?? process.cwd(), 'results/x'),
    )
    expect(cli.help()).toMatch(/--out <dir> +where the report goes; a relative path is from where you ran the command/)
  })
})
