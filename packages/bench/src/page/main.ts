/**
 * The benchmark page: fetches the plan for `?run=…`, runs the shared harness in a
 * module Worker (long WASM calls never block this thread, and no slow-script watchdog
 * applies), and relays every harness event to the local server that started the run.
 */
import { PAGE_API, type WorkerStart } from './pageProtocol.ts'

const run = new URLSearchParams(location.search).get('run') ?? ''
const status = document.getElementById('status')
let queue: Promise<unknown> = Promise.resolve()

/** Posts events strictly in order (the server forwards them as a stream). */
function post(event: unknown): void {
  queue = queue.then(() =>
    fetch(`${PAGE_API.events}?run=${encodeURIComponent(run)}`, {
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

async function start(): Promise<void> {
  const response = await fetch(`${PAGE_API.plan}?run=${encodeURIComponent(run)}`)
  if (!response.ok) throw new Error(`no plan for run ${run}: HTTP ${response.status}`)
  const plan = (await response.json()) as WorkerStart['plan']
  const worker = new Worker(new URL('./benchWorker.ts', import.meta.url), { type: 'module' })
  worker.addEventListener('message', (message: MessageEvent<{ type?: string; label?: string }>) => {
    if (status && message.data.type === 'phase') status.textContent = `running: ${message.data.label ?? ''}`
    if (status && message.data.type === 'done') status.textContent = 'done'
    post(message.data)
  })
  worker.addEventListener('error', (event) => fail(`worker error: ${event.message}`))
  const start: WorkerStart = {
    plan,
    runtime: {
      userAgent: navigator.userAgent,
      crossOriginIsolated: globalThis.crossOriginIsolated === true,
      sharedArrayBuffer: typeof SharedArrayBuffer !== 'undefined',
      hardwareConcurrency: navigator.hardwareConcurrency,
    },
  }
  worker.postMessage(start)
}

start().catch((error: unknown) => fail(error instanceof Error ? error.message : String(error)))
