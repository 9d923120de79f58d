import { HeError } from '@sealbox/he-core'
import type { ExecutorChoice } from '../../worker/serverProtocol.ts'
import { checkPipeline } from '../../workspace/pipeline.ts'
import { nextRunId } from '../../workspace/serverHistory.ts'
import type { Outcome, Sandbox } from '../Sandbox.ts'

/**
 * Why `text` cannot be a server address, or undefined when it can: empty (this page's
 * server) or an absolute http(s) URL. Anything else would be fetched as a path below
 * this page and fail far from the real mistake.
 */
export function serverUrlProblem(text: string): string | undefined {
  const trimmed = text.trim()
  if (trimmed === '') return undefined
  let url: URL
  try {
    url = new URL(trimmed)
  } catch {
    return `"${trimmed}" is not a URL; enter the server's address, e.g. http://localhost:8080, or leave it empty for this page's server`
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `"${trimmed}" uses ${url.protocol.replace(/:$/, '')}; the server's address starts with http:// or https://`
  }
  return undefined
}

/**
 * Connects to the server (same origin when the URL is empty) as a fresh local-mode
 * tenant. A failed attempt forgets the previous connection: the worker dropped it.
 */
export async function connectServer(sandbox: Sandbox): Promise<Outcome<void>> {
  const { baseUrl } = sandbox.workspace.state.server
  const problem = serverUrlProblem(baseUrl)
  if (problem) {
    sandbox.server.update((view) => ({ ...view, connection: undefined, uploaded: undefined }))
    return { ok: false, error: new HeError('INVALID_INPUT', problem, { details: { field: 'baseUrl' } }) }
  }
  const outcome = await sandbox.run(`Connecting to ${baseUrl.trim() || 'this server'}`, async () => {
    const reply = await sandbox.worker.request({ type: 'serverConnect', baseUrl: baseUrl.trim() })
    const { type: _type, id: _id, ...connection } = reply
    sandbox.server.update((view) => ({ ...view, connection, uploaded: undefined }))
  })
  if (!outcome.ok) sandbox.server.update((view) => ({ ...view, connection: undefined, uploaded: undefined }))
  return outcome
}

/**
 * Uploads every evaluation key of the workspace (relinearization and Galois; never
 * the secret key) as one key set, unless the same keys are already there.
 */
async function ensureKeysUploaded(sandbox: Sandbox, options: { force?: boolean } = {}) {
  const { keys } = sandbox.workspace.state
  const entries = [keys.relinKeys, keys.galoisKeys].filter((entry) => entry !== undefined)
  if (entries.length === 0 || !keys.keySetId) return undefined
  const signature = `${keys.keySetId}:${entries.map((e) => `${e.kind}@${e.createdAt}`).join(',')}`
  const uploaded = sandbox.server.state.uploaded
  if (!options.force && uploaded?.signature === signature) return { name: uploaded.name, upload: undefined }
  const envelopes = entries.map((entry) => {
    if (!entry.envelope) {
      throw new HeError(
        'LIMIT_EXCEEDED',
        `The ${entry.kind} are too large to upload from the sandbox; use smaller parameters.`,
      )
    }
    return entry.envelope
  })
  const name = `sandbox-${keys.keySetId.slice(0, 12)}`
  const started = performance.now()
  const reply = await sandbox.worker.request({ type: 'serverUploadKeys', name, envelopes })
  const ms = performance.now() - started
  sandbox.server.update((view) => ({ ...view, uploaded: { name, signature, bytes: reply.bytes } }))
  return { name, upload: { bytes: reply.bytes, ms } }
}

/** Uploads the workspace's relinearization and Galois keys (never the secret key) as one key set. */
export async function uploadEvaluationKeys(sandbox: Sandbox): Promise<Outcome<void>> {
  return sandbox.run('Uploading evaluation keys', async () => {
    const { keys } = sandbox.workspace.state
    if (!keys.relinKeys && !keys.galoisKeys) {
      throw new HeError(
        'MISSING_KEY',
        'There are no relinearization or Galois keys to upload; generate them on the Keys panel.',
      )
    }
    await ensureKeysUploaded(sandbox, { force: true })
  })
}

/**
 * Runs the whole pipeline on the server: uploads the evaluation keys it needs
 * (never the secret key), sends the input ciphertexts, and decrypts the outputs
 * here. Each run is kept to compare executors and with the local run.
 */
export async function runPipelineOnServer(sandbox: Sandbox, executor: ExecutorChoice): Promise<Outcome<void>> {
  return sandbox.run(
    `Running the pipeline on the server (${executor === 'default' ? 'server default' : executor})`,
    async () => {
      const state = sandbox.workspace.state
      if (!state.applied) throw new HeError('INVALID_INPUT', 'Create the context first.')
      const check = checkPipeline(state)
      const problem = check.problems[0]
      if (problem) throw new HeError('INVALID_PROGRAM', problem.message)
      if (!check.program || !check.analysis) throw new HeError('INVALID_PROGRAM', 'Add steps to the pipeline first.')
      const needsKeys = check.analysis.needsRelinKeys || check.analysis.keyGenSteps.length > 0
      const keys = needsKeys ? await ensureKeysUploaded(sandbox) : undefined
      const inputs: Record<string, Uint8Array> = {}
      for (const input of check.program.inputs) {
        const variable = state.variables.find((v) => v.name === input.name)
        if (!variable) throw new HeError('NOT_FOUND', `There is no variable called '${input.name}'.`)
        inputs[input.name] = variable.envelope
      }
      const reply = await sandbox.worker.request({
        type: 'serverEvaluate',
        params: state.applied.input,
        program: check.program,
        inputs,
        ...(keys ? { keySet: keys.name } : {}),
        executor,
      })
      sandbox.noteHeap(reply.heapBytes)
      const run = {
        id: nextRunId(sandbox.server.state),
        requested: executor,
        outputs: reply.outputs,
        stepMs: reply.stepMs,
        work: reply.work,
        ...(keys?.upload ? { keyUpload: keys.upload } : {}),
        at: Date.now(),
      }
      sandbox.server.update((view) => ({ ...view, runs: [run, ...view.runs].slice(0, 8) }))
    },
  )
}

/** One private search on the server's database with a query encrypted here. */
export async function runSearch(
  sandbox: Sandbox,
  vector: number[],
  k: number,
  executor: ExecutorChoice,
): Promise<Outcome<void>> {
  return sandbox.run('Private search', async () => {
    const reply = await sandbox.worker.request({ type: 'serverSearch', vector, k, executor })
    const { type: _type, id: _id, ...result } = reply
    const run = { ...result, id: nextRunId(sandbox.server.state), requested: executor, vector, at: Date.now() }
    sandbox.server.update((view) => ({ ...view, searches: [run, ...view.searches].slice(0, 5) }))
  })
}
