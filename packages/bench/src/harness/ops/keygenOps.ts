import type { BenchEnv } from '../BenchEnv.ts'
import { cipherBytes, type OpFactory, opArena, producingOp } from './PreparedOp.ts'

/** Primes at the key level (all of them, special prime included). */
function keyPrimes(env: BenchEnv): number {
  return env.coeffModulusBits.length
}

/** One key-switching key: (primes - 1) pairs of polynomials over all primes. */
function kswitchKeyBytes(env: BenchEnv): number {
  return cipherBytes(env, 2, keyPrimes(env)) * Math.max(1, keyPrimes(env) - 1)
}

/** KeyGen rows, timed in the CKKS context as sealbench does. */
export const KEYGEN_OPS: Record<string, OpFactory> = {
  'KeyGen/Secret': ({ env }) =>
    producingOp(opArena(), cipherBytes(env, 2, keyPrimes(env)), () => new env.seal.KeyGenerator(env.context)),

  'KeyGen/Public': ({ env }) =>
    producingOp(opArena(), cipherBytes(env, 2, keyPrimes(env)), () => env.keygen.createPublicKey()),

  'KeyGen/Relin': ({ env }) => producingOp(opArena(), kswitchKeyBytes(env), () => env.keygen.createRelinKeys()),

  'KeyGen/Galois': ({ env, rng }) => {
    // sealbench: one random step in [0, n/2) per call (`rand() & (slot_count - 1)`); step 0 is the column rotation.
    const steps = Array.from({ length: 64 }, () => Int32Array.of(rng.nextInt(env.n / 2)))
    return producingOp(opArena(), kswitchKeyBytes(env), (i) =>
      env.keygen.createGaloisKeysWithSteps(steps[i % steps.length]!),
    )
  },
}
