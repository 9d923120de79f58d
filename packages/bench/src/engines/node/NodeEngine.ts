import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { BenchError } from '../../BenchError.ts'
import type { BenchEngine, EngineAvailability, EngineRunContext, EngineRunOutcome } from '../BenchEngine.ts'
import { HarnessEventCollector } from '../HarnessEventCollector.ts'

const CHILD = fileURLToPath(new URL('./nodeHarnessMain.ts', import.meta.url))

/** The Node column: the shared harness in a child Node process (the Node running this CLI). */
export class NodeEngine implements BenchEngine {
  readonly id = 'node'
  readonly label = `Node ${process.versions.node.split('.')[0]}`

  async detect(): Promise<EngineAvailability> {
    const [major = 0, minor = 0] = process.versions.node.split('.').map(Number)
    if (major > 22 || (major === 22 && minor >= 19)) return { available: true }
    return {
      available: false,
      reason: `Node ${process.version} cannot load node-seal 7 (needs WASM exnref)`,
      install: 'run through `npm run benchmark`, which bootstraps Node 24',
    }
  }

  async run(context: EngineRunContext): Promise<EngineRunOutcome> {
    const collector = new HarnessEventCollector('node', context.onEvent)
    const child = fork(CHILD, [], {
      execArgv: ['--conditions=@sealbox/source'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    })
    const timer = setTimeout(() => {
      collector.fail(new BenchError('TIMEOUT', `node: no result after ${Math.round(context.timeoutMs / 1000)} s`))
      child.kill('SIGKILL')
    }, context.timeoutMs)
    child.on('message', (message) => collector.accept(message))
    child.on('close', (code, signal) =>
      collector.fail(new BenchError('ENGINE_FAILED', `node harness exited (code ${code}, signal ${signal})`)),
    )
    child.send({ plan: context.plan })
    try {
      const result = await collector.done
      return { result, versions: { node: process.version, v8: process.versions.v8 } }
    } finally {
      clearTimeout(timer)
      if (child.exitCode === null) child.kill()
    }
  }
}
