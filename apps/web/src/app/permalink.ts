import { HeError, type WorkspaceInput, WorkspaceSpec } from '@sealbox/he-core'
import { z } from 'zod'

/*
 * Permalinks: the workspace as he-core's WorkspaceSpec — parameters, the numbers typed
 * for each variable, the pipeline, which keys to make — never keys, ciphertexts or the
 * secret key. JSON, deflate-raw (the browser's CompressionStream), base64url, after
 * `w=` in the URL fragment beside the open panel: `#functions&w=…`. Opening one
 * rebuilds keys and runs the pipeline, like the TypeScript playground or regex101.
 */

/**
 * A link to a context alone (parameters and key options, nothing typed yet): he-core's
 * WorkspaceSpec with no variables, no steps and nothing to print, which WorkspaceSpec
 * itself refuses (a program must print something). Opening it builds the context and
 * makes fresh keys.
 */
export const ContextLinkSpec = WorkspaceSpec.extend({ variables: z.tuple([]), steps: z.tuple([]), print: z.tuple([]) })

/** Whether a link's workspace is a context alone (`ContextLinkSpec`). */
export function isContextLink(spec: WorkspaceInput): boolean {
  return spec.variables.length === 0 && spec.steps.length === 0 && spec.print.length === 0
}

const PREFIX = 'w='
/** Far below what browsers keep in a URL; a longer fragment is not one we made. */
const MAX_ENCODED = 1_000_000
/** A workspace is kilobytes; a link that inflates past this is a deflate bomb, not a workspace. */
const MAX_INFLATED = 4 * 2 ** 20

function base64url(bytes: Uint8Array): string {
  let binary = ''
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

function fromBase64url(text: string): Uint8Array {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'))
  return Uint8Array.from(binary, (c) => c.charCodeAt(0))
}

async function pipe(bytes: Uint8Array, stream: CompressionStream | DecompressionStream): Promise<Uint8Array> {
  const reader = new Blob([bytes as BlobPart]).stream().pipeThrough(stream).getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.byteLength
    if (total > MAX_INFLATED) {
      await reader.cancel()
      throw new Error(`more than ${MAX_INFLATED} bytes`)
    }
    chunks.push(value)
  }
  const out = new Uint8Array(total)
  let offset = 0
  for (const chunk of chunks) {
    out.set(chunk, offset)
    offset += chunk.byteLength
  }
  return out
}

/** Large integers (BFV/BGV values past 2^53) travel as tagged strings; JSON has no bigint. */
function replacer(_key: string, value: unknown): unknown {
  if (typeof value !== 'bigint') return value
  return Number.isSafeInteger(Number(value)) ? Number(value) : { $bigint: value.toString() }
}

function reviver(_key: string, value: unknown): unknown {
  const tagged = value as { $bigint?: unknown } | null
  if (typeof tagged === 'object' && tagged !== null && typeof tagged.$bigint === 'string') {
    if (/^-?\d+$/.test(tagged.$bigint)) return BigInt(tagged.$bigint)
  }
  return value
}

/** The fragment value (after `w=`) for a workspace. */
export async function encodePermalink(spec: WorkspaceInput): Promise<string> {
  const json = new TextEncoder().encode(JSON.stringify(spec, replacer))
  return base64url(await pipe(json, new CompressionStream('deflate-raw')))
}

/** The workspace a fragment value describes, validated by he-core's WorkspaceSpec; an HeError says why not. */
export async function decodePermalink(encoded: string): Promise<WorkspaceInput> {
  const broken = (cause: unknown) =>
    new HeError('INVALID_INPUT', 'This link does not hold a sealbox workspace: it may have been cut short.', { cause })
  if (encoded.length > MAX_ENCODED) throw broken(undefined)
  let json: unknown
  try {
    const bytes = await pipe(fromBase64url(encoded), new DecompressionStream('deflate-raw'))
    json = JSON.parse(new TextDecoder().decode(bytes), reviver)
  } catch (error) {
    throw broken(error)
  }
  const parsed = WorkspaceSpec.safeParse(json)
  if (!parsed.success && ContextLinkSpec.safeParse(json).success) return json as WorkspaceInput
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new HeError(
      'INVALID_INPUT',
      `This link's workspace is not valid: ${issue?.message ?? 'unknown problem'} (${issue?.path.join('.') ?? ''}).`,
      { cause: parsed.error },
    )
  }
  return json as WorkspaceInput
}

/** The encoded workspace in a URL fragment (`#panel&w=…`), if there is one. */
export function permalinkIn(hash: string): string | undefined {
  const part = hash
    .replace(/^#/, '')
    .split('&')
    .find((p) => p.startsWith(PREFIX))
  return part === undefined ? undefined : part.slice(PREFIX.length)
}

/** A link that opens this page on `panel` with the workspace. */
export function permalinkUrl(panel: string, encoded: string): string {
  const { origin, pathname, search } = window.location
  return `${origin}${pathname}${search}#${panel}&${PREFIX}${encoded}`
}
