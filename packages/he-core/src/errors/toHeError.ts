import { HeError } from './HeError.ts'
import type { HeErrorCode } from './heErrorCodes.ts'

/** What a thrown node-seal error says: the C++ type and SEAL's own message. */
export interface SealErrorInfo {
  kind: string
  message: string
}

let sealExceptions = 0

/**
 * How many C++ exceptions this thread's node-seal instance has thrown and we caught.
 * Each one leaks 16 bytes of Emscripten's 64 KiB stack; after ~4,000 the instance
 * breaks, so long-lived workers compare this against a recycle threshold.
 */
export function sealExceptionCount(): number {
  return sealExceptions
}

/** `WebAssembly.Exception` (not in TypeScript's lib yet): what C++ throws through node-seal. */
const WasmException: (new (...args: never[]) => object) | undefined =
  typeof WebAssembly === 'undefined'
    ? undefined
    : (WebAssembly as unknown as { Exception?: new (...args: never[]) => object }).Exception

function isWasmException(error: unknown): error is object {
  return WasmException !== undefined && error instanceof WasmException
}

/** Reads a thrown value from node-seal: C++ exceptions carry `message = [type, what]`. */
export function readSealError(error: unknown): SealErrorInfo {
  if (isWasmException(error)) {
    const message = (error as unknown as { message?: unknown }).message
    if (Array.isArray(message) && message.length >= 2) {
      return { kind: String(message[0]), message: String(message[1]) }
    }
    return { kind: 'wasm-exception', message: 'unknown C++ exception' }
  }
  if (error instanceof Error) return { kind: error.name, message: error.message }
  return { kind: 'unknown', message: String(error) }
}

const SEAL_MESSAGE_CODES: ReadonlyArray<[RegExp, HeErrorCode]> = [
  [/bad_alloc|could not allocate memory|out of memory/i, 'OUT_OF_MEMORY'],
  [/scale mismatch/, 'SCALE_MISMATCH'],
  [/parameter mismatch|not valid for encryption parameters|parms_id/, 'LEVEL_MISMATCH'],
  [/Galois key not present|keyswitching is not supported|secret key is not set/, 'MISSING_KEY'],
  [/unsupported scheme|unsupported operation for scheme|not supported for this scheme/, 'SCHEME_MISMATCH'],
  [/scale out of bounds|too large|values_size|values_matrix/, 'VALUE_OUT_OF_RANGE'],
  [/end of modulus switching chain reached/, 'LEVEL_MISMATCH'],
  [
    /data is invalid|incompatible version|input buffer ended|in cannot be null|insufficient size|loaded SEALHeader|cast failed|stream decompression failed|invalid data size|expected Uint8Array/,
    'INVALID_ENVELOPE',
  ],
]

/**
 * Normalises anything thrown into an `HeError`: an `HeError` passes through, a
 * node-seal C++ exception or embind error becomes a coded error that keeps SEAL's
 * own words, and anything else becomes `fallback` (INTERNAL by default).
 */
export function toHeError(error: unknown, context?: string, fallback: HeErrorCode = 'INTERNAL'): HeError {
  if (error instanceof HeError) return error
  const prefix = context ? `${context}: ` : ''
  if (isWasmException(error)) {
    sealExceptions++
    const info = readSealError(error)
    const code = SEAL_MESSAGE_CODES.find(([pattern]) => pattern.test(info.message))?.[1] ?? 'SEAL_ERROR'
    return new HeError(code, `${prefix}SEAL says "${info.message}" (${info.kind})`, {
      cause: error,
      details: { sealKind: info.kind, sealMessage: info.message },
    })
  }
  if (error instanceof Error && (error.name === 'BindingError' || error.name === 'TypeError')) {
    return new HeError('SEAL_ERROR', `${prefix}${error.message}`, { cause: error })
  }
  if (error instanceof RangeError && /memory/i.test(error.message)) {
    return new HeError('OUT_OF_MEMORY', `${prefix}${error.message}`, { cause: error })
  }
  const info = readSealError(error)
  return new HeError(fallback, `${prefix}${info.message}`, { cause: error })
}

/** Runs `fn`, turning whatever it throws into an `HeError` that names `context`. */
export function sealCall<T>(context: string, fn: () => T): T {
  try {
    return fn()
  } catch (error) {
    throw toHeError(error, context, 'SEAL_ERROR')
  }
}
