import { MAX_COEFF_BITS } from './coeffModulusTables.ts'
import type { ResolvedParams } from './ParamsSpec.ts'

/** Expected serialized sizes in bytes (SEAL `ComprModeType.none`; zstd saves 10–35%). */
export interface ExpectedSizes {
  secretKey: number
  publicKey: number
  publicKeySeeded: number
  relinKeys: number
  relinKeysSeeded: number
  /** One Galois element (one rotation step); seeded keys are half. */
  galoisKeyPerStep: number
  /** Power-of-two steps (±2^k and the column swap), SEAL's default set. */
  galoisKeysDefault: number
  galoisKeysDefaultCount: number
  ciphertext: number
  ciphertextSeeded: number
  ciphertextLastLevel: number
  plaintext: number
}

/** Facts that follow from the parameters alone, without SEAL (safe for live UI validation). */
export interface ParamsFacts {
  scheme: ResolvedParams['scheme']
  polyModulusDegree: number
  /** Values per plaintext: n for BFV/BGV (a 2 × n/2 matrix), n/2 for CKKS. */
  slotCount: number
  /** Length of one batching row (BFV/BGV) or the CKKS slot vector: rotations are < this. */
  rowSize: number
  coeffModulusBits: number[]
  totalBits: number
  /** Largest secure total for this n and security level (null for `none`). */
  maxBits: number | null
  /** Primes that carry data (all but the special prime when there are ≥ 2). */
  dataPrimeCount: number
  /** Modulus-switching levels below the top (chain index of the first data level). */
  levels: number
  /** Relinearization and rotations need ≥ 2 primes (a special prime for key switching). */
  keySwitching: boolean
  plainModulusBits: number | undefined
  scaleBits: number | undefined
  sizes: ExpectedSizes
  /** Plain-language cautions (slow context, huge keys, no key switching...). */
  warnings: string[]
}

const U64 = 8
// Per-object framing measured on node-seal 7 (NODE-SEAL-FACTS.md §6): SEAL header + metadata.
const CIPHERTEXT_OVERHEAD = 113
const PLAINTEXT_OVERHEAD = 88
const KSWITCH_OVERHEAD = 100

/** Derives slot counts, levels, key-switching support and expected sizes from resolved params. */
export function describeParams(params: ResolvedParams): ParamsFacts {
  const n = params.polyModulusDegree
  const bits = params.coeffModulusBits
  const primes = bits.length
  const keySwitching = primes >= 2
  const dataPrimeCount = keySwitching ? primes - 1 : 1
  const totalBits = bits.reduce((a, b) => a + b, 0)
  const slotCount = params.scheme === 'ckks' ? n / 2 : n
  const poly = n * U64
  const ciphertext = 2 * poly * dataPrimeCount + CIPHERTEXT_OVERHEAD
  const keyElement = 2 * poly * primes + CIPHERTEXT_OVERHEAD
  const kswitch = dataPrimeCount * keyElement + KSWITCH_OVERHEAD
  const galoisKeysDefaultCount = 2 * Math.log2(n / 2)
  const plainModulusBits =
    params.plainModulus === undefined
      ? undefined
      : 'batchingBits' in params.plainModulus
        ? params.plainModulus.batchingBits
        : Math.ceil(Math.log2(params.plainModulus.value + 1))
  const sizes: ExpectedSizes = {
    secretKey: poly * primes + PLAINTEXT_OVERHEAD,
    publicKey: keyElement,
    publicKeySeeded: poly * primes + CIPHERTEXT_OVERHEAD,
    relinKeys: kswitch,
    relinKeysSeeded: Math.ceil(kswitch / 2),
    galoisKeyPerStep: kswitch,
    galoisKeysDefault: kswitch * galoisKeysDefaultCount,
    galoisKeysDefaultCount,
    ciphertext,
    ciphertextSeeded: poly * dataPrimeCount + CIPHERTEXT_OVERHEAD * 2,
    ciphertextLastLevel: 2 * poly + CIPHERTEXT_OVERHEAD,
    plaintext: params.scheme === 'ckks' ? poly * dataPrimeCount + PLAINTEXT_OVERHEAD : poly + PLAINTEXT_OVERHEAD,
  }
  const warnings: string[] = []
  if (!keySwitching) {
    warnings.push('A single prime: no relinearization or rotations (no key switching). Use n ≥ 4096 for those.')
  }
  if (n >= 16384) {
    warnings.push(
      `Galois keys are large at n=${n}: about ${(sizes.galoisKeyPerStep / 2 ** 20).toFixed(0)} MiB per rotation step (${(sizes.galoisKeysDefault / 2 ** 20).toFixed(0)} MiB for the default set). Ask only for the steps you use.`,
    )
  }
  if (n === 32768) warnings.push('Building a context at n=32768 takes up to 20 s; key generation takes seconds.')
  if (params.security === 'none') warnings.push("Security level 'none': these parameters give no security guarantee.")
  return {
    scheme: params.scheme,
    polyModulusDegree: n,
    slotCount,
    rowSize: n / 2,
    coeffModulusBits: [...bits],
    totalBits,
    maxBits: params.security === 'none' ? null : (MAX_COEFF_BITS[params.security][n] ?? null),
    dataPrimeCount,
    levels: dataPrimeCount - 1,
    keySwitching,
    plainModulusBits,
    scaleBits: params.scaleBits,
    sizes,
    warnings,
  }
}
