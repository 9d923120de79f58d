import { HeError } from '@sealbox/he-core'
import { buildServer } from './app/buildServer.ts'
import { describeKeyStore, inferKeyStore } from './config/keyStoreSetting.ts'
import { loadConfig, parseFlags, serverHelp } from './config/loadConfig.ts'
import type { ServerConfig } from './config/ServerConfig.ts'
import type { SighupRelay } from './process/SighupRelay.ts'

function fail(message: string): never {
  process.stderr.write(`sealbox: ${message}\n`)
  process.exit(1)
}

/**
 * The server process behind `main`: reads the configuration (flags win over environment),
 * starts the server, re-reads TOKENS_FILE on SIGHUP (through `sighup`, installed by `main`
 * before this module loaded), and shuts down gracefully on SIGINT/SIGTERM: stop accepting,
 * finish in-flight requests and jobs, stop the workers, flush the key store, exit.
 */
export async function runServer({ sighup }: { sighup: SighupRelay }): Promise<void> {
  let config: ServerConfig
  const inferred = inferKeyStore(process.env)
  try {
    if (parseFlags(process.argv.slice(2)).help) {
      process.stdout.write(`${serverHelp()}\n`)
      process.exit(0)
    }
    config = loadConfig({ argv: process.argv.slice(2), env: inferred.env })
  } catch (error) {
    fail(error instanceof HeError ? error.message : String(error))
  }

  const store = describeKeyStore(config.KEY_STORE)
  // Which database runs and why is never a guess (a DATABASE the user set must not be silently replaced).
  const database =
    config.DATABASE === 'synthetic'
      ? `synthetic (${config.SYNTHETIC_ROWS} rows × ${config.SYNTHETIC_DIM})`
      : config.DATABASE
  // A shard node says which part it serves: the operator reads the line to check each node.
  const served = config.SEARCH_SHARD === undefined ? database : `${database}, shard ${config.SEARCH_SHARD}`
  if (inferred.note) process.stderr.write(`sealbox: ${inferred.note}\n`)
  let app: Awaited<ReturnType<typeof buildServer>>
  try {
    app = await buildServer(config)
  } catch (error) {
    // A configuration problem found while opening things (a bad TOKENS_FILE), or a key store
    // still unreachable after KEY_STORE_CONNECT_TIMEOUT_MS: one line, no stack.
    if (error instanceof HeError && (error.code === 'INVALID_INPUT' || error.code === 'STORE_UNAVAILABLE')) {
      fail(error.message)
    }
    throw error
  }
  if (inferred.note) app.log.warn({ store }, inferred.note)
  let stopping = false

  async function shutdown(signal: string): Promise<void> {
    if (stopping) return
    stopping = true
    app.log.info({ signal }, 'shutting down: finishing in-flight work')
    const force = setTimeout(() => {
      app.log.error(`shutdown took longer than ${config.SHUTDOWN_TIMEOUT_MS} ms; exiting`)
      process.exit(1)
    }, config.SHUTDOWN_TIMEOUT_MS)
    force.unref()
    try {
      await app.close()
      app.log.info('stopped')
      process.exit(0)
    } catch (error) {
      app.log.error({ err: error }, 'shutdown failed')
      process.exit(1)
    }
  }
  process.once('SIGINT', () => void shutdown('SIGINT'))
  process.once('SIGTERM', () => void shutdown('SIGTERM'))
  // Started by a Node parent over an IPC channel (the test and benchmark harness, a process
  // manager): the node ends with its parent, even when the parent is killed (SIGKILL, a
  // crashed test runner), so no orphaned server keeps a port and a worker pool busy.
  if (process.channel) {
    process.channel.unref()
    process.once('disconnect', () => void shutdown('parent process gone'))
  }
  // SIGHUP (systemctl reload) re-reads TOKENS_FILE; one held during start-up runs now.
  sighup.attach(() => {
    const tokensFile = app.sealbox.tokensFile
    if (tokensFile) void tokensFile.reload('SIGHUP')
    else app.log.info('SIGHUP: nothing to reload (TOKENS_FILE is not set)')
  })

  let address: string
  try {
    address = await app.listen({ port: config.PORT, host: config.HOST })
  } catch (error) {
    fail(`cannot listen on ${config.HOST}:${config.PORT}: ${(error as Error).message}`)
  }
  try {
    // One plain line for people (and scripts) whatever the log level; pino's JSON is for machines.
    process.stderr.write(
      `sealbox: listening on ${address}, key store ${store}, database ${served} (workers warming up; /readyz says when ready)\n`,
    )
    await app.sealbox.warmup
    process.stderr.write(
      `sealbox: ready — ${address}, ${config.MODE} mode, key store ${store} (docs at ${address}/docs)\n`,
    )
    const heapWarning = app.sealbox.hub.heapPlan?.warning
    if (heapWarning) process.stderr.write(`sealbox: warning — ${heapWarning}\n`)
    app.log.info(
      { executor: config.EXECUTOR, workers: config.WORKERS, mode: config.MODE, store, database, address },
      'ready: workers warm, database processed',
    )
  } catch (error) {
    app.log.fatal({ err: error }, 'workers failed to start')
    await app.close().catch(() => undefined)
    // A database refused from its shape never reached a worker: say so, not that workers failed.
    if (error instanceof HeError && error.details?.refused === 'database') fail(error.message)
    fail(`workers failed to start: ${error instanceof Error ? error.message : String(error)}`)
  }
}
