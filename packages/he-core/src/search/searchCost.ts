import { z } from 'zod'
import type { ParamsFacts } from '../params/describeParams.ts'
import { COST_UNIT_MS } from '../program/costUnit.ts'
import { planBlocks, type SearchShape } from './searchLayout.ts'
import type { SearchScheme } from './searchParams.ts'

/** Who computes the baby-step rotations of the query. */
export type BabyStepSide = 'client' | 'server'

/** SEAL operations one query costs the server. */
export const SearchOperationCountSchema = z
  .object({
    /** Seeded query ciphertexts the server checks and loads (each expands its seed; zstd ones are inflated first). */
    queryCiphertexts: z.number().int(),
    babyRotations: z.number().int(),
    giantRotations: z.number().int(),
    /** Ciphertext × plaintext multiplies (NTT form unless the database is kept in coefficient form). */
    multiplies: z.number().int(),
    additions: z.number().int(),
    /** BFV only: ciphertexts moved into / out of NTT form (BGV ciphertexts live in NTT form). */
    nttTransforms: z.number().int(),
    /** Response ciphertexts, each mod-switched to the last level and saved. */
    responseCiphertexts: z.number().int(),
  })
  .strict()
export type SearchOperationCount = z.infer<typeof SearchOperationCountSchema>

/**
 * How a search ciphertext travels: `packed` (sealbox's bit-packed layout, ⌈log2 q⌉ bits per
 * residue), or a SEAL save compressed with `zstd` or not at all (`none`).
 */
export const SEARCH_WIRE_ENCODINGS = ['packed', 'zstd', 'none'] as const
export type SearchWireEncoding = (typeof SEARCH_WIRE_ENCODINGS)[number]

/** How the query and response ciphertexts travel: the load and save costs depend on it. */
export interface SearchTransfer {
  query: SearchWireEncoding
  response: SearchWireEncoding
}

/**
 * Cost of each operation in units of one NTT-form plaintext multiply at n=4096 with two
 * data primes (how each was measured: SEARCH.md#where-the-cost-models-constants-come-from).
 * Only ratios matter: they choose the baby step. They scale with n × primes like the
 * operations themselves. The costs of moving ciphertexts
 * in and out (envelope checks, inflate, seed expansion, save) are in QUERY_LOAD and
 * RESPONSE_SAVE, so g is chosen on the server's whole time per query, not compute alone.
 */
const UNIT_COST: Record<SearchScheme, Record<keyof SearchOperationCount, number>> = {
  // Rotation = key switching (≈ 13 multiplies); a BFV rotation needs coefficient form.
  bfv: {
    queryCiphertexts: 0,
    babyRotations: 13,
    giantRotations: 13,
    multiplies: 1,
    additions: 0.1,
    nttTransforms: 2.3,
    // The mod switch alone (coefficient form: no NTT); the save is RESPONSE_SAVE.
    responseCiphertexts: 0.45,
  },
  // BGV keeps ciphertexts in NTT form: no transforms, but its mod switch does two NTTs.
  bgv: {
    queryCiphertexts: 0,
    babyRotations: 12,
    giantRotations: 12,
    multiplies: 1,
    additions: 0.1,
    nttTransforms: 2.3,
    responseCiphertexts: 3,
  },
}
/**
 * Per query ciphertext: envelope checks, inflate (zstd) and the SEAL load, whose floor
 * is the seed expansion (the benchmark's load split: see UNIT_COST).
 */
const QUERY_LOAD: Record<SearchWireEncoding, number> = { zstd: 3, none: 1.75, packed: 2 }
/** Per response ciphertext: SEAL save, packing, and the response envelope. */
const RESPONSE_SAVE: Record<SearchWireEncoding, number> = { zstd: 2, none: 0.25, packed: 0.5 }
const DEFAULT_TRANSFER: SearchTransfer = { query: 'zstd', response: 'zstd' }
/** A plaintext multiply with a coefficient-form plaintext (SEAL transforms it on every use). */
const COEFFICIENT_FORM_MULTIPLY: Record<SearchScheme, number> = { bfv: 7, bgv: 3 }
/**
 * What he-core's WebAssembly kernels cost, in the same units (see UNIT_COST; the run that
 * set them: SEARCH.md#where-the-cost-models-constants-come-from, `npm run
 * benchmark:calibrate-kernel` in packages/bench).
 */
export const SEARCH_KERNEL_UNIT_COSTS = {
  /**
   * A product-and-add in the kernels (dyadicSearchKernel.ts without rotations: client-side
   * g = D', BGV, NTT form, data primes below 2^32; keySwitchSearchKernel.ts with them).
   */
  multiply: 0.03,
  /**
   * A rotation (one Galois key switch) in the key-switching kernel (keySwitchSearchKernel.ts),
   * which runs every search with rotations when the scheme is BGV in NTT form and every
   * prime and t are below 2^31.
   */
  rotation: 1.4,
  /**
   * A hoisted baby step in the same kernel (RnsKernel.rotateHoisted): the automorphism of a
   * shared decomposition, the key products and the mod-down; and the decomposition itself,
   * once per query.
   */
  hoistedRotation: 0.93,
  decomposition: 0.47,
  /** The kernel's mod switch of a block result (two transforms per polynomial) and SEAL's load of it. */
  modSwitch: 0.41,
} as const
const {
  multiply: DYADIC_MULTIPLY,
  rotation: KERNEL_ROTATION,
  hoistedRotation: KERNEL_HOISTED_ROTATION,
  decomposition: KERNEL_DECOMPOSITION,
  modSwitch: KERNEL_MOD_SWITCH,
} = SEARCH_KERNEL_UNIT_COSTS
/**
 * Milliseconds of one unit at n=4096 with two data primes on this project's 2-core VM,
 * for estimates only (the calibration report's ms per unit; see UNIT_COST).
 */
export const SEARCH_UNIT_MS = 0.2
const UNIT_MS = SEARCH_UNIT_MS

/** What the cost model reads of the params: size, and whether the kernels apply. */
export type KernelFacts = Pick<
  ParamsFacts,
  'polyModulusDegree' | 'dataPrimeCount' | 'coeffModulusBits' | 'keySwitching' | 'plainModulusBits'
>

/** Operation counts for one query of `shape` with baby step g on `side`. */
export function countSearchOperations(
  shape: SearchShape,
  scheme: SearchScheme,
  side: BabyStepSide,
): SearchOperationCount {
  const g = shape.babyStep
  const blocks = planBlocks(shape)
  const queryCiphertexts = side === 'client' ? g : 1
  const babyRotations = side === 'server' ? g - 1 : 0
  let giantRotations = 0
  let multiplies = 0
  let innerSums = 0
  for (const block of blocks) {
    giantRotations += block.giantSteps - 1
    multiplies += block.diagonals
    innerSums += block.giantSteps
  }
  // BFV: the g query ciphertexts go into NTT form; each inner sum comes out of it
  // before its rotation (or before the mod switch).
  const nttTransforms = scheme === 'bfv' ? g + innerSums : 0
  return {
    queryCiphertexts,
    babyRotations,
    giantRotations,
    multiplies,
    additions: multiplies - blocks.length + giantRotations,
    nttTransforms,
    responseCiphertexts: blocks.length,
  }
}

/**
 * Estimated server milliseconds per query on this project's VM, decode and load to
 * save (a model, not a measurement).
 */
export function estimateServerMs(
  counts: SearchOperationCount,
  facts: KernelFacts,
  scheme: SearchScheme,
  nttForm: boolean,
  transfer: SearchTransfer = DEFAULT_TRANSFER,
  hoisted = false,
): number {
  const unit = UNIT_COST[scheme]
  const dyadic = usesDyadicKernel(counts, facts, scheme, nttForm)
  const keySwitch = !dyadic && usesKeySwitchKernel(counts, facts, scheme, nttForm)
  let units =
    counts.queryCiphertexts * QUERY_LOAD[transfer.query] + counts.responseCiphertexts * RESPONSE_SAVE[transfer.response]
  for (const key of Object.keys(unit) as (keyof SearchOperationCount)[]) {
    let perOp = key === 'multiplies' && !nttForm ? COEFFICIENT_FORM_MULTIPLY[scheme] : unit[key]
    if ((dyadic || keySwitch) && key === 'multiplies') perOp = DYADIC_MULTIPLY
    if ((dyadic || keySwitch) && key === 'additions') perOp = 0
    if (keySwitch && (key === 'babyRotations' || key === 'giantRotations')) perOp = KERNEL_ROTATION
    if (keySwitch && hoisted && key === 'babyRotations') perOp = KERNEL_HOISTED_ROTATION
    if (keySwitch && key === 'responseCiphertexts') perOp = KERNEL_MOD_SWITCH
    units += perOp * counts[key]
  }
  if (keySwitch && hoisted && counts.babyRotations > 0) units += KERNEL_DECOMPOSITION
  const size = (facts.polyModulusDegree / 4096) * (facts.dataPrimeCount / 2)
  return units * UNIT_MS * size
}

/**
 * Whether the sums run in he-core's WebAssembly kernel rather than SEAL's evaluator: no
 * rotations at all, BGV in NTT form, every data prime below 2^32. `DyadicSearch.prepare`
 * applies this rule, so the model and the kernel cannot disagree.
 */
export function usesDyadicKernel(
  counts: Pick<SearchOperationCount, 'babyRotations' | 'giantRotations'>,
  facts: Pick<ParamsFacts, 'dataPrimeCount' | 'coeffModulusBits'>,
  scheme: SearchScheme,
  nttForm: boolean,
): boolean {
  return (
    scheme === 'bgv' &&
    nttForm &&
    counts.babyRotations === 0 &&
    counts.giantRotations === 0 &&
    facts.coeffModulusBits.slice(0, facts.dataPrimeCount).every((bits) => bits <= 32)
  )
}

/** Bits of the largest prime (or t) the key-switching kernel takes. */
const KEY_SWITCH_KERNEL_BITS = 31

/**
 * Whether a search with rotations runs in he-core's key-switching kernel rather than
 * SEAL's evaluator: some rotation, BGV in NTT form, two data primes or more (the kernel
 * also mod-switches the results), every prime (special prime included) and the plain
 * modulus below 2^31. `KeySwitchSearch.prepare` applies this rule.
 */
export function usesKeySwitchKernel(
  counts: Pick<SearchOperationCount, 'babyRotations' | 'giantRotations'>,
  facts: Pick<ParamsFacts, 'coeffModulusBits' | 'keySwitching' | 'plainModulusBits' | 'dataPrimeCount'>,
  scheme: SearchScheme,
  nttForm: boolean,
): boolean {
  return (
    scheme === 'bgv' &&
    nttForm &&
    facts.keySwitching &&
    facts.dataPrimeCount >= 2 &&
    counts.babyRotations + counts.giantRotations > 0 &&
    facts.coeffModulusBits.every((bits) => bits <= KEY_SWITCH_KERNEL_BITS) &&
    (facts.plainModulusBits ?? KEY_SWITCH_KERNEL_BITS + 1) <= KEY_SWITCH_KERNEL_BITS
  )
}

/** Why a baby step was chosen: the candidates and their estimates. */
export interface BabyStepChoice {
  babyStep: number
  candidates: { babyStep: number; estimatedServerMs: number; queryCiphertexts: number; galoisSteps: number[] }[]
}

/**
 * Galois steps one query needs: 1 for server-side baby rotations (each rotates the last
 * by one), or 1 … g − 1 when they are hoisted (each rotates the query by its own step),
 * and g for giant rotations.
 */
export function galoisStepsFor(shape: SearchShape, side: BabyStepSide, hoisted = false): number[] {
  const steps = new Set<number>()
  if (side === 'server' && shape.babyStep > 1) steps.add(1)
  if (side === 'server' && hoisted) for (let a = 2; a < shape.babyStep; a++) steps.add(a)
  if (planBlocks(shape).some((block) => block.giantSteps > 1)) steps.add(shape.babyStep)
  return [...steps].sort((a, b) => a - b)
}

/**
 * Picks the baby step g minimising the estimated server total (load and save
 * included), among 1…D' (capped by `maxQueryCiphertexts` when the client sends the
 * baby steps). Ties go to fewer query ciphertexts (less upload), then fewer Galois keys.
 * Client-side, where rotations run in the key-switching kernel, a keyless candidate wins
 * outright when there is one.
 */
export function chooseBabyStep(
  shape: Omit<SearchShape, 'babyStep'>,
  scheme: SearchScheme,
  side: BabyStepSide,
  facts: KernelFacts,
  nttForm: boolean,
  maxQueryCiphertexts: number,
  transfer: SearchTransfer = DEFAULT_TRANSFER,
): BabyStepChoice {
  const limit = side === 'client' ? Math.min(shape.paddedDimension, maxQueryCiphertexts) : shape.paddedDimension
  const candidates: BabyStepChoice['candidates'] = []
  for (let g = 1; g <= limit; g++) {
    const withG = { ...shape, babyStep: g }
    const counts = countSearchOperations(withG, scheme, side)
    candidates.push({
      babyStep: g,
      estimatedServerMs: estimateServerMs(counts, facts, scheme, nttForm, transfer),
      queryCiphertexts: counts.queryCiphertexts,
      galoisSteps: galoisStepsFor(withG, side),
    })
  }
  // Client-side with rotations as cheap as the key-switching kernel makes them, a config
  // that needs no Galois keys at all (g = D' within the upload cap) is kept whenever there
  // is one: no key upload, no per-user keys in every worker and no key load on a cache
  // miss, none of which the per-query model prices.
  const cheapRotations = usesKeySwitchKernel({ babyRotations: 0, giantRotations: 1 }, facts, scheme, nttForm)
  const keyless = candidates.filter((candidate) => candidate.galoisSteps.length === 0)
  const pool = side === 'client' && cheapRotations && keyless.length > 0 ? keyless : candidates
  const best = [...pool].sort(
    (x, y) =>
      x.estimatedServerMs - y.estimatedServerMs ||
      x.queryCiphertexts - y.queryCiphertexts ||
      x.galoisSteps.length - y.galoisSteps.length,
  )[0]
  return { babyStep: best?.babyStep ?? 1, candidates }
}

/**
 * Worker CPU milliseconds a search job takes per millisecond of its estimate
 * (`estimatedServerMs`, which is in the plan model's own measure, made to compare plans).
 * The calibration benchmark's `search` cell (`pnpm --filter @sealbox/bench
 * benchmark:calibrate`, packages/bench/results/calibration/search-admission.md) checks it;
 * the runs that set it: SEARCH.md#where-the-cost-models-constants-come-from.
 */
export const SEARCH_CPU_PER_ESTIMATED_MS = 1

/**
 * A search job's cost in the units of the program cost model (`programCost`): `queries` ×
 * the per-query estimate of the search (`SearchConfig.estimatedServerMs`) in worker CPU
 * time, so the server's scheduler and budgets weigh search and program jobs on one scale.
 */
export function searchCost(config: { estimatedServerMs: number }, queries: number): number {
  return (queries * config.estimatedServerMs * SEARCH_CPU_PER_ESTIMATED_MS) / COST_UNIT_MS
}
