import { RingError } from '@sealbox/he-ring'
import { markSealOutOfMemory } from '../seal/sealOutOfMemory.ts'
import { HeError } from './HeError.ts'
import type { HeErrorCode } from './heErrorCodes.ts'
import { SealException } from './SealException.ts'

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

/**
 * SEAL's words → our code and our message. SEAL's own text stays in the error's
 * `cause` (a SealException) for logs: it names C++ internals, not what to change.
 */
const SEAL_REFUSALS: ReadonlyArray<[RegExp, HeErrorCode, string]> = [
  [/bad_alloc|could not allocate memory|out of memory/i, 'OUT_OF_MEMORY', 'SEAL ran out of WebAssembly memory'],
  [/scale mismatch/, 'SCALE_MISMATCH', 'SEAL refused: the operands have different scales'],
  [
    /parameter mismatch|parms_id/,
    'LEVEL_MISMATCH',
    'SEAL refused: the operands are at different levels of the modulus chain',
  ],
  [
    /not valid for encryption parameters/,
    'LEVEL_MISMATCH',
    'SEAL refused: an operand is not valid for these encryption parameters or this level',
  ],
  [/Galois key not present/, 'MISSING_KEY', 'SEAL refused: the Galois key this rotation needs is missing'],
  [
    /keyswitching is not supported/,
    'MISSING_KEY',
    'SEAL refused: these parameters do not support key switching (relinearization, rotation)',
  ],
  [/secret key is not set/, 'MISSING_KEY', 'SEAL refused: this needs the secret key'],
  [
    /unsupported scheme|unsupported operation for scheme|not supported for this scheme/,
    'SCHEME_MISMATCH',
    'SEAL refused: this operation is not supported for this scheme',
  ],
  [/scale out of bounds/, 'VALUE_OUT_OF_RANGE', 'SEAL refused: the scale is out of bounds for these parameters'],
  [
    /too large|values_size|values_matrix/,
    'VALUE_OUT_OF_RANGE',
    'SEAL refused: the values do not fit (too many, or too large for the plaintext modulus)',
  ],
  [
    /end of modulus switching chain reached/,
    'LEVEL_MISMATCH',
    'SEAL refused: the end of the modulus switching chain is reached',
  ],
  [
    /result ciphertext is transparent/,
    'SEAL_ERROR',
    'SEAL refused: the result would be transparent (not encrypted), as x − x is',
  ],
  [
    /data is invalid|incompatible version|input buffer ended|in cannot be null|insufficient size|loaded SEALHeader|cast failed|stream decompression failed|invalid data size|expected Uint8Array/,
    'INVALID_ENVELOPE',
    'SEAL could not load the data: it is not valid for these parameters',
  ],
]

/**
 * Normalises anything thrown into an `HeError`: an `HeError` passes through, a
 * node-seal C++ exception becomes a coded error with a message in our words and
 * SEAL's own text in `cause` (a `SealException`), an embind error becomes
 * SEAL_ERROR, a `RingError` (he-ring's kernels) keeps its code and message, and
 * anything else becomes `fallback` (INTERNAL by default).
 */
export function toHeError(error: unknown, context?: string, fallback: HeErrorCode = 'INTERNAL'): HeError {
  if (error instanceof HeError) return error
  if (error instanceof RingError) return fromRingError(error)
  const prefix = context ? `${context}: ` : ''
  if (isWasmException(error)) {
    sealExceptions++
    const info = readSealError(error)
    const refusal = SEAL_REFUSALS.find(([pattern]) => pattern.test(info.message))
    if (refusal?.[1] === 'OUT_OF_MEMORY') markSealOutOfMemory()
    return new HeError(refusal?.[1] ?? 'SEAL_ERROR', `${prefix}${refusal?.[2] ?? 'SEAL refused the operation'}`, {
      cause: new SealException(info.kind, info.message, { cause: error }),
    })
  }
  if (error instanceof Error && (error.name === 'BindingError' || error.name === 'TypeError')) {
    return new HeError('SEAL_ERROR', `${prefix}${error.message}`, { cause: error })
  }
  if (error instanceof RangeError && /memory/i.test(error.message)) {
    markSealOutOfMemory()
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

/** he-ring's codes are a subset of he-core's (the assignment fails to compile otherwise). */
function fromRingError(error: RingError): HeError {
  const code: HeErrorCode = error.code
  return new HeError(code, error.message, {
    cause: error,
    ...(error.details === undefined ? {} : { details: error.details }),
  })
}

/**
 * Runs `fn` (a call into he-ring), turning a `RingError` into the `HeError` of the same code
 * and message; anything else it throws becomes an INTERNAL `HeError` that names `context`.
 */
export function ringCall<T>(context: string, fn: () => T): T {
  try {
    return fn()
  } catch (error) {
    throw toHeError(error, context, 'INTERNAL')
  }
}
