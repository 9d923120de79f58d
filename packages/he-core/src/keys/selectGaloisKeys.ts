import { HeError } from '../errors/HeError.ts'

const SEAL_HEADER_BYTES = 16
const PARMS_ID_BYTES = 32
const U64 = 8

/**
 * SEAL's uncompressed save of Galois keys (a checked payload, `prepareSealPayload`) with
 * only the key lists of `elements` kept: every other slot becomes an empty list (its
 * count 0), as SEAL writes a slot it has no key for, and the header's size follows.
 * Slot i holds element 2i + 1. What a job that needs two of a key set's hundreds of
 * Galois elements loads into SEAL — seeds expanded and residues checked for those two
 * only. An element the save does not hold is simply absent (the caller checks).
 * A compressed save is refused (INVALID_INPUT): only an inflated one can be walked.
 */
export function selectGaloisKeys(save: Uint8Array, elements: readonly number[]): Uint8Array {
  const view = new DataView(save.buffer, save.byteOffset, save.byteLength)
  if (save.length < SEAL_HEADER_BYTES + PARMS_ID_BYTES + U64 || view.getUint8(5) !== 0) {
    throw new HeError('INVALID_INPUT', 'only an uncompressed SEAL save of Galois keys can be narrowed to some elements')
  }
  const keep = new Set(elements.map((element) => (element - 1) / 2))
  const headEnd = SEAL_HEADER_BYTES + PARMS_ID_BYTES + U64
  const slots = Number(view.getBigUint64(SEAL_HEADER_BYTES + PARMS_ID_BYTES, true))
  const parts: Uint8Array[] = [save.subarray(0, headEnd)]
  const empty = new Uint8Array(U64)
  let at = headEnd
  for (let slot = 0; slot < slots; slot++) {
    if (at + U64 > save.length) throw truncated()
    const count = Number(view.getBigUint64(at, true))
    const start = at
    at += U64
    for (let key = 0; key < count; key++) {
      if (at + SEAL_HEADER_BYTES > save.length) throw truncated()
      // Each key is a saved ciphertext: its own SEAL header says how long it is.
      const size = Number(view.getBigUint64(at + 8, true))
      if (size < SEAL_HEADER_BYTES || at + size > save.length) throw truncated()
      at += size
    }
    parts.push(keep.has(slot) ? save.subarray(start, at) : empty)
  }
  const total = parts.reduce((sum, part) => sum + part.length, 0) + (save.length - at)
  const out = new Uint8Array(total)
  let offset = 0
  for (const part of parts) {
    out.set(part, offset)
    offset += part.length
  }
  out.set(save.subarray(at), offset)
  new DataView(out.buffer).setBigUint64(8, BigInt(total), true)
  return out
}

function truncated(): HeError {
  return new HeError('INVALID_ENVELOPE', 'the Galois keys end inside a key list')
}
