import { sealDataWords } from '@sealbox/he-ring'
import type { Ciphertext, SecretKey } from 'node-seal/throws'
import { HeError } from '../errors/HeError.ts'
import type { HeContext } from '../params/HeContext.ts'
import { withScope } from '../scope/SealScope.ts'

/*
 * Test-only: decryption without rounding. The phase c0 + c1·s of a one-prime BGV ciphertext
 * in coefficient form, centred mod q, computed from the secret key's words — the exact noise
 * the noise budget only rounds to a bit.
 */

const AT_NTT_FLAG = 16 + 32

/** max |c0 + c1·s mod q| (centred) of a one-prime ciphertext loaded in SEAL (NTT form, as SEAL loads BGV). */
export function responsePhaseNorm(ctx: HeContext, secretKey: SecretKey, ciphertext: Ciphertext): bigint {
  const none = ctx.seal.ComprModeType.none
  const n = ctx.params.polyModulusDegree
  const q = ctx.coeffPrimes[0] as bigint
  const keyWords = ctx.coeffPrimes.length * n
  const s = new BigUint64Array(sealDataWords(secretKey.saveToArray(none) as Uint8Array, keyWords).slice().buffer)
  const saved = ciphertext.saveToArray(none) as Uint8Array
  if (saved[AT_NTT_FLAG] !== 1) throw new HeError('INTERNAL', 'the phase is computed from the NTT form')
  const words = new BigUint64Array(sealDataWords(saved, 2 * n).slice().buffer)
  // c1 = 1, not 0: SEAL refuses to transform a transparent ciphertext; only c0 is read back.
  const phase = new BigUint64Array(2 * n).fill(1n)
  for (let j = 0; j < n; j++) {
    phase[j] = ((words[j] as bigint) + (words[n + j] as bigint) * (s[j] as bigint)) % q
  }
  const out = saved.slice()
  out.set(new Uint8Array(phase.buffer), out.byteLength - phase.byteLength)
  return withScope((scope) => {
    // SEAL's inverse NTT of (phase, 1): the phase in coefficient form in c0.
    const holder = scope.track(new ctx.seal.Ciphertext())
    holder.loadFromArray(ctx.context, out)
    ctx.evaluator.cipherTransformFromNttInplace(holder)
    const coefficients = new BigUint64Array(
      sealDataWords(holder.saveToArray(none) as Uint8Array, 2 * n)
        .slice()
        .buffer.slice(0, n * 8),
    )
    let max = 0n
    for (const v of coefficients) {
      const centred = v > q / 2n ? q - v : v
      if (centred > max) max = centred
    }
    return max
  })
}
