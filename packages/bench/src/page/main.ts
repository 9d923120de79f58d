/**
 * The benchmark page: fetches the plan for `?run=…`, starts the shared harness in a
 * module Worker (long WASM calls never block this thread, and no slow-script watchdog
 * applies), long-polls the server for harness commands, and relays every harness event
 * back to the server that started the run.
 */

import { BenchError } from '../BenchError.ts'
import type { HarnessCommand } from '../protocol/benchProtocol.ts'
import { PAGE_API, type WorkerMessage } from './pageProtocol.ts'

const run = encodeURIComponent(new URLSearchParams(location.search).get('run') ?? '')
const status = document.getElementById('status')
let outbox: Promise<unknown> = Promise.resolve()

/** Posts events strictly in order (the server forwards them as a stream). */
function post(event: unknown): void {
  outbox = outbox.then(() =>
    fetch(`${PAGE_API.events}?run=${run}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(event),
    }).catch(() => undefined),
  )
}

function fail(message: string, stack?: string): void {
  if (status) status.textContent = `failed: ${message}`
  post({ type: 'error', message, ...(stack ? { stack } : {}) })
}

/** Hands every command to the worker, in order, until the run is closed. */
async function pollCommands(worker: Worker): Promise<void> {
  let after = -1
  for (;;) {
    const response = await fetch(`${PAGE_API.command}?run=${run}&after=${after}`)
    if (response.status === 204) continue
    if (!response.ok) return
    const command = (await response.json()) as HarnessCommand
    after = command.seq
    const message: WorkerMessage = { type: 'command', command }
    worker.postMessage(message)
  }
}

async function start(): Promise<void> {
  const response = await fetch(`${PAGE_API.plan}?run=${run}`)
  if (!response.ok) throw new BenchError('ENGINE_FAILED', `no plan for this run: HTTP ${response.status}`)
  const plan = (await response.json()) as Extract<WorkerMessage, { type: 'start' }>['plan']
  const worker = new Worker(new URL('./benchWorker.ts', import.meta.url), { type: 'module' })
  worker.addEventListener('message', (message: MessageEvent<{ type?: string; label?: string }>) => {
    if (status && message.data.type === 'phase') status.textContent = `running: ${message.data.label ?? ''}`
    post(message.data)
  })
  worker.addEventListener('error', (event) => fail(`worker error: ${event.message}`))
  const startMessage: WorkerMessage = {
    type: 'start',
    plan,
    runtime: {
      userAgent: navigator.userAgent,
      crossOriginIsolated: globalThis.crossOriginIsolated === true,
      sharedArrayBuffer: typeof SharedArrayBuffer !== 'undefined',
      hardwareConcurrency: navigator.hardwareConcurrency,
    },
  }
  worker.postMessage(startMessage)
  await pollCommands(worker)
}

start().catch((error: unknown) => fail(error instanceof Error ? error.message : String(error)))
