import { ServerNode } from '@sealbox/testkit'
import { describe, expect, it } from 'vitest'
import { CONFIG_KEYS } from '../src/config/loadConfig.ts'

const runMain = (args: string[]) => ServerNode.run(args)

describe('node src/main.ts --help', () => {
  it('prints every setting with its flag and environment variable, and exits 0 without starting', async () => {
    const { code, stdout } = await runMain(['--help'])
    expect(code).toBe(0)
    for (const key of CONFIG_KEYS) {
      expect(stdout).toContain(`--${key.toLowerCase().replaceAll('_', '-')}`)
      expect(stdout).toContain(`env ${key}; default `)
    }
  })

  it('still refuses an unknown flag, naming it', async () => {
    const { code, stderr } = await runMain(['--no-such-flag'])
    expect(code).toBe(1)
    expect(stderr).toMatch(/unknown flag --no-such-flag/)
  })
})
