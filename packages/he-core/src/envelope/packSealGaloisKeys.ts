import type { SEALContext } from 'node-seal/throws'
import { HeError } from '../errors/HeError.ts'
import { checkSealPayload } from './checkSealPayload.ts'
import { residueBits } from './packedCiphertext.ts'
import {
  checkPackedGaloisKeysLayout,
  PACKED_KEYS_HEADER_BYTES,
  PACKED_KEYS_LAYOUT_VERSION,
  PACKED_KEYS_MAGIC,
  packedGaloisKeysBytes,
} from './packedGaloisKeys.ts'
import { readResidueRun, writeResidueRun } from './residueBitStream.ts'
import { SEAL_HEADER_BYTES, SEAL_MAGIC, SEAL_VERSION_MAJOR, SEAL_VERSION_MINOR } from './sealBlobHeader.ts'
import {
  CIPHERTEXT_FIELDS_BYTES,
  ciphertextBytes,
  DYN_ARRAY_BYTES,
  maxPayloadBytes,
  PRNG_INFO_BYTES,
  payloadLimitsOf,
} from './sealPayloadLimits.ts'

/** What packing and unpacking Galois keys need of a context (an `HeContext` fits). */
export interface PackedKeysContext {
  readonly context: SEALContext
  /** Every prime of the key level: the data primes, then the special prime. */
  readonly coeffPrimes: readonly bigint[]
  readonly params: { readonly polyModulusDegree: number }
}

/** A KSwitchKeys save: SEAL's header, the key level's parms id, the u64 list count. */
const KSWITCH_HEAD_BYTES = SEAL_HEADER_BYTES + 32 + 8
const U64 = 8
/** Inside a saved key ciphertext: its residue words start after its fields and the DynArray's header and count. */
const KEY_WORDS_AT = SEAL_HEADER_BYTES + CIPHERTEXT_FIELDS_BYTES + DYN_ARRAY_BYTES
const SEED_BYTES = PRNG_INFO_BYTES - SEAL_HEADER_BYTES

const keyParmsIds = new WeakMap<SEALContext, BigUint64Array>()

function keyParmsIdOf(context: SEALContext): BigUint64Array {
  let id = keyParmsIds.get(context)
  if (!id) {
    const parmsId = context.keyParmsId()
    try {
      id = BigUint64Array.from(parmsId.values() as BigUint64Array)
    } finally {
      parmsId.delete()
    }
    keyParmsIds.set(context, id)
  }
  return id
}

function sealHeader(view: DataView, at: number, size: number): void {
  view.setUint16(at, SEAL_MAGIC, true)
  view.setUint8(at + 2, SEAL_HEADER_BYTES)
  view.setUint8(at + 3, SEAL_VERSION_MAJOR)
  view.setUint8(at + 4, SEAL_VERSION_MINOR)
  view.setBigUint64(at + 8, BigInt(size), true)
}

/**
 * Packs an uncompressed SEAL save of Galois keys (`saveToArray` with compression none;
 * seeded from a `Serializable`, or full) into the packed layout: each residue in
 * ⌈log2 q⌉ bits. The save is walked field by field first (`checkSealPayload`).
 */
export function packSealGaloisKeys(ctx: PackedKeysContext, saved: Uint8Array): Uint8Array {
  const view = new DataView(saved.buffer, saved.byteOffset, saved.byteLength)
  if (saved.length < KSWITCH_HEAD_BYTES || view.getUint16(0, true) !== SEAL_MAGIC || view.getUint8(5) !== 0) {
    throw new HeError('INVALID_INPUT', 'pack Galois keys from their uncompressed SEAL save (compression none)')
  }
  const shape = checkSealPayload('galoisKeys', saved, payloadLimitsOf(ctx))
  const elements = shape.galoisElements ?? []
  const n = ctx.params.polyModulusDegree
  const primes = ctx.coeffPrimes
  const k = primes.length
  const widths = primes.map(residueBits)
  const polys = shape.seeded ? 1 : 2
  const out = new Uint8Array(packedGaloisKeysBytes(polys, n, widths, elements.length))
  const outView = new DataView(out.buffer)
  out.set(PACKED_KEYS_MAGIC, 0)
  outView.setUint8(4, PACKED_KEYS_LAYOUT_VERSION)
  outView.setUint8(5, polys)
  outView.setUint8(6, k)
  outView.setUint8(7, k - 1)
  outView.setUint32(8, n, true)
  outView.setUint32(12, elements.length, true)
  out.set(widths, PACKED_KEYS_HEADER_BYTES)
  let to = PACKED_KEYS_HEADER_BYTES + k
  for (const element of elements) {
    outView.setUint32(to, element, true)
    to += 4
  }
  const run = { polys, polyModulusDegree: n, primes, widths }
  // checkSealPayload has proven the layout: walk it by the sizes in the nested headers.
  let at = KSWITCH_HEAD_BYTES
  for (let list = 0; list < n; list++) {
    const keys = Number(view.getBigUint64(at, true))
    at += U64
    for (let j = 0; j < keys; j++) {
      const size = Number(view.getBigUint64(at + 8, true))
      if (shape.seeded) {
        out.set(saved.subarray(at + size - SEED_BYTES, at + size), to)
        to += SEED_BYTES
      }
      to = writeResidueRun(run, view, at + KEY_WORDS_AT, out, to)
      at += size
    }
  }
  return out
}

/**
 * Rebuilds SEAL's uncompressed save of packed Galois keys under `ctx`, trusting nothing
 * in them: the layout, n and the key level's primes must be the context's, each width
 * exactly ⌈log2 q_i⌉, the PRNG type known, every residue below its prime. The size of
 * the save follows from the context and the element count, and is checked against the
 * most such keys can take before anything is allocated. The SEAL fields (parms id, NTT
 * form, size, scale, correction factor) come from the context. A refusal is
 * INVALID_ENVELOPE; SEAL then loads what it would have written itself (seeded keys
 * expand c1 from their seeds, as for its own seeded saves).
 *
 * `only`: rebuild just those elements' keys (the others' lists are left empty, as SEAL
 * writes a slot it has no key for, and their bytes are skipped unread) — what a job that
 * uses two of a stored set's hundreds of elements unpacks, instead of all of them
 * (262 MiB for 700 elements at n = 4096). The result equals `selectGaloisKeys` of the whole.
 */
export function unpackSealGaloisKeys(
  ctx: PackedKeysContext,
  payload: Uint8Array,
  envelopeSeeded: boolean,
  only?: readonly number[],
): Uint8Array {
  const fail = (what: string) => new HeError('INVALID_ENVELOPE', `the packed Galois keys ${what}`)
  const shape = checkPackedGaloisKeysLayout(payload, 'INVALID_ENVELOPE')
  const n = ctx.params.polyModulusDegree
  const primes = ctx.coeffPrimes
  const k = primes.length
  if (shape.seeded !== envelopeSeeded) {
    throw fail(
      `store ${shape.polys} polynomials per key but their envelope is ${envelopeSeeded ? '' : 'not '}marked seeded`,
    )
  }
  if (shape.polyModulusDegree !== n) throw fail(`have n = ${shape.polyModulusDegree}; these parameters have n = ${n}`)
  if (shape.primes !== k) throw fail(`span ${shape.primes} primes; keys of these parameters span all ${k}`)
  for (const [i, prime] of primes.entries()) {
    if (shape.widths[i] !== residueBits(prime)) {
      throw fail(`pack prime ${i} in ${shape.widths[i]} bits; its prime ${prime} needs ${residueBits(prime)}`)
    }
  }
  const d = shape.keysPerElement
  const keyBytes = ciphertextBytes(2, n, k, shape.seeded)
  const wanted = only ? new Set(only) : undefined
  const selected = wanted ? shape.elements.filter((element) => wanted.has(element)) : shape.elements
  const length = KSWITCH_HEAD_BYTES + n * U64 + selected.length * d * keyBytes
  // The bound every other encoding is inflated within: never more than such keys take.
  const bound = maxPayloadBytes('galoisKeys', payloadLimitsOf(ctx), shape.elements.length, shape.seeded)
  if (length > bound) throw fail(`would unpack to ${length} bytes, more than the ${bound} such keys take`)

  const out = new Uint8Array(length)
  const view = new DataView(out.buffer)
  const parmsId = keyParmsIdOf(ctx.context)
  const writeParmsId = (at: number) => {
    for (const [i, value] of parmsId.entries()) view.setBigUint64(at + 8 * i, value, true)
  }
  sealHeader(view, 0, length)
  writeParmsId(SEAL_HEADER_BYTES)
  view.setBigUint64(SEAL_HEADER_BYTES + 32, BigInt(n), true)
  const words = shape.polys * n * k
  const run = { polys: shape.polys, polyModulusDegree: n, primes, widths: shape.widths }
  const present = new Set(shape.elements)
  const kept = new Set(selected)
  let from = shape.keysAt
  let at = KSWITCH_HEAD_BYTES
  for (let list = 0; list < n; list++) {
    const element = 2 * list + 1
    if (!present.has(element)) {
      at += U64 // a zero count: the buffer starts zeroed
      continue
    }
    if (!kept.has(element)) {
      // Not asked for: an empty list here, and its packed keys skipped (the layout check
      // made every key shape.keyBytes long).
      from += d * shape.keyBytes
      at += U64
      continue
    }
    view.setBigUint64(at, BigInt(d), true)
    at += U64
    for (let j = 0; j < d; j++) {
      sealHeader(view, at, keyBytes)
      const fields = at + SEAL_HEADER_BYTES
      writeParmsId(fields)
      view.setUint8(fields + 32, 1) // keys are in NTT form whatever the scheme
      view.setBigUint64(fields + 33, 2n, true)
      view.setBigUint64(fields + 41, BigInt(n), true)
      view.setBigUint64(fields + 49, BigInt(k), true)
      view.setFloat64(fields + 57, 1, true)
      view.setBigUint64(fields + 65, 1n, true)
      const dataAt = fields + CIPHERTEXT_FIELDS_BYTES
      sealHeader(view, dataAt, DYN_ARRAY_BYTES + words * U64)
      view.setBigUint64(dataAt + SEAL_HEADER_BYTES, BigInt(words), true)
      let seed: Uint8Array | undefined
      if (shape.seeded) {
        seed = payload.subarray(from, from + SEED_BYTES)
        // SEAL's prng_type: 1 Blake2xb, 2 Shake256 (0 "unknown" would make SEAL throw).
        if (seed[0] !== 1 && seed[0] !== 2) {
          throw fail(
            `name PRNG type ${seed[0]} for element ${element} key ${j}; SEAL knows 1 (Blake2xb) and 2 (Shake256)`,
          )
        }
        from += SEED_BYTES
      }
      from = readResidueRun(
        run,
        payload,
        from,
        view,
        at + KEY_WORDS_AT,
        `element ${element} key ${j} of the packed Galois keys`,
      )
      if (seed) {
        const seedAt = at + KEY_WORDS_AT + words * U64
        sealHeader(view, seedAt, PRNG_INFO_BYTES)
        out.set(seed, seedAt + SEAL_HEADER_BYTES)
      }
      at += keyBytes
    }
  }
  return out
}
