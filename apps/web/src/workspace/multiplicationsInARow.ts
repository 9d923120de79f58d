import { predictNoise, type ResolvedParams } from '@sealbox/he-core'

/** Enough for any chain SEAL allows (64 primes); the loop stops at the first exhausted square. */
const MAX_DEPTH = 64

/**
 * How many ciphertext × ciphertext multiplications in a row these parameters hold, by
 * the same static model the noise chart and the assistant use (he-core's predictNoise):
 * CKKS, one per rescale (a data prime each); BFV/BGV, squares and relinearizations until
 * the predicted noise budget runs out. So "What you get" and the assistant say one thing.
 */
export function multiplicationsInARow(params: ResolvedParams, plainModulusBits: number | undefined): number {
  if (params.scheme === 'ckks') {
    // Each multiplication's rescale uses up a data prime; the first one stays to hold the result.
    const dataPrimes = params.coeffModulusBits.length >= 2 ? params.coeffModulusBits.length - 1 : 1
    return dataPrimes - 1
  }
  const steps = []
  let last = 'x'
  for (let i = 1; i <= MAX_DEPTH; i++) {
    steps.push({ op: 'square' as const, a: last, out: `s${i}` })
    steps.push({ op: 'relinearize' as const, a: `s${i}`, out: `r${i}` })
    last = `r${i}`
  }
  const prediction = predictNoise(
    { version: 1, inputs: [{ name: 'x', kind: 'ciphertext' }], steps, outputs: [last] },
    {
      scheme: params.scheme,
      polyModulusDegree: params.polyModulusDegree,
      coeffModulusBits: params.coeffModulusBits,
      plainModulus: plainModulusBits === undefined ? undefined : 2 ** plainModulusBits - 1,
      scaleBits: params.scaleBits,
    },
  )
  const exhausted = prediction.firstExhausted
  if (exhausted === undefined) return MAX_DEPTH
  // Steps come in pairs (square, relinearize): the squares before the first exhausted step.
  return Math.floor(exhausted / 2)
}
