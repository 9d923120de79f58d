import { HeError } from '@sealbox/he-core'
import type { ExecutorMode, ServerConfig } from '../config/ServerConfig.ts'
import type { Executor, ExecutorEvents } from './Executor.ts'
import { InlineExecutor } from './InlineExecutor.ts'
import { ProcessExecutor } from './ProcessExecutor.ts'
import { WorkerPoolExecutor } from './WorkerPoolExecutor.ts'
import type { WorkerSetup } from './WorkerSetup.ts'

/** The executor of one mode: a thread pool, the event loop, or child processes (WORKERS of them). */
export function createExecutor(options: {
  mode: ExecutorMode
  setup: WorkerSetup
  config: Pick<ServerConfig, 'WORKERS'>
  events: ExecutorEvents
  /** node-seal compiled once for every worker thread (a capped heap), when it is. */
  wasmModule: WebAssembly.Module | undefined
}): Executor {
  const { mode, setup, config, events, wasmModule } = options
  switch (mode) {
    case 'pool':
      return new WorkerPoolExecutor({
        setup,
        threads: config.WORKERS,
        events,
        ...(wasmModule ? { wasmModule } : {}),
      })
    case 'inline':
      return new InlineExecutor(setup, events, wasmModule)
    case 'process':
      return new ProcessExecutor({ setup, processes: config.WORKERS, events })
    default: {
      const never: never = mode
      // Config is parsed against EXECUTOR_MODES: reaching here is a bug of ours, not the client's.
      throw new HeError('INTERNAL', `unknown executor ${String(never)}`)
    }
  }
}
