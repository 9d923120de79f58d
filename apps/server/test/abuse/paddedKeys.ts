import { randomBytes } from 'node:crypto'
import { Readable } from 'node:stream'
import { buffer } from 'node:stream/consumers'
import { createZstdCompress } from 'node:zlib'
import { type HeContext, KeySet } from '@sealbox/he-core'
import { encodeEnvelope, payloadLimitsOf } from '@sealbox/he-core/envelope'
import { minCompressedPayloadBytes } from '@sealbox/he-core/testing'

/*
 * A Galois-key upload padded up to the entropy floor: SEAL's own uncompressed save of
 * full (not seeded) keys for `elements` Galois elements under a context's parameters —
 * every header, parms id and count as SEAL writes them, every coefficient zero — zstd
 * compressed (to almost nothing), then padded with a skippable zstd frame of random bytes
 * to exactly the fewest bytes genuine keys of that many elements could compress to
 * (`minCompressedPayloadBytes`). It passes every check made before inflating, and the
 * payload inflates to the keys' full size, about ten times the upload. Built by streaming
 * through zstd, so the test never holds the inflated form.
 */

const SEAL_HEADER_BYTES = 16
const U64 = 8
/** A skippable zstd frame's magic (0x184D2A50–5F): a decoder skips its content. */
const SKIPPABLE_FRAME_MAGIC = 0x184d2a50

/** The parts of SEAL's save of Galois keys for one element (step 1), coefficients zeroed. */
function keyListTemplate(ctx: HeContext): { head: Uint8Array; list: Uint8Array; slots: number } {
  using keys = KeySet.generate(ctx, { galois: { steps: [1] } })
  const saved = keys.serializeGaloisKeys('none', false)
  const view = new DataView(saved.buffer, saved.byteOffset, saved.byteLength)
  const headEnd = SEAL_HEADER_BYTES + 32 + U64
  const slots = Number(view.getBigUint64(SEAL_HEADER_BYTES + 32, true))
  let at = headEnd
  for (let slot = 0; slot < slots; slot++) {
    const count = Number(view.getBigUint64(at, true))
    if (count === 0) {
      at += U64
      continue
    }
    // The one present list: its count and `count` key ciphertexts, each with its data zeroed.
    const start = at
    at += U64
    const list = saved.slice(start, saved.length)
    for (let key = 0; key < count; key++) {
      const keyAt = at - start
      const keySize = Number(view.getBigUint64(at + 8, true))
      const fieldsEnd = keyAt + SEAL_HEADER_BYTES + 32 + 1 + 5 * U64
      // The data DynArray: its header and u64 count stay, the coefficients become zero.
      list.fill(0, fieldsEnd + SEAL_HEADER_BYTES + U64, keyAt + keySize)
      at += keySize
    }
    return { head: saved.slice(SEAL_HEADER_BYTES, headEnd), list: list.slice(0, at - start), slots }
  }
  throw new Error('the template key set holds no key list')
}

function* saveBody(ctx: HeContext, elements: number): Generator<Uint8Array> {
  const { head, list, slots } = keyListTemplate(ctx)
  yield head
  const empty = new Uint8Array(U64)
  // Slot i holds element 2i + 1; slot 0 (the identity) stays empty.
  for (let slot = 0; slot < slots; slot++) yield slot >= 1 && slot <= elements ? list : empty
}

/** What the padded upload is: its envelope, and what its payload inflates to. */
export interface PaddedKeys {
  envelope: Uint8Array
  /** Bytes the payload inflates to (SEAL's uncompressed save). */
  inflatedBytes: number
  /** The fewest compressed bytes genuine keys of this many elements could take (the payload is padded to it). */
  floorBytes: number
  /** The Galois elements the meta lists. */
  elements: number[]
}

/** A zstd `galoisKeys` envelope of `elements` zero keys under `ctx`, padded to the entropy floor. */
export async function paddedGaloisKeys(ctx: HeContext, keySetId: string, elements: number): Promise<PaddedKeys> {
  let inflatedBytes = SEAL_HEADER_BYTES
  const counted = Readable.from(
    (function* () {
      for (const chunk of saveBody(ctx, elements)) {
        inflatedBytes += chunk.length
        yield chunk
      }
    })(),
    { objectMode: false },
  )
  const compressed = await buffer(counted.pipe(createZstdCompress()))
  const listed = Array.from({ length: elements }, (_, i) => 2 * (i + 1) + 1)
  const floorBytes = minCompressedPayloadBytes('galoisKeys', payloadLimitsOf(ctx), listed.length)
  const padding = Math.max(0, floorBytes - SEAL_HEADER_BYTES - compressed.length - 8)
  const frame = Buffer.alloc(8)
  frame.writeUInt32LE(SKIPPABLE_FRAME_MAGIC, 0)
  frame.writeUInt32LE(padding, 4)
  const total = SEAL_HEADER_BYTES + compressed.length + frame.length + padding
  const header = Buffer.alloc(SEAL_HEADER_BYTES)
  header.writeUInt16LE(0xa15e, 0)
  header.writeUInt8(SEAL_HEADER_BYTES, 2)
  header.writeUInt8(4, 3)
  header.writeUInt8(1, 4)
  header.writeUInt8(2, 5) // zstd
  header.writeBigUInt64LE(BigInt(total), 8)
  const payload = Buffer.concat([header, compressed, frame, randomBytes(padding)])
  return {
    envelope: encodeEnvelope({
      kind: 'galoisKeys',
      fingerprint: ctx.fingerprint,
      keySetId,
      payload,
      meta: { elements: listed },
    }),
    inflatedBytes,
    floorBytes,
    elements: listed,
  }
}
