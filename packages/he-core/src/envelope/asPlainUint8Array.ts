import { HeError } from '../errors/HeError.ts'

/** Anything that holds bytes: a Uint8Array (or subclass such as Node's Buffer), any typed-array view, or an ArrayBuffer. */
export type BytesLike = Uint8Array | ArrayBufferView | ArrayBuffer | SharedArrayBuffer

function isArrayBufferLike(value: unknown): value is ArrayBuffer | SharedArrayBuffer {
  // toString instead of instanceof: buffers from another realm (an iframe, node:vm) fail instanceof.
  const tag = Object.prototype.toString.call(value)
  return tag === '[object ArrayBuffer]' || tag === '[object SharedArrayBuffer]'
}

/**
 * The same bytes as a plain `Uint8Array`, without copying. node-seal's `loadFromArray`
 * checks `constructor.name === 'Uint8Array'` and refuses a Node `Buffer`, and the
 * subarrays of a Buffer are Buffers too, so every decoded payload view must come from a
 * plain Uint8Array over the same memory (Fastify bodies are Buffers).
 */
export function asPlainUint8Array(bytes: BytesLike): Uint8Array {
  if (bytes instanceof Uint8Array && Object.getPrototypeOf(bytes) === Uint8Array.prototype) return bytes
  if (ArrayBuffer.isView(bytes)) return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (isArrayBufferLike(bytes)) return new Uint8Array(bytes)
  throw new HeError('INVALID_INPUT', `expected bytes (Uint8Array, Buffer or ArrayBuffer), got ${describe(bytes)}`)
}

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (typeof value === 'object') return (value as { constructor?: { name?: string } }).constructor?.name ?? 'object'
  return typeof value
}
