import type { Seal } from '@sealbox/he-core'
import { SealScope } from '@sealbox/he-core'

/** How the noise of one square spreads over key sets, at one ring and plain modulus. */
export interface SquaringGainReport {
  polyModulusDegree: number
  plainBits: number
  keySets: number
  /**
   * budget(square) − 2·budget(fresh) → how many key sets gave it. Under one key set the
   * figure repeats for every fresh encryption; across key sets it spreads, and a chain's
   * level primes must hold the worst of it (he-core's bgvAttempt.ts).
   */
  histogram: Array<[number, number]>
}

/**
 * Encrypts [1, −1, 0, 1] under `keySets` fresh key sets (secret and public key only: the
 * gain is the square's, before relinearization) and squares it once, with SEAL's
 * budgets before and after. A chain of 60-bit primes: enough budget that none runs out.
 */
export function measureSquaringGain(seal: Seal, n: number, plainBits: number, keySets: number): SquaringGainReport {
  using setup = new SealScope()
  const parms = setup.track(new seal.EncryptionParameters(seal.SchemeType.bgv))
  parms.setPolyModulusDegree(n)
  const primes = n >= 16384 ? 4 : n >= 8192 ? 3 : 2
  parms.setCoeffModulus(
    setup.track(
      seal.CoeffModulus.Create(
        n,
        Int32Array.from({ length: primes }, () => 60),
      ),
    ),
  )
  parms.setPlainModulus(setup.track(seal.PlainModulus.Batching(n, plainBits)))
  const context = setup.track(new seal.SEALContext(parms, true, seal.SecLevelType.none))
  const encoder = setup.track(new seal.BatchEncoder(context))
  const evaluator = setup.track(new seal.Evaluator(context))
  const values = new BigInt64Array(n)
  values.set([1n, -1n, 0n, 1n])
  const plain = setup.track(new seal.Plaintext())
  encoder.encode(values, plain)
  const counts = new Map<number, number>()
  for (let k = 0; k < keySets; k++) {
    using scope = new SealScope()
    const keygen = scope.track(new seal.KeyGenerator(context))
    const secretKey = scope.track(keygen.secretKey())
    const encryptor = scope.track(new seal.Encryptor(context, scope.track(keygen.createPublicKey())))
    const decryptor = scope.track(new seal.Decryptor(context, secretKey))
    const fresh = scope.track(new seal.Ciphertext())
    encryptor.encrypt(plain, fresh)
    const squared = scope.track(new seal.Ciphertext())
    evaluator.square(fresh, squared)
    const gain = decryptor.invariantNoiseBudget(squared) - 2 * decryptor.invariantNoiseBudget(fresh)
    counts.set(gain, (counts.get(gain) ?? 0) + 1)
  }
  return {
    polyModulusDegree: n,
    plainBits,
    keySets,
    histogram: [...counts.entries()].sort((a, b) => a[0] - b[0]),
  }
}
