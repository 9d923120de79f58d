import { execFile, execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

const run = promisify(execFile)
const VENV = fileURLToPath(new URL('../../../../packages/bench/.venv/', import.meta.url))
const REQUIREMENTS = fileURLToPath(
  new URL('../../../../packages/bench/src/engines/native/requirements.txt', import.meta.url),
)

/**
 * The interpreter of the bench's venv with the seal-python wheel (created the way the
 * bench creates it when missing); undefined on a machine without python3.
 */
export async function venvPython(): Promise<string | undefined> {
  const python = `${VENV}bin/python`
  if (existsSync(python)) return python
  try {
    execFileSync('python3', ['--version'], { stdio: 'ignore' })
  } catch {
    return undefined
  }
  await run('python3', ['-m', 'venv', VENV], { timeout: 120_000 })
  await run(`${VENV}bin/pip`, ['install', '-r', REQUIREMENTS], { timeout: 600_000 })
  return python
}
