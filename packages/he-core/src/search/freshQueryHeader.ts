import type { Envelope } from '../envelope/decodeEnvelope.ts'
import { sealCall } from '../errors/toHeError.ts'
import type { HeContext } from '../params/HeContext.ts'
import { withScope } from '../scope/SealScope.ts'

/*
 * Shared by he-ring's two search kernels (DyadicSearch, KeySwitchSearch): whether a query's
 * envelopes are SEAL saves whose residues a kernel may read in place, without SEAL's load.
 */

/** Byte-for-byte equality. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false
  return true
}

/**
 * True when every item is an unseeded, uncompressed SEAL save of `words` residues behind
 * exactly `header` (`freshCiphertextHeader`): words a kernel may read in place.
 */
export function areFreshQuerySaves(
  items: readonly Envelope<'ciphertext'>[],
  header: Uint8Array,
  words: number,
): boolean {
  const bytes = header.byteLength + words * 8
  return items.every(
    (item) =>
      !item.seeded &&
      item.compression === 'none' &&
      item.payload.byteLength === bytes &&
      sameBytes(item.payload.subarray(0, header.byteLength), header),
  )
}

/**
 * The header SEAL writes when it saves a fresh BGV query ciphertext uncompressed (first
 * data level, NTT form, size 2, scale 1, correction factor 1), followed by `words`
 * residues. Built from the layout SEAL 4.1 uses (ENVELOPE.md) with SEAL's own version
 * bytes and parms id (from a plaintext it saved at that level), then proven by loading a
 * zero ciphertext with it into SEAL: undefined if SEAL refuses it or reads it otherwise
 * (a future layout), and then every query goes through SEAL's load.
 */
export function freshCiphertextHeader(
  ctx: HeContext,
  plaintextSave: Uint8Array,
  words: number,
): Uint8Array | undefined {
  const SEAL_HEADER = 16
  const length = SEAL_HEADER + 32 + 1 + 8 * 5 + SEAL_HEADER + 8
  const header = new Uint8Array(length)
  const view = new DataView(header.buffer)
  const dataArray = SEAL_HEADER + 8 + words * 8
  // SEAL header: magic, header size, version, compression none, reserved (as SEAL wrote them), then the size.
  header.set(plaintextSave.subarray(0, 8), 0)
  let at = SEAL_HEADER
  header.set(plaintextSave.subarray(at, at + 32), at) // parms id of the first data level
  at += 32
  view.setUint8(at, 1) // NTT form
  at += 1
  view.setBigUint64(at, 2n, true) // size
  view.setBigUint64(at + 8, BigInt(ctx.facts.polyModulusDegree), true)
  view.setBigUint64(at + 16, BigInt(ctx.facts.dataPrimeCount), true)
  view.setFloat64(at + 24, 1, true) // scale
  view.setBigUint64(at + 32, 1n, true) // correction factor
  at += 40
  header.set(plaintextSave.subarray(0, 8), at) // the data array's own SEAL header…
  view.setBigUint64(at + 8, BigInt(dataArray), true)
  view.setBigUint64(at + SEAL_HEADER, BigInt(words), true) // …and its word count
  view.setBigUint64(8, BigInt(length + words * 8), true)
  const zero = new Uint8Array(length + words * 8)
  zero.set(header)
  try {
    return withScope((scope) => {
      const ciphertext = scope.track(new ctx.seal.Ciphertext())
      sealCall('load a fresh ciphertext header', () => ciphertext.loadFromArray(ctx.context, zero))
      const fresh =
        ciphertext.isNttForm() &&
        ciphertext.size() === 2 &&
        ctx.levelOf(ciphertext) === ctx.topLevel &&
        sameBytes((ciphertext.saveToArray(ctx.seal.ComprModeType.none) as Uint8Array).subarray(0, length), header)
      return fresh ? header : undefined
    })
  } catch {
    return undefined
  }
}
