import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { CONFIG_KEYS } from '../src/config/loadConfig.ts'
import { inheritedEnv } from './harness.ts'

async function runMain(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const main = fileURLToPath(new URL('../src/main.ts', import.meta.url))
  const child = spawn(process.execPath, ['--conditions=@sealbox/source', main, ...args], {
    env: inheritedEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString()
  })
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
  return { code, stdout, stderr }
}

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
