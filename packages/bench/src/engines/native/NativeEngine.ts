import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { OP_CATALOG } from '../../harness/opCatalog.ts'
import type { BenchEngine, EngineAvailability, EngineSession, EngineStartContext } from '../BenchEngine.ts'
import { HarnessConnection } from '../HarnessConnection.ts'
import { startPythonHarness } from './startPythonHarness.ts'

const HERE = fileURLToPath(new URL('./', import.meta.url))
const VENV = fileURLToPath(new URL('../../../.venv/', import.meta.url))
/** The venv interpreter `detect()` creates (with seal-python) on first use. */
export const VENV_PYTHON = `${VENV}bin/python`
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
  readonly shortName = 'Native'
  readonly color = '#4a4a4a'
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

  async start(context: EngineStartContext): Promise<EngineSession> {
    const harness = startPythonHarness({
      python: VENV_PYTHON,
      script: 'sealbench_native.py',
      name: 'native harness',
      onLine: (value) => connection.accept(value),
      onUnreadable: (error) => connection.fail(error),
      onExit: (error) => connection.fail(error),
    })
    const connection = new HarnessConnection('native', context.onEvent, (command) => harness.send(command))
    // The first line is the plan (with the op catalog, so Python needs no copy of it); commands follow.
    harness.send({ plan: context.plan, catalog: OP_CATALOG })
    return {
      request: (command, timeoutMs) => connection.request(command, timeoutMs),
      get result() {
        return connection.result
      },
      versions: async () => ({ ...this.#versions, seal: '4.1.2 (seal-python wheel)' }),
      close: async () => harness.close(),
    }
  }
}
