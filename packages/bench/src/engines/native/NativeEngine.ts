import { spawn, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { BenchError } from '../../BenchError.ts'
import { OP_CATALOG } from '../../harness/opCatalog.ts'
import type { BenchEngine, EngineAvailability, EngineRunContext, EngineRunOutcome } from '../BenchEngine.ts'
import { HarnessEventCollector } from '../HarnessEventCollector.ts'

const HERE = fileURLToPath(new URL('./', import.meta.url))
const VENV = fileURLToPath(new URL('../../../.venv/', import.meta.url))
const VENV_PYTHON = `${VENV}bin/python`
const REQUIREMENTS = `${HERE}requirements.txt`
const INSTALL_HINT = `python3 -m venv packages/bench/.venv && packages/bench/.venv/bin/pip install -r packages/bench/src/engines/native/requirements.txt`

const VERSION_PROBE = [
  'import json, platform, importlib.metadata as m, seal',
  "print(json.dumps({'python': platform.python_version(), 'seal-python': m.version('seal-python'), 'numpy': m.version('numpy')}))",
].join('; ')

function run(cmd: string, args: string[]): { ok: boolean; output: string } {
  const result = spawnSync(cmd, args, { encoding: 'utf8', timeout: 600_000 })
  return { ok: result.status === 0, output: `${result.stdout ?? ''}${result.stderr ?? ''}`.trim() }
}

/**
 * The Native column: Microsoft SEAL 4.1 through the PyPI wheel `seal-python==4.1.2.1`,
 * in a venv under packages/bench/.venv that is created on first use. A small Python
 * harness (sealbench_native.py) makes the same calls as the JS harness.
 */
export class NativeEngine implements BenchEngine {
  readonly id = 'native'
  readonly label = 'Native SEAL 4.1'
  #versions: Record<string, string> = {}

  async detect(): Promise<EngineAvailability> {
    const unavailable = (reason: string): EngineAvailability => ({ available: false, reason, install: INSTALL_HINT })
    let probe = existsSync(VENV_PYTHON) ? run(VENV_PYTHON, ['-c', VERSION_PROBE]) : { ok: false, output: '' }
    if (!probe.ok) {
      const python = run('python3', ['-c', 'import sys; assert sys.version_info >= (3, 8); print(sys.version)'])
      if (!python.ok) return unavailable('python3 (>= 3.8) not found')
      process.stderr.write(`[native] creating ${VENV} with seal-python 4.1.2.1 (first run only)\n`)
      const venv = run('python3', ['-m', 'venv', VENV])
      if (!venv.ok) return unavailable(`python3 -m venv failed: ${venv.output.split('\n').at(-1)}`)
      const pip = run(VENV_PYTHON, ['-m', 'pip', 'install', '--quiet', '-r', REQUIREMENTS])
      if (!pip.ok) return unavailable(`pip install failed: ${pip.output.split('\n').at(-1)}`)
      probe = run(VENV_PYTHON, ['-c', VERSION_PROBE])
      if (!probe.ok) return unavailable(`seal-python does not import: ${probe.output.split('\n').at(-1)}`)
    }
    this.#versions = JSON.parse(probe.output) as Record<string, string>
    return { available: true }
  }

  async run(context: EngineRunContext): Promise<EngineRunOutcome> {
    const collector = new HarnessEventCollector('native', context.onEvent)
    const child = spawn(VENV_PYTHON, ['sealbench_native.py'], { cwd: HERE, stdio: ['pipe', 'pipe', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-4000)
    })
    createInterface({ input: child.stdout }).on('line', (line) => {
      try {
        collector.accept(JSON.parse(line))
      } catch (error) {
        collector.fail(
          new BenchError('ENGINE_FAILED', `native: unreadable output line: ${line.slice(0, 200)}`, { cause: error }),
        )
      }
    })
    child.on('close', (code) =>
      collector.fail(new BenchError('ENGINE_FAILED', `native harness exited with code ${code}: ${stderr.trim()}`)),
    )
    const timer = setTimeout(() => {
      collector.fail(new BenchError('TIMEOUT', `native: no result after ${Math.round(context.timeoutMs / 1000)} s`))
      child.kill('SIGKILL')
    }, context.timeoutMs)
    child.stdin.end(JSON.stringify({ plan: context.plan, catalog: OP_CATALOG }))
    try {
      const result = await collector.done
      return { result, versions: { ...this.#versions, seal: '4.1.2 (seal-python wheel)' } }
    } finally {
      clearTimeout(timer)
      if (child.exitCode === null) child.kill()
    }
  }
}
