import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { BenchError } from '../../BenchError.ts'
import type { BenchEngine, EngineAvailability, EngineSession, EngineStartContext } from '../BenchEngine.ts'
import { HarnessConnection } from '../HarnessConnection.ts'

const CHILD = fileURLToPath(new URL('./nodeHarnessMain.ts', import.meta.url))

/** The Node column: the shared harness in a child Node process (the Node running this CLI). */
export class NodeEngine implements BenchEngine {
  readonly id = 'node'
  readonly label = `Node ${process.versions.node.split('.')[0]}`
  readonly shortName = 'Node'
  readonly color = '#3c873a'

  async detect(): Promise<EngineAvailability> {
    const [major = 0, minor = 0] = process.versions.node.split('.').map(Number)
    if (major > 22 || (major === 22 && minor >= 19)) return { available: true }
    return {
      available: false,
      reason: `Node ${process.version} cannot load node-seal 7 (needs WASM exnref)`,
      install: 'run through `npm run benchmark`, which bootstraps Node 24',
    }
  }

  async start(context: EngineStartContext): Promise<EngineSession> {
    const child = fork(CHILD, [], {
      execArgv: ['--conditions=@sealbox/source'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    })
    const connection = new HarnessConnection('node', context.onEvent, (command) => child.send({ command }))
    child.on('message', (message) => connection.accept(message))
    child.on('close', (code, signal) =>
      connection.fail(new BenchError('ENGINE_FAILED', `node harness exited (code ${code}, signal ${signal})`)),
    )
    child.send({ plan: context.plan })
    return {
      request: (command, timeoutMs) => connection.request(command, timeoutMs),
      get result() {
        return connection.result
      },
      versions: async () => ({ node: process.version, v8: process.versions.v8 }),
      close: async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill()
      },
    }
  }
}
