import { BenchError } from '../../BenchError.ts'
import { NativeEngine, VENV_PYTHON } from './NativeEngine.ts'
import { type PythonHarness, startPythonHarness } from './startPythonHarness.ts'

/** One reply line of search_native.py. */
type NativeReply = { ok: true; [field: string]: unknown } | { ok: false; error: string; trace?: string }

/** Phase timings of one native evaluation (ms), timed like `PrivateSearchIndex.evaluate`'s. */
export interface NativeSampleTimings {
  decodeMs: number
  loadMs: number
  computeMs: number
  saveMs: number
  totalMs: number
  /** CPU time of the harness thread (getrusage RUSAGE_THREAD, the clock of `process.threadCpuUsage`). */
  cpuMs: number
  responseBytes: number
}

/** What the native side needs to serve one search config. */
export interface NativeSearchSetup {
  scheme: 'bgv' | 'bfv'
  configId: string
  fingerprint: string
  coeffModulusBits: number[]
  plainModulus: number
  babySteps: 'client' | 'server'
  queryCiphertexts: number
  rows: number
  shape: { n: number; dimension: number; paddedDimension: number; babyStep: number }
  blocks: { index: number; firstRow: number; rows: number; folded: boolean; diagonals: number; giantSteps: number }[]
  /** The scaled database, row-major V × D. */
  scaled: Int32Array
  /** Galois keys saved uncompressed by node-seal (the wheel has no zstd), or null. */
  galoisKeys: Uint8Array | null
  /** Query bundles made by he-core's client (uncompressed seeded ciphertexts). */
  queries: Uint8Array[]
}

const base64 = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')

/**
 * search_native.py in the bench venv (created with seal-python by `NativeEngine.detect()`
 * on first use), one command at a time over stdin/stdout JSON lines.
 */
export class NativeSearchHarness implements AsyncDisposable {
  readonly #waiting: { resolve: (reply: NativeReply) => void; reject: (error: Error) => void }[] = []
  readonly #harness: PythonHarness
  #closed: Error | undefined
  versions: Record<string, string> = {}

  private constructor() {
    this.#harness = startPythonHarness({
      python: VENV_PYTHON,
      script: 'search_native.py',
      name: 'native search harness',
      onLine: (reply) => this.#waiting.shift()?.resolve(reply as NativeReply),
      onUnreadable: (error) => this.#waiting.shift()?.reject(error),
      onExit: (error) => {
        this.#closed = error
        for (const waiter of this.#waiting.splice(0)) waiter.reject(error)
      },
    })
  }

  /** Creates the venv if needed and starts the harness; throws ENGINE_UNAVAILABLE with the install hint. */
  static async start(): Promise<NativeSearchHarness> {
    const availability = await new NativeEngine().detect()
    if (!availability.available) {
      throw new BenchError('ENGINE_UNAVAILABLE', `native SEAL: ${availability.reason}; ${availability.install ?? ''}`)
    }
    const harness = new NativeSearchHarness()
    harness.versions = (await harness.#request({ cmd: 'versions' })) as unknown as Record<string, string>
    delete harness.versions.ok
    return harness
  }

  async #request(command: Record<string, unknown>): Promise<Record<string, unknown>> {
    if (this.#closed) throw this.#closed
    const reply = await new Promise<NativeReply>((resolve, reject) => {
      this.#waiting.push({ resolve, reject })
      this.#harness.send(command)
    })
    if (!reply.ok) {
      throw new BenchError('ENGINE_FAILED', `native search ${String(command.cmd)}: ${reply.error}`, {
        details: { trace: reply.trace },
      })
    }
    return reply
  }

  /** Processes the database and loads keys and queries for case `id`. */
  async setup(id: string, setup: NativeSearchSetup): Promise<{ processMs: number; keyLoadMs: number }> {
    const reply = await this.#request({
      cmd: 'setup',
      case: id,
      ...setup,
      scaled: base64(new Uint8Array(setup.scaled.buffer, setup.scaled.byteOffset, setup.scaled.byteLength)),
      galoisKeys: setup.galoisKeys ? base64(setup.galoisKeys) : null,
      queries: setup.queries.map(base64),
    })
    return { processMs: Number(reply.processMs), keyLoadMs: Number(reply.keyLoadMs) }
  }

  /** One evaluation of query `query` (index into the setup's list); `withResponse` returns the response bundle too. */
  async sample(
    id: string,
    query: number,
    withResponse = false,
  ): Promise<{ timings: NativeSampleTimings; response?: Uint8Array }> {
    const reply = await this.#request({ cmd: 'sample', case: id, query, response: withResponse })
    const timings = reply as unknown as NativeSampleTimings
    return typeof reply.response === 'string'
      ? { timings, response: new Uint8Array(Buffer.from(reply.response, 'base64')) }
      : { timings }
  }

  /** `samples` single rotations (by one step) of case `id`'s first query ciphertext, ms each. */
  async rotations(id: string, samples: number): Promise<number[]> {
    const reply = await this.#request({ cmd: 'rotate', case: id, samples })
    return (reply.ms as number[]).map(Number)
  }

  async dispose(id: string): Promise<void> {
    await this.#request({ cmd: 'dispose', case: id })
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.#harness.close()
  }
}
