import { type ParamsNeeds, type Seal, SealScope, suggestParams } from '@sealbox/he-core'
import { BenchError } from '../BenchError.ts'

/** What one run of `measureBgvChains` found. */
export interface BgvChainsReport {
  needs: ParamsNeeds
  polyModulusDegree: number
  coeffModulus: number[]
  /** Chains run, each under its own fresh key set (fewer than asked if the deadline came first). */
  chains: number
  /** Chains whose result did not decrypt to the integer oracle (or hit budget 0 on the way). */
  failures: number
  /** Per chain: SEAL's noise budget after the last square (relinearized), sorted ascending. */
  lastSquareBudgets: number[]
  /** Per chain: the largest noise (bits) seen right after a mod switch, sorted ascending. */
  switchedNoiseBits: number[]
  seconds: number
}

/**
 * Runs the chain the assistant promises for a BGV suggestion — `depth` × (square,
 * relinearize, mod-switch) of [1, −1, 0, 1] — `chains` times, each under a fresh key set
 * (the noise growth of a squaring depends on the key set, so one key set says little),
 * and checks every result against the plain-integer oracle (±1 squared is 1). No chain
 * starts after `deadline` (a `performance.now()` time).
 */
export function measureBgvChains(
  seal: Seal,
  needs: ParamsNeeds,
  chains: number,
  options: { deadline?: number; onChain?: (index: number, lastSquareBudget: number, ok: boolean) => void } = {},
): BgvChainsReport {
  const suggestion = suggestParams(needs)
  if (!suggestion.ok) {
    throw new BenchError(
      'INVALID_FLAGS',
      `no BGV suggestion for ${JSON.stringify(needs)}: ${suggestion.problems[0]?.message}`,
    )
  }
  const { polyModulusDegree: n, plainModulus } = suggestion.params
  const coeffModulus = Array.from(suggestion.params.coeffModulus, Number)
  const bits = plainModulus && 'batchingBits' in plainModulus ? plainModulus.batchingBits : 0
  const started = performance.now()
  const lastSquareBudgets: number[] = []
  const switchedNoiseBits: number[] = []
  let failures = 0
  using setup = new SealScope()
  const parms = setup.track(new seal.EncryptionParameters(seal.SchemeType.bgv))
  parms.setPolyModulusDegree(n)
  parms.setCoeffModulus(setup.track(seal.CoeffModulus.Create(n, Int32Array.from(coeffModulus))))
  parms.setPlainModulus(setup.track(seal.PlainModulus.Batching(n, bits)))
  const context = setup.track(new seal.SEALContext(parms, true, seal.SecLevelType[needs.security]))
  const encoder = setup.track(new seal.BatchEncoder(context))
  const evaluator = setup.track(new seal.Evaluator(context))
  const input = [1n, -1n, 0n, 1n]
  const expected = input.map((v) => (needs.depth === 0 ? v : v * v))
  const values = new BigInt64Array(n)
  input.forEach((v, i) => {
    values[i] = v
  })
  const plain = setup.track(new seal.Plaintext())
  encoder.encode(values, plain)
  let run = 0
  for (; run < chains && performance.now() < (options.deadline ?? Number.POSITIVE_INFINITY); run++) {
    const index = run
    using scope = new SealScope()
    const keygen = scope.track(new seal.KeyGenerator(context))
    const secretKey = scope.track(keygen.secretKey())
    const publicKey = scope.track(keygen.createPublicKey())
    const relinKeys = scope.track(keygen.createRelinKeys())
    const encryptor = scope.track(new seal.Encryptor(context, publicKey))
    const decryptor = scope.track(new seal.Decryptor(context, secretKey))
    let ct = scope.track(new seal.Ciphertext())
    encryptor.encrypt(plain, ct)
    let lastSquare = decryptor.invariantNoiseBudget(ct)
    let worstSwitched = 0
    let exhausted = false
    for (let level = 0; level < needs.depth; level++) {
      const squared = scope.track(new seal.Ciphertext())
      evaluator.square(ct, squared)
      scope.free(ct)
      const relinearized = scope.track(new seal.Ciphertext())
      evaluator.relinearize(squared, relinKeys, relinearized)
      scope.free(squared)
      lastSquare = decryptor.invariantNoiseBudget(relinearized)
      if (lastSquare === 0) exhausted = true
      const switched = scope.track(new seal.Ciphertext())
      evaluator.cipherModSwitchToNext(relinearized, switched)
      scope.free(relinearized)
      // Noise bits = bits of the remaining modulus − budget − 1 (SEAL's own definition).
      const remaining = coeffModulus.slice(0, coeffModulus.length - 2 - level).reduce((a, b) => a + b, 0)
      worstSwitched = Math.max(worstSwitched, remaining - decryptor.invariantNoiseBudget(switched) - 1)
      ct = switched
    }
    const decrypted = scope.track(new seal.Plaintext())
    decryptor.decrypt(ct, decrypted)
    const got = encoder.decodeBigInt64(decrypted) as BigInt64Array
    const ok = !exhausted && got.every((v, i) => v === (expected[i] ?? 0n))
    if (!ok) failures++
    lastSquareBudgets.push(lastSquare)
    switchedNoiseBits.push(worstSwitched)
    options.onChain?.(index, lastSquare, ok)
  }
  return {
    needs,
    polyModulusDegree: n,
    coeffModulus,
    chains: run,
    failures,
    lastSquareBudgets: lastSquareBudgets.sort((a, b) => a - b),
    switchedNoiseBits: switchedNoiseBits.sort((a, b) => a - b),
    seconds: (performance.now() - started) / 1000,
  }
}
