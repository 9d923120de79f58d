import { HeError } from '@sealbox/he-core'
import { base64ToBytes, bytesToBase64 } from '@sealbox/he-core/envelope'
import { type WorkspaceState, WorkspaceState as WorkspaceStateSchema } from './workspaceState.ts'

/** What identifies a sealbox workspace file. */
const FORMAT = 'sealbox-workspace'
const VERSION = 1

/*
 * One JSON file for a whole workspace: parameters, keys and variables (as base64
 * he-core envelopes), the pipeline and settings. Bytes and bigints are tagged so
 * they come back as they were; the result is validated like stored state.
 */

function replacer(_key: string, value: unknown): unknown {
  if (value instanceof Uint8Array) return { $bytes: bytesToBase64(value) }
  if (typeof value === 'bigint') return { $bigint: value.toString() }
  return value
}

function reviver(_key: string, value: unknown): unknown {
  if (typeof value === 'object' && value !== null) {
    const tagged = value as { $bytes?: unknown; $bigint?: unknown }
    if (typeof tagged.$bytes === 'string' && Object.keys(value).length === 1) return base64ToBytes(tagged.$bytes)
    if (typeof tagged.$bigint === 'string' && Object.keys(value).length === 1) {
      if (!/^-?\d+$/.test(tagged.$bigint)) throw new HeError('INVALID_INPUT', `"${tagged.$bigint}" is not an integer`)
      return BigInt(tagged.$bigint)
    }
  }
  return value
}

/**
 * Removes everything secret: the secret key, and for ciphertexts the numbers they
 * were made from and their decrypted previews. What is left can be shared.
 */
export function withoutSecrets(state: WorkspaceState): WorkspaceState {
  const { secretKey: _secret, ...keys } = state.keys
  return {
    ...state,
    keys,
    variables: state.variables.map((variable) => {
      if (variable.kind !== 'ciphertext') return variable
      const { preview: _preview, values: _values, noiseBudget: _budget, ...rest } = variable
      return rest
    }),
    pipeline: state.pipeline.map(({ last: _last, ...entry }) => entry),
  }
}

/** The workspace as one file's text. */
export function encodeWorkspaceFile(state: WorkspaceState, options: { includeSecretKey: boolean }): string {
  const content = options.includeSecretKey ? state : withoutSecrets(state)
  return JSON.stringify(
    {
      format: FORMAT,
      version: VERSION,
      exportedAt: new Date().toISOString(),
      secretKey: options.includeSecretKey,
      workspace: content,
    },
    replacer,
    1,
  )
}

/** Reads a workspace file, or says in plain words why it is not one. */
export function decodeWorkspaceFile(text: string): WorkspaceState {
  let json: unknown
  try {
    json = JSON.parse(text, reviver)
  } catch (error) {
    throw new HeError('INVALID_INPUT', 'This is not a sealbox workspace file (it is not JSON).', { cause: error })
  }
  const file = json as { format?: unknown; version?: unknown; workspace?: unknown }
  if (file?.format !== FORMAT) {
    throw new HeError(
      'INVALID_INPUT',
      'This is not a sealbox workspace file. Key and variable files are uploaded on their own panels.',
    )
  }
  if (file.version !== VERSION) {
    throw new HeError(
      'INVALID_INPUT',
      `This workspace file has format version ${String(file.version)}; this sandbox reads version ${VERSION}.`,
    )
  }
  const parsed = WorkspaceStateSchema.safeParse(file.workspace)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new HeError(
      'INVALID_INPUT',
      `The workspace file is damaged: ${issue?.path.join('.') || 'workspace'}: ${issue?.message}`,
    )
  }
  return parsed.data
}
