// A worker_threads entry: one node-seal instance, the database processed for its
// share of the blocks, then queries until closed.
import { parentPort, workerData } from 'node:worker_threads'
import { EvaluationKeys, getHeContext, loadSeal } from '@sealbox/he-core'
import { PrivateSearchIndex, resolveSearchConfig, syntheticSearchDatabase } from '@sealbox/he-core/search'
import { BenchError } from '../BenchError.ts'
import type { SearchWorkerData, SearchWorkerReply, SearchWorkerRequest } from './searchWorkerProtocol.ts'

const data = workerData as SearchWorkerData
const port = parentPort
if (!port) throw new BenchError('INTERNAL', 'searchWorker.ts must run in a worker thread')
const reply = (message: SearchWorkerReply, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer)

try {
  await loadSeal(data.wasmModule ? { wasmModule: data.wasmModule } : {})
  const database = syntheticSearchDatabase(data.database)
  const config = resolveSearchConfig({ ...data.config, rows: database.rows, dimension: database.dimension })
  const ctx = await getHeContext(config.params)
  const index = PrivateSearchIndex.process(ctx, database, config, { blocks: data.blocks })
  // The user's keys, loaded once as a server's worker caches them.
  const keys = data.keys ? EvaluationKeys.load(ctx, data.keys) : null
  port.on('message', (message: SearchWorkerRequest) => {
    if (message.type === 'close') {
      keys?.dispose()
      index.dispose()
      port.close()
      return
    }
    try {
      const { response, timings } = index.evaluate(message.query, keys)
      reply({ type: 'response', id: message.id, response, timings }, [response.buffer as ArrayBuffer])
    } catch (error) {
      reply({ type: 'error', id: message.id, message: String(error) })
    }
  })
  reply({ type: 'ready', processMs: index.processing.milliseconds, blocks: index.blocks })
} catch (error) {
  reply({ type: 'error', message: error instanceof Error ? (error.stack ?? error.message) : String(error) })
}
