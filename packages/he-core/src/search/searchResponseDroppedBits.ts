import type { SearchConfig } from './SearchConfig.ts'
import { transferMs } from './searchEndToEnd.ts'

/*
 * How many low-order bits a search response may drop (Apple's `skipLSBs`,
 * `Bfv.skipLSBsForDecryption`; Chen, Dai, Kim, Song, eprint 2022/207 §5.2), from a noise bound
 * of the response computed from the parameters and the config's shape.
 *
 * A BGV response at one prime q has phase v = c0 + c1·s = m′ + t·e (mod q), |m′| ≤ t/2, and
 * decrypts while ‖v‖∞ < q/2. The server multiplies it by t⁻¹ mod q, rounds c0 to a multiple
 * of 2^k0 and c1 to one of 2^k1; the client multiplies by t again. The phase becomes
 * v + t·(δ0 + δ1·s) with |δ_p| ≤ 2^(k_p − 1), so the response still decrypts while
 *
 *   ‖e‖ + ½ + 2^(k0−1) + ‖δ1·s‖ < q/(2t).
 *
 * δ0's term is a worst case. δ1·s is bounded in the worst case too, ‖δ1·s‖ ≤ n·2^(k1−1) for a
 * ternary s (no Hamming weight is known to the server): at n = 4096 and q/(2t) ≈ 2^10 that
 * already exceeds the whole room at k1 = 1, so c1 keeps every bit there.
 *
 * ‖e‖ has no useful worst case: SEAL's own mod switch adds t·(u0 + u1·s) with |u| ≤ ½, whose
 * worst case n/2 is beyond q/(2t) at these parameters, yet it decrypts because u1·s is a sum of
 * n independent terms. Like Apple's estimates, the bound is a high-probability one at z = 8
 * standard deviations per coefficient (Pr < 2^−49.5 each; < 2^−37.5 for all n by the union
 * bound), with SEAL's noise σ = 3.2 and every term's variance taken at its largest:
 *  - the switch to one prime: ½ + z·√(n/18) (u0, and u1·s: n·(2/3)·(1/12));
 *  - before it, divided by the primes switched away: the products Σ p·e over every diagonal
 *    (P products, plaintext coefficients up to t/2: variance P·n·(t/2)²·σ_q²). A query
 *    ciphertext carries σ² fresh; server-side baby steps rotate it by 1 again and again (keys
 *    for steps 1 and g only), so baby step a carries a·σ_ks² more, (g − 1)/2·σ_ks² on average
 *    over a diagonal's products (one σ_ks² when hoisted, none client-side), where
 *    σ_ks² = Σ_j n·q_j²·σ²/(3·P_sp²) + 1/12 + n/18 (SEAL's digits are residues in [0, q_j),
 *    E[d²] = q_j²/3, times the key's error; then the mod-down by the special prime P_sp); each
 *    giant step adds σ_ks² to the sum.
 * Measured on the largest-noise responses (the worst-noise test), the noise is 0.3–0.5 of this
 * bound: the plaintext term is taken at its largest coefficient, not its typical one.
 * The rule keeps the whole below q/(4t), not q/(2t): one bit of SEAL's noise budget is left in
 * every restored block (SEAL's BGV budget is ⌊log2(q / (2t·‖e‖))⌋, measured), so the client's
 * refusal of a block with no budget left (NOISE_BUDGET_EXHAUSTED) still guards every score, and
 * drops as many bits in all as fit, c0's first (its term is a worst case).
 */

/** SEAL's noise standard deviation (`util::global_variables::noise_standard_deviation`). */
const SEAL_NOISE_SIGMA = 3.2
/** Standard deviations per coefficient of the high-probability bound (Apple's z-score). */
export const RESPONSE_NOISE_Z = 8

/** What the rule needs of a context (an `HeContext` fits). */
export interface DroppedBitsContext {
  /** Every prime, the special one last (the response keeps the first). */
  readonly coeffPrimes: readonly bigint[]
  /** t. */
  readonly plainModulus?: bigint | undefined
  /** n and the scheme (only BGV drops bits). */
  readonly params: { readonly polyModulusDegree: number; readonly scheme: string }
}

/** The rule's answer: bits dropped off c0 and c1, and the numbers that set them. */
export interface SearchResponseDroppedBits {
  /** [k0, k1]; [0, 0] when nothing may go (then `reason` says why). */
  bits: [number, number]
  /** High-probability bound on ‖e‖∞ of the response (phase = m′ + t·e), before rounding. */
  noiseBound: number
  /** q/(4t): ‖e‖ + ½ + the rounding stay below it (one bit of noise budget left). */
  room: number
  /** Why nothing may go, when `bits` is [0, 0]. */
  reason?: string
}

/** The response's noise bound ‖e‖∞ (units of t) for a config at these parameters. */
export function searchResponseNoiseBound(ctx: DroppedBitsContext, config: SearchConfig): number {
  const n = ctx.params.polyModulusDegree
  const t = Number(ctx.plainModulus ?? 0n)
  const primes = ctx.coeffPrimes.map(Number)
  const keySwitching = primes.length > 1
  const data = keySwitching ? primes.slice(0, -1) : primes
  const special = keySwitching ? (primes.at(-1) as number) : 1
  const switchedAway = data.slice(1).reduce((product, q) => product * q, 1)
  const sigma2 = SEAL_NOISE_SIGMA ** 2
  const rotates = config.galoisSteps.length > 0
  const keySwitch2 = rotates
    ? data.reduce((sum, q) => sum + (n * q * q * sigma2) / (3 * special * special), 0) + 1 / 12 + n / 18
    : 0
  const products = config.clusters ? config.queryCiphertexts * config.paddedDimension : config.paddedDimension
  const babyRotations =
    config.babySteps === 'client' ? 0 : config.hoistBabySteps ? 1 : Math.max(0, (config.babyStep - 1) / 2)
  const query2 = sigma2 + babyRotations * keySwitch2
  const before = products * n * (t / 2) ** 2 * query2 + (rotates ? config.giantSteps * keySwitch2 : 0)
  const z = RESPONSE_NOISE_Z
  const modSwitch = data.length > 1 ? 0.5 + z * Math.sqrt(n / 18) : 0
  return 0.5 + modSwitch + (z * Math.sqrt(before)) / switchedAway
}

/**
 * Bits a search response under `config` may drop off c0 and c1 when it travels packed
 * (server and client compute the same; the client refuses a response that drops more).
 */
export function searchResponseDroppedBits(ctx: DroppedBitsContext, config: SearchConfig): SearchResponseDroppedBits {
  const none = (reason: string, noiseBound = 0, room = 0): SearchResponseDroppedBits => ({
    bits: [0, 0],
    noiseBound,
    room,
    reason,
  })
  if (ctx.params.scheme !== 'bgv') return none(`the rule models BGV's noise; ${ctx.params.scheme} keeps every bit`)
  if (config.responseCompression !== 'packed') return none('only packed responses can drop bits')
  const q = Number(ctx.coeffPrimes[0])
  if (q >= 2 ** 32) return none('the response prime is not below 2^32')
  const n = ctx.params.polyModulusDegree
  const t = Number(ctx.plainModulus ?? 0n)
  const noiseBound = searchResponseNoiseBound(ctx, config)
  const room = q / (4 * t)
  const free = room - 0.5 - noiseBound
  const width = Math.ceil(Math.log2(q))
  let best: [number, number] = [0, 0]
  for (let k1 = 0; k1 < width; k1++) {
    const c1 = k1 === 0 ? 0 : n * 2 ** (k1 - 1)
    if (c1 >= free) break
    let k0 = 0
    while (k0 + 1 < width && 2 ** k0 + c1 < free) k0++
    if (k0 + k1 > best[0] + best[1]) best = [k0, k1]
  }
  if (best[0] === 0 && best[1] === 0) return none('the noise bound leaves no room', noiseBound, room)
  return { bits: best, noiseBound, room }
}

/** The rule's context from a config alone: its primes taken as 2^w − 1 (the model has widths, not primes). */
function modelledContext(config: SearchConfig): DroppedBitsContext {
  return {
    coeffPrimes: config.params.coeffModulusBits.map((w) => 2n ** BigInt(w) - 1n),
    plainModulus: BigInt(config.plainModulus),
    params: { polyModulusDegree: config.polyModulusDegree, scheme: config.scheme },
  }
}

/**
 * Whether the config's response noise bound leaves one bit of noise budget with every bit kept:
 * ‖e‖ + ½ < q/(4t) at the response prime. Where it does not, the client refuses some responses
 * (NOISE_BUDGET_EXHAUSTED). The bound models BGV: a BFV config is taken as leaving it.
 */
export function leavesResponseBudget(config: SearchConfig): boolean {
  if (config.scheme !== 'bgv') return true
  const ctx = modelledContext(config)
  const q = Number(ctx.coeffPrimes[0])
  return searchResponseNoiseBound(ctx, config) + 0.5 < q / (4 * config.plainModulus)
}

/**
 * The config's end-to-end estimate with the response bytes its packed blocks save by the
 * rule, primes taken as 2^w − 1 (the model has widths, not primes). The plan is chosen on
 * the full bytes, so the dropped bits change no choice of g, side or C: only what the
 * estimate reports.
 */
export function withDroppedResponseBytes(config: SearchConfig): SearchConfig {
  const estimate = config.estimate
  if (!estimate) return config
  const [k0, k1] = searchResponseDroppedBits(modelledContext(config), config).bits
  if (k0 + k1 === 0) return config
  const responseBytes = estimate.responseBytes - (config.blocks.length * config.polyModulusDegree * (k0 + k1)) / 8
  const downloadMs = transferMs(responseBytes, estimate.link.downMbps)
  return {
    ...config,
    estimate: {
      ...estimate,
      responseBytes,
      downloadMs,
      totalMs: estimate.totalMs - estimate.downloadMs + downloadMs,
    },
  }
}
