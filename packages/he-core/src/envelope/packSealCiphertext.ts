import { modInverse } from '@sealbox/he-ring'
import type { SEALContext } from 'node-seal/throws'
import { HeError } from '../errors/HeError.ts'
import type { HeErrorCode } from '../errors/heErrorCodes.ts'
import { checkPackedLayout, PACKED_SEED_BYTES, packResidues, residueBits, unpackResidues } from './packedCiphertext.ts'
import { SEAL_HEADER_BYTES, SEAL_MAGIC, SEAL_VERSION_MAJOR, SEAL_VERSION_MINOR } from './sealBlobHeader.ts'
import {
  CIPHERTEXT_FIELDS_BYTES,
  ciphertextBytes,
  DYN_ARRAY_BYTES,
  dataPrimeCountOf,
  PRNG_INFO_BYTES,
} from './sealPayloadLimits.ts'

/**
 * What packing and unpacking need of a context (an `HeContext` fits): the chain of
 * parms ids, the primes, the scheme (which fixes the NTT form) and t.
 */
export interface PackedCiphertextContext {
  readonly context: SEALContext
  readonly coeffPrimes: readonly bigint[]
  readonly params: { readonly polyModulusDegree: number; readonly scheme: string }
  readonly plainModulus?: bigint | undefined
}

// Offsets inside SEAL 4.1's uncompressed save of a Ciphertext (ENVELOPE.md, "The SEAL payload").
const AT_PARMS_ID = SEAL_HEADER_BYTES
const AT_NTT = AT_PARMS_ID + 32
const AT_SIZE = AT_NTT + 1
const AT_N = AT_SIZE + 8
const AT_PRIMES = AT_N + 8
const AT_SCALE = AT_PRIMES + 8
const AT_CORRECTION = AT_SCALE + 8
const AT_DATA_ARRAY = SEAL_HEADER_BYTES + CIPHERTEXT_FIELDS_BYTES
const AT_WORDS = AT_DATA_ARRAY + DYN_ARRAY_BYTES

// parms id (4 × u64) of the level with k data primes, per context: a few SEAL calls once.
const parmsIdTables = new WeakMap<SEALContext, Map<number, BigUint64Array>>()

function parmsIdsOf(ctx: PackedCiphertextContext): Map<number, BigUint64Array> {
  let table = parmsIdTables.get(ctx.context)
  if (table) return table
  table = new Map()
  let k = dataPrimeCountOf(ctx.coeffPrimes.length)
  // Past the last level nextContextData() returns a handle to nothing, so walk by chain index.
  let data = ctx.context.firstContextData()
  try {
    for (;;) {
      const parmsId = data.parmsId()
      table.set(k, BigUint64Array.from(parmsId.values() as BigUint64Array))
      parmsId.delete()
      k--
      if (data.chainIndex() === 0) break
      const next = data.nextContextData()
      data.delete()
      data = next
    }
  } finally {
    data.delete()
  }
  parmsIdTables.set(ctx.context, table)
  return table
}

function sealHeader(view: DataView, at: number, size: number): void {
  view.setUint16(at, SEAL_MAGIC, true)
  view.setUint8(at + 2, SEAL_HEADER_BYTES)
  view.setUint8(at + 3, SEAL_VERSION_MAJOR)
  view.setUint8(at + 4, SEAL_VERSION_MINOR)
  view.setBigUint64(at + 8, BigInt(size), true)
}

function assertPackable(ctx: PackedCiphertextContext, code: HeErrorCode): void {
  if (ctx.params.scheme !== 'bfv' && ctx.params.scheme !== 'bgv') {
    throw new HeError(code, `packed ciphertexts are BFV or BGV (scale 1); these parameters are ${ctx.params.scheme}`)
  }
}

/** Options of `packSealCiphertext`. */
export interface PackCiphertextOptions {
  /**
   * Low-order bits to drop off c0 and c1 (a search response: `searchResponseDroppedBits`):
   * only for a one-prime, unseeded ciphertext saved in coefficient form (BGV: transform it
   * from NTT form first — rounding is small only there). See packedCiphertext.ts.
   */
  dropBits?: readonly [number, number]
}

/**
 * Multiplies `count` u64 residue words (each below q < 2^32) by f mod q, in place. Below
 * 2^32/3 (every prime here) without a float remainder: the quotient ⌊x·f/q⌋ from a double
 * (off by at most one), the remainder from 32-bit products, so the true one lies in [−q, 2q).
 */
function scaleWords(words: DataView, count: number, f: number, q: number): void {
  if (q >= 2 ** 32 / 3) {
    // f in 16-bit halves keeps every product below 2^53.
    const fHi = Math.floor(f / 65536)
    const fLo = f % 65536
    for (let i = 0; i < count; i++) {
      const x = words.getUint32(i * 8, true)
      words.setUint32(i * 8, (((x * fHi) % q) * 65536 + x * fLo) % q, true)
    }
    return
  }
  const fOverQ = f / q
  const wrap = 2 ** 32 - q
  for (let i = 0; i < count; i++) {
    const x = words.getUint32(i * 8, true)
    const r = (Math.imul(x, f) - Math.imul(Math.floor(x * fOverQ), q)) >>> 0
    words.setUint32(i * 8, r < q ? r : r >= wrap ? r - wrap : r - q, true)
  }
}

/** BGV's t, or 1 (BFV's message is already in the high bits), as the scale of dropped-bit residues. */
function droppedScale(ctx: PackedCiphertextContext, code: HeErrorCode): bigint {
  if (ctx.params.scheme === 'bfv') return 1n
  const t = ctx.plainModulus
  if (t === undefined) throw new HeError(code, 'dropping low-order bits of a BGV ciphertext needs its plain modulus t')
  return t
}

/**
 * Packs an uncompressed SEAL save of a size-2 BFV/BGV ciphertext (`saveToArray` with
 * compression none; a seeded `Serializable` save keeps only c0 and its seed) into the
 * packed layout: each residue in ⌈log2 q⌉ bits (less `dropBits`).
 */
export function packSealCiphertext(
  ctx: PackedCiphertextContext,
  saved: Uint8Array,
  options: PackCiphertextOptions = {},
): Uint8Array {
  assertPackable(ctx, 'INVALID_INPUT')
  const view = new DataView(saved.buffer, saved.byteOffset, saved.byteLength)
  if (saved.length < AT_WORDS || view.getUint16(0, true) !== SEAL_MAGIC || view.getUint8(5) !== 0) {
    throw new HeError('INVALID_INPUT', 'pack a ciphertext from its uncompressed SEAL save (compression none)')
  }
  const size = Number(view.getBigUint64(AT_SIZE, true))
  const n = Number(view.getBigUint64(AT_N, true))
  const k = Number(view.getBigUint64(AT_PRIMES, true))
  if (size !== 2 || n !== ctx.params.polyModulusDegree || k < 1 || k > dataPrimeCountOf(ctx.coeffPrimes.length)) {
    throw new HeError(
      'INVALID_INPUT',
      `only size-2 ciphertexts of these parameters pack (size ${size}, n ${n}, ${k} primes)`,
    )
  }
  const seeded = saved.length === ciphertextBytes(2, n, k, true)
  if (!seeded && saved.length !== ciphertextBytes(2, n, k)) {
    throw new HeError('INVALID_INPUT', `a ${saved.length}-byte save is no size-2 ciphertext of n=${n} over ${k} primes`)
  }
  const dropBits = options.dropBits ?? [0, 0]
  const dropping = dropBits[0] !== 0 || dropBits[1] !== 0
  const words = dropping
    ? roundedWords(ctx, saved.subarray(AT_WORDS, AT_WORDS + 2 * n * 8), view.getUint8(AT_NTT), k, seeded, dropBits)
    : saved.subarray(AT_WORDS, AT_WORDS + (seeded ? 1 : 2) * n * k * 8)
  const input = {
    ...(dropping ? { dropped: dropBits } : {}),
    words,
    polys: seeded ? (1 as const) : (2 as const),
    polyModulusDegree: n,
    primes: ctx.coeffPrimes.slice(0, k),
    correctionFactor: view.getBigUint64(AT_CORRECTION, true),
  }
  return seeded
    ? packResidues({ ...input, seed: saved.subarray(saved.length - PACKED_SEED_BYTES) })
    : packResidues(input)
}

/**
 * The residues of a one-prime ciphertext in coefficient form, scaled by t⁻¹ (BGV) and
 * rounded to h = round(x / 2^k) per polynomial (h·2^k ≥ q wraps to 0: x's nearest multiple mod q).
 */
function roundedWords(
  ctx: PackedCiphertextContext,
  source: Uint8Array,
  nttFlag: number,
  k: number,
  seeded: boolean,
  dropBits: readonly [number, number],
): Uint8Array {
  const prime = ctx.coeffPrimes[0] as bigint
  if (k !== 1 || seeded || prime >= 2n ** 32n) {
    throw new HeError('INVALID_INPUT', 'only an unseeded ciphertext at one prime below 2^32 drops low-order bits')
  }
  if (nttFlag !== 0) {
    throw new HeError(
      'INVALID_INPUT',
      'drop low-order bits of a ciphertext in coefficient form (transform it from NTT form)',
    )
  }
  const q = Number(prime)
  const n = ctx.params.polyModulusDegree
  const out = source.slice()
  const words = new DataView(out.buffer)
  const t = droppedScale(ctx, 'INVALID_INPUT')
  const tInverse = Number(modInverse(t % prime, prime))
  for (let p = 0; p < 2; p++) {
    const bits = dropBits[p] as number
    if (bits === 0) continue
    // Only a polynomial that is rounded needs t⁻¹ (and t again on reading): t·(t⁻¹·c) = c.
    if (t !== 1n) scaleWords(new DataView(out.buffer, p * n * 8, n * 8), n, tInverse, q)
    const scale = 2 ** bits
    for (let j = p * n; j < (p + 1) * n; j++) {
      const h = Math.floor((words.getUint32(j * 8, true) + scale / 2) / scale)
      words.setUint32(j * 8, h * scale >= q ? 0 : h, true)
    }
  }
  return out
}

/**
 * Rebuilds SEAL's uncompressed save of a packed ciphertext under `ctx`, trusting
 * nothing in it: the layout, n, the level (k ≤ the data primes), each width = ⌈log2 q_i⌉,
 * the correction factor (1 for BFV, in [1, t) for BGV), every residue below its prime.
 * The SEAL fields (parms id, NTT form, size, scale) come from the context. A refusal is
 * INVALID_ENVELOPE; SEAL then loads what it would have written itself (a seeded one
 * expands c1 from the seed, as for its own seeded saves).
 */
export function unpackSealCiphertext(
  ctx: PackedCiphertextContext,
  payload: Uint8Array,
  envelopeSeeded: boolean,
): Uint8Array {
  assertPackable(ctx, 'INVALID_ENVELOPE')
  const fail = (what: string) => new HeError('INVALID_ENVELOPE', `the packed ciphertext ${what}`)
  const shape = checkPackedLayout(payload, 'INVALID_ENVELOPE')
  const n = ctx.params.polyModulusDegree
  if (shape.seeded !== envelopeSeeded) {
    throw fail(`stores ${shape.polys} polynomials but its envelope is ${envelopeSeeded ? '' : 'not '}marked seeded`)
  }
  if (shape.polyModulusDegree !== n) throw fail(`has n = ${shape.polyModulusDegree}; these parameters have n = ${n}`)
  const k = shape.primes
  const dataPrimes = dataPrimeCountOf(ctx.coeffPrimes.length)
  if (k > dataPrimes) throw fail(`spans ${k} primes; a ciphertext of these parameters has at most ${dataPrimes}`)
  const primes = ctx.coeffPrimes.slice(0, k)
  for (const [i, prime] of primes.entries()) {
    if (shape.widths[i] !== residueBits(prime)) {
      throw fail(`packs prime ${i} in ${shape.widths[i]} bits; its prime ${prime} needs ${residueBits(prime)}`)
    }
  }
  const t = ctx.plainModulus ?? 0n
  const cf = shape.correctionFactor
  const cfValid = ctx.params.scheme === 'bfv' ? cf === 1n : cf >= 1n && cf < t
  if (!cfValid) throw fail(`has correction factor ${cf}, not valid for ${ctx.params.scheme} with t = ${t}`)
  const parmsId = parmsIdsOf(ctx).get(k)
  if (!parmsId) throw fail(`spans ${k} primes, which is no level of these parameters`)

  const words = shape.polys * n * k
  const length = ciphertextBytes(2, n, k, shape.seeded)
  const out = new Uint8Array(length)
  const view = new DataView(out.buffer)
  sealHeader(view, 0, length)
  for (const [i, value] of parmsId.entries()) view.setBigUint64(AT_PARMS_ID + 8 * i, value, true)
  const dropping = shape.dropped[0] !== 0 || shape.dropped[1] !== 0
  // Dropped bits travel in coefficient form; SEAL's load puts a BGV ciphertext back in NTT form.
  view.setUint8(AT_NTT, ctx.params.scheme === 'bgv' && !dropping ? 1 : 0)
  view.setBigUint64(AT_SIZE, 2n, true)
  view.setBigUint64(AT_N, BigInt(n), true)
  view.setBigUint64(AT_PRIMES, BigInt(k), true)
  view.setFloat64(AT_SCALE, 1, true)
  view.setBigUint64(AT_CORRECTION, cf, true)
  sealHeader(view, AT_DATA_ARRAY, DYN_ARRAY_BYTES + words * 8)
  view.setBigUint64(AT_DATA_ARRAY + SEAL_HEADER_BYTES, BigInt(words), true)
  unpackResidues(payload, shape, primes, out, AT_WORDS)
  const scale = dropping ? droppedScale(ctx, 'INVALID_ENVELOPE') : 1n
  for (const [p, bits] of shape.dropped.entries()) {
    if (bits === 0 || scale === 1n) continue
    const prime = primes[0] as bigint
    scaleWords(new DataView(out.buffer, AT_WORDS + p * n * 8, n * 8), n, Number(scale % prime), Number(prime))
  }
  if (shape.seeded) {
    const at = AT_WORDS + words * 8
    sealHeader(view, at, PRNG_INFO_BYTES)
    const seed = payload.subarray(shape.seedAt, shape.seedAt + PACKED_SEED_BYTES)
    // SEAL's prng_type: 1 Blake2xb, 2 Shake256 (0 "unknown" would make SEAL throw).
    if (seed[0] !== 1 && seed[0] !== 2)
      throw fail(`names PRNG type ${seed[0]}; SEAL knows 1 (Blake2xb) and 2 (Shake256)`)
    out.set(seed, at + SEAL_HEADER_BYTES)
  }
  return out
}
