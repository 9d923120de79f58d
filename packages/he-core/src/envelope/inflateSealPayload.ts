import { HeError } from '../errors/HeError.ts'
import type { SealCompression } from './envelopeKinds.ts'
import { SEAL_HEADER_BYTES } from './sealBlobHeader.ts'

interface ZlibLike {
  inflateSync(input: Uint8Array, options: { maxOutputLength: number }): Uint8Array
  zstdDecompressSync?(input: Uint8Array, options: { maxOutputLength: number }): Uint8Array
}

let zlib: ZlibLike | null | undefined

/**
 * Node's zlib when this runs in Node (22.15+ has zstd), else null. Looked up at run
 * time through `process.getBuiltinModule` rather than imported, so this shared module
 * still loads in a browser, where compressed payloads go to SEAL as they are.
 */
function nodeZlib(): ZlibLike | null {
  if (zlib !== undefined) return zlib
  const processLike = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process
  zlib = (processLike?.getBuiltinModule?.('node:zlib') as ZlibLike | undefined) ?? null
  return zlib
}

/** True when `inflateSealPayload` can inflate `compression` here. */
export function canInflate(compression: SealCompression): boolean {
  const z = nodeZlib()
  if (!z) return false
  return compression === 'zlib' || (compression === 'zstd' && typeof z.zstdDecompressSync === 'function')
}

/**
 * Inflates a compressed SEAL payload in JavaScript, refusing to produce more than
 * `maxBytes` (INVALID_ENVELOPE), and returns the same object as an uncompressed SEAL
 * payload (header rewritten: compression none, new size). SEAL's own loader inflates
 * into a buffer that grows without bound, so a few hundred compressed bytes could
 * fill the 4 GiB WASM heap; inflating here bounds it and lets the uncompressed result
 * be pre-parsed. Call `canInflate` first.
 */
export function inflateSealPayload(
  payload: Uint8Array,
  compression: Exclude<SealCompression, 'none'>,
  maxBytes: number,
  what: string,
): Uint8Array {
  const z = nodeZlib()
  if (!z) throw new HeError('INTERNAL', 'no zlib here to inflate a SEAL payload')
  const body = payload.subarray(SEAL_HEADER_BYTES)
  const maxOutputLength = Math.max(0, maxBytes - SEAL_HEADER_BYTES)
  let inflated: Uint8Array
  try {
    if (compression === 'zstd') {
      if (!z.zstdDecompressSync) throw new HeError('INTERNAL', 'this Node has no zstd')
      inflated = z.zstdDecompressSync(body, { maxOutputLength })
    } else {
      inflated = z.inflateSync(body, { maxOutputLength })
    }
  } catch (error) {
    if (error instanceof HeError) throw error
    const tooLarge = (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE'
    throw new HeError(
      'INVALID_ENVELOPE',
      tooLarge
        ? `${what} inflates to more than ${maxBytes} bytes, the most such an object takes under these parameters`
        : `${what} is not valid ${compression} data`,
      { cause: error, details: tooLarge ? { maxBytes } : {} },
    )
  }
  const out = new Uint8Array(SEAL_HEADER_BYTES + inflated.length)
  out.set(payload.subarray(0, SEAL_HEADER_BYTES))
  out.set(inflated, SEAL_HEADER_BYTES)
  const view = new DataView(out.buffer)
  view.setUint8(5, 0)
  view.setUint32(8, out.length % 2 ** 32, true)
  view.setUint32(12, Math.floor(out.length / 2 ** 32), true)
  return out
}
