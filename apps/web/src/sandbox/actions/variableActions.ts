import { HeError } from '@sealbox/he-core'
import { decodeEnvelope } from '@sealbox/he-core/envelope'
import { downloadFile, readFileBytes } from '../../ui/files.ts'
import type { VariableReport } from '../../worker/protocol.ts'
import type { VariableEntry, WorkspaceState } from '../../workspace/workspaceState.ts'
import type { Outcome, Sandbox } from '../Sandbox.ts'

/** The workspace entry for a variable the worker reported. */
export function entryOfVariable(
  report: VariableReport,
  origin: VariableEntry['origin'],
  values?: string,
): VariableEntry {
  const { name, kind, envelope, bytes, level, size, scaleBits, noiseBudget, preview, ms } = report
  return {
    name,
    kind,
    envelope,
    bytes,
    origin,
    createdAt: Date.now(),
    ...(level === undefined ? {} : { level }),
    ...(size === undefined ? {} : { size }),
    ...(scaleBits === undefined ? {} : { scaleBits }),
    ...(noiseBudget === undefined ? {} : { noiseBudget }),
    ...(preview === undefined ? {} : { preview }),
    ...(ms === undefined ? {} : { ms }),
    ...(values === undefined ? {} : { values }),
  }
}

/** Adds or replaces (same name, same place) a variable. */
export function putVariable(state: WorkspaceState, entry: VariableEntry): WorkspaceState {
  const index = state.variables.findIndex((v) => v.name === entry.name)
  const variables = [...state.variables]
  if (index >= 0) variables[index] = entry
  else variables.push(entry)
  return { ...state, variables }
}

/** Encodes typed numbers into a plaintext, or encodes and encrypts them into a ciphertext. */
export async function createVariable(
  sandbox: Sandbox,
  input: { name: string; kind: VariableEntry['kind']; values: bigint[] | number[]; text: string },
): Promise<Outcome<void>> {
  const verb = input.kind === 'ciphertext' ? 'Encoding and encrypting' : 'Encoding'
  return sandbox.run(`${verb} ${input.name}`, async () => {
    const reply = await sandbox.worker.request({
      type: 'createVariable',
      name: input.name,
      kind: input.kind,
      values: input.values,
    })
    sandbox.noteHeap(reply.heapBytes)
    sandbox.workspace.update((state) => putVariable(state, entryOfVariable(reply.variable, 'values', input.text)))
  })
}

/** Encrypts a plaintext or decrypts a ciphertext into a new variable. */
export async function convertVariable(
  sandbox: Sandbox,
  source: string,
  name: string,
  to: VariableEntry['kind'],
): Promise<Outcome<void>> {
  const from = sandbox.workspace.state.variables.find((v) => v.name === source)
  if (to === 'plaintext') {
    const refused = exhaustedRefusal(from)
    if (refused) return refused
  }
  return sandbox.run(`${to === 'ciphertext' ? 'Encrypting' : 'Decrypting'} ${source}`, async () => {
    const reply = await sandbox.worker.request({ type: 'convertVariable', source, name, to })
    sandbox.noteHeap(reply.heapBytes)
    sandbox.workspace.update((state) => putVariable(state, { ...entryOfVariable(reply.variable, 'convert'), source }))
  })
}

/**
 * Decrypting a ciphertext with no noise budget left "works" and yields garbage: refused,
 * like the pipeline, instead of silent wrong values.
 */
function exhaustedRefusal(variable: VariableEntry | undefined): { ok: false; error: HeError } | undefined {
  if (variable?.kind !== 'ciphertext' || variable.noiseBudget !== 0) return undefined
  return {
    ok: false,
    error: new HeError(
      'NOISE_BUDGET_EXHAUSTED',
      `'${variable.name}' has no noise budget left, so it would decrypt to garbage. Its wrong values are on the Functions panel ("Decrypt anyway"); use larger parameters or fewer multiplications for a result you can decrypt.`,
    ),
  }
}

/** Every slot of a variable, decoded (and decrypted first for a ciphertext; never garbage). */
export async function decodeVariable(sandbox: Sandbox, name: string): Promise<Outcome<bigint[] | number[]>> {
  const refused = exhaustedRefusal(sandbox.workspace.state.variables.find((v) => v.name === name))
  if (refused) return refused
  return sandbox.run(`Decoding ${name}`, async () => {
    const reply = await sandbox.worker.request({ type: 'decodeVariable', name })
    return reply.values
  })
}

/**
 * The variable name a plaintext or ciphertext file carries inside, read without SEAL
 * (so the page can ask before an upload replaces a variable of that name). Undefined
 * when the file is not such an envelope: the upload itself then says what is wrong.
 */
export async function nameInVariableFile(file: File): Promise<string | undefined> {
  try {
    const envelope = decodeEnvelope(await readFileBytes(file), { kind: ['plaintext', 'ciphertext'] })
    return envelope.meta.label
  } catch {
    return undefined
  }
}

/** Loads a plaintext or ciphertext file as a variable (named by the file, or `name`). */
export async function uploadVariable(sandbox: Sandbox, file: File, name?: string): Promise<Outcome<string>> {
  return sandbox.run(`Loading ${file.name}`, async () => {
    const envelope = await readFileBytes(file)
    const reply = await sandbox.worker.request(
      { type: 'loadVariable', envelope, ...(name ? { name } : {}) },
      { transfer: [envelope.buffer] },
    )
    sandbox.noteHeap(reply.heapBytes)
    sandbox.workspace.update((state) => putVariable(state, entryOfVariable(reply.variable, 'upload')))
    return reply.variable.name
  })
}

export function variableFileName(state: WorkspaceState, entry: VariableEntry): string {
  const applied = state.applied
  const params = applied ? `${applied.input.scheme}-${applied.input.polyModulusDegree}` : 'sealbox'
  return `${entry.name}.${entry.kind}.${params}.sbx`
}

export function downloadVariable(sandbox: Sandbox, name: string): Outcome<void> {
  const state = sandbox.workspace.state
  const entry = state.variables.find((v) => v.name === name)
  if (!entry) return { ok: false, error: new HeError('NOT_FOUND', `There is no variable called '${name}'.`) }
  downloadFile(variableFileName(state, entry), entry.envelope)
  return { ok: true, value: undefined }
}

export async function removeVariable(sandbox: Sandbox, name: string): Promise<Outcome<void>> {
  return sandbox.run(`Removing ${name}`, async () => {
    await sandbox.worker.request({ type: 'dropVariable', name })
    sandbox.workspace.update((state) => ({ ...state, variables: state.variables.filter((v) => v.name !== name) }))
  })
}
