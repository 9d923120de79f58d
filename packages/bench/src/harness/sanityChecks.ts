import { SealScope } from '@sealbox/he-core'
import { BenchError } from '../BenchError.ts'
import type { SanityCheck } from '../protocol/benchProtocol.ts'
import type { BenchEnv } from './BenchEnv.ts'

type Message = BigUint64Array | Float64Array

/**
 * Proves the environment computes the right thing before it is timed: decrypt(encrypt(x))
 * == x (public and secret key), and add / multiply+relinearize / rotate against a
 * plain-number oracle. BFV/BGV must match exactly (mod t); CKKS within 2^-10 at the
 * scale of `sanityScale`.
 * At n=1024 SEAL's benchmark parameters leave no noise budget (t=20 bits, q=27 bits),
 * so these checks fail there by design of the parameters — the report says so.
 * `keyswitching: false` skips the multiply/rotate checks (seconds each at n ≥ 16384).
 */
export function runSanityChecks(
  env: BenchEnv,
  options: { keyswitching: boolean },
): { checks: SanityCheck[]; freshNoiseBudgetBits?: number } {
  const arena = new SealScope()
  try {
    const checks: SanityCheck[] = []
    const scale = sanityScale(env)
    const m1 = env.randomMessage()
    const m2 = env.randomMessage()
    const c1 = arena.track(new env.seal.Ciphertext())
    const c2 = arena.track(new env.seal.Ciphertext())
    env.encryptor.encrypt(env.encode(arena, m1, scale), c1)
    env.encryptor.encryptSymmetric(env.encode(arena, m2, scale), c2)
    checks.push(compare('decrypt(encrypt(x)) == x (public key)', decrypt(env, arena, c1), m1))
    checks.push(compare('decrypt(encryptSymmetric(x)) == x (secret key)', decrypt(env, arena, c2), m2))

    const sum = arena.track(new env.seal.Ciphertext())
    env.evaluator.add(c1, c2, sum)
    checks.push(compare('add', decrypt(env, arena, sum), oracle(env, m1, m2, 'add')))

    if (options.keyswitching && env.relinKeys && env.galoisKeys) {
      const product = arena.track(new env.seal.Ciphertext())
      env.evaluator.multiply(c1, c2, product)
      env.evaluator.relinearizeInplace(product, env.relinKeys)
      checks.push(compare('multiply + relinearize', decrypt(env, arena, product), oracle(env, m1, m2, 'multiply')))
      const rotated = arena.track(new env.seal.Ciphertext())
      if (env.scheme === 'ckks') env.evaluator.rotateVector(c1, 1, env.galoisKeys, rotated)
      else env.evaluator.rotateRows(c1, 1, env.galoisKeys, rotated)
      checks.push(compare('rotate by 1', decrypt(env, arena, rotated), rotateLeft(env, m1)))
    }
    const freshNoiseBudgetBits = env.scheme === 'ckks' ? undefined : env.decryptor.invariantNoiseBudget(c1)
    return freshNoiseBudgetBits === undefined ? { checks } : { checks, freshNoiseBudgetBits }
  } finally {
    arena.dispose()
  }
}

/**
 * A CKKS scale that leaves room for the checks: 2^40 where the data level allows, less
 * where a product must still fit (n=4096: 2^34) or the modulus is one small prime
 * (n=1024: 2^24). Sealbench's `safe_scale()` (2^17 at n=4096) is too small to check
 * anything after key switching, whose noise is ~2^20 whatever the scale.
 */
export function sanityScale(env: BenchEnv): number {
  const dataBits = env.coeffModulusBits.slice(0, env.dataLevelPrimes).reduce((sum, bits) => sum + bits, 0)
  const bits = env.usingKeyswitching ? Math.floor((dataBits - 4) / 2) : dataBits - 3
  return 2 ** Math.min(40, bits)
}

/** CKKS results must match the oracle within 2^-10 (values are in [0, 1)). */
const CKKS_TOLERANCE = 2 ** -10

function decrypt(env: BenchEnv, arena: SealScope, ct: ReturnType<BenchEnv['randomCipher']>): Message {
  const pt = arena.track(new env.seal.Plaintext())
  env.decryptor.decrypt(ct, pt)
  if (env.ckksEncoder) return env.ckksEncoder.decodeFloat64(pt) as Float64Array
  if (!env.batchEncoder) throw new BenchError('INTERNAL', 'no encoder')
  return env.batchEncoder.decodeBigUint64(pt) as BigUint64Array
}

/** Slot-wise oracle: exact mod t for batching, plain floats for CKKS. */
function oracle(env: BenchEnv, a: Message, b: Message, kind: 'add' | 'multiply'): Message {
  if (a instanceof Float64Array && b instanceof Float64Array) {
    return a.map((x, i) => (kind === 'add' ? x + b[i]! : x * b[i]!))
  }
  const t = env.plainModulus ?? 1n
  const x = a as BigUint64Array
  const y = b as BigUint64Array
  const out = new BigUint64Array(x.length)
  for (let i = 0; i < x.length; i++) out[i] = (kind === 'add' ? x[i]! + y[i]! : x[i]! * y[i]!) % t
  return out
}

/** rotateRows(1): each of the two rows of n/2 slots moves left by one; rotateVector(1): all n/2 slots. */
function rotateLeft(env: BenchEnv, m: Message): Message {
  const rowLength = env.scheme === 'ckks' ? m.length : m.length / 2
  const out = m.slice()
  for (let row = 0; row < m.length / rowLength; row++) {
    const base = row * rowLength
    for (let i = 0; i < rowLength; i++) out[base + i] = m[base + ((i + 1) % rowLength)]!
  }
  return out
}

function compare(check: string, got: Message, want: Message): SanityCheck {
  if (want instanceof Float64Array) {
    const values = got as Float64Array
    let maxError = 0
    for (let i = 0; i < want.length; i++) maxError = Math.max(maxError, Math.abs(values[i]! - want[i]!))
    const tolerance = CKKS_TOLERANCE
    const ok = Number.isFinite(maxError) && maxError <= tolerance
    return { check, ok, detail: `max |error| ${maxError.toExponential(2)} (tolerance ${tolerance.toExponential(2)})` }
  }
  const values = got as BigUint64Array
  let mismatches = 0
  for (let i = 0; i < want.length; i++) if (values[i] !== want[i]) mismatches++
  return {
    check,
    ok: mismatches === 0,
    detail: mismatches === 0 ? `all ${want.length} slots exact` : `${mismatches} of ${want.length} slots wrong`,
  }
}
