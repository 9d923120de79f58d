import {
  type BabyStepSide,
  countSearchOperations,
  estimateServerMs,
  galoisStepsFor,
  type KernelFacts,
  SEARCH_WIRE_ENCODINGS,
  type SearchOperationCount,
  type SearchTransfer,
  type SearchWireEncoding,
} from './searchCost.ts'
import {
  ciphertextWireBytes,
  estimateEndToEnd,
  type SearchEndToEndEstimate,
  type SearchLinkRates,
  transferMs,
} from './searchEndToEnd.ts'
import type { SearchShape } from './searchLayout.ts'
import type { SearchScheme } from './searchParams.ts'

/** What the user fixed; everything left out is chosen. */
export interface SearchPlanConstraints {
  babySteps?: BabyStepSide | undefined
  babyStep?: number | undefined
  queryEncoding?: SearchWireEncoding | undefined
  responseEncoding?: SearchWireEncoding | undefined
  maxQueryCiphertexts: number
  nttForm: boolean
  /** False for parameters with one prime: no Galois keys, so no rotation at all. */
  keySwitching: boolean
  /** Server-side baby steps hoisted (a Galois key per step 1 … g − 1; see `galoisStepsFor`). */
  hoistBabySteps?: boolean | undefined
}

/** One candidate plan and what the models say it costs. */
export interface SearchPlanCandidate {
  babySteps: BabyStepSide
  babyStep: number
  transfer: SearchTransfer
  galoisSteps: number[]
  operations: SearchOperationCount
  estimatedServerMs: number
  estimate: SearchEndToEndEstimate
}

/** The chosen plan and every candidate of its search (for reports). */
export interface SearchPlan extends SearchPlanCandidate {
  candidates: SearchPlanCandidate[]
}

type Facts = KernelFacts

/**
 * The encoding of one ciphertext that costs the least over this link: its server-side
 * load (or save) plus its transfer. It does not depend on g, so it is chosen once.
 */
export function cheapestEncoding(
  direction: 'query' | 'response',
  fixed: SearchWireEncoding | undefined,
  facts: Facts,
  scheme: SearchScheme,
  nttForm: boolean,
  link: SearchLinkRates,
): SearchWireEncoding {
  if (fixed) return fixed
  const widths = facts.coeffModulusBits.slice(0, direction === 'query' ? facts.dataPrimeCount : 1)
  const zero = {
    queryCiphertexts: 0,
    babyRotations: 0,
    giantRotations: 1, // keeps the model out of the kernel rule, which prices no loads
    multiplies: 0,
    additions: 0,
    nttTransforms: 0,
    responseCiphertexts: 0,
  }
  const cost = (encoding: SearchWireEncoding) => {
    const counts = { ...zero, [direction === 'query' ? 'queryCiphertexts' : 'responseCiphertexts']: 1 }
    const transfer = { query: encoding, response: encoding }
    const server =
      estimateServerMs(counts, facts, scheme, nttForm, transfer) -
      estimateServerMs(zero, facts, scheme, nttForm, transfer)
    const bytes = ciphertextWireBytes(encoding, facts.polyModulusDegree, widths, direction === 'query')
    return server + transferMs(bytes, direction === 'query' ? link.upMbps : link.downMbps)
  }
  return [...SEARCH_WIRE_ENCODINGS].sort((a, b) => cost(a) - cost(b))[0] as SearchWireEncoding
}

/**
 * Chooses who computes the baby steps, g, and how queries and responses travel, to
 * minimise the modelled end-to-end time of one query over `link` (client encryption,
 * upload, one round trip, the server's whole time, download, decryption). Ties go to
 * the lower server time (the server's CPU per query), then fewer query ciphertexts,
 * then fewer Galois keys.
 */
export function chooseSearchPlan(
  shape: Omit<SearchShape, 'babyStep'>,
  scheme: SearchScheme,
  facts: Facts,
  constraints: SearchPlanConstraints,
  link: SearchLinkRates,
): SearchPlan {
  const transfer: SearchTransfer = {
    query: cheapestEncoding('query', constraints.queryEncoding, facts, scheme, constraints.nttForm, link),
    response: cheapestEncoding('response', constraints.responseEncoding, facts, scheme, constraints.nttForm, link),
  }
  const sides: BabyStepSide[] = constraints.babySteps ? [constraints.babySteps] : ['client', 'server']
  const candidates: SearchPlanCandidate[] = []
  for (const side of sides) {
    const limit =
      side === 'client' ? Math.min(shape.paddedDimension, constraints.maxQueryCiphertexts) : shape.paddedDimension
    const gs =
      constraints.babyStep === undefined ? Array.from({ length: limit }, (_, i) => i + 1) : [constraints.babyStep]
    for (const g of gs) {
      const withG = { ...shape, babyStep: g }
      const hoisted = side === 'server' && constraints.hoistBabySteps === true
      const galoisSteps = galoisStepsFor(withG, side, hoisted)
      // Parameters that cannot rotate: leave out what needs keys, unless the user pinned it (then resolveSearchConfig says why it fails).
      const pinned = constraints.babyStep !== undefined || constraints.babySteps !== undefined
      if (galoisSteps.length > 0 && !constraints.keySwitching && !pinned) continue
      const operations = countSearchOperations(withG, scheme, side)
      const estimatedServerMs = estimateServerMs(operations, facts, scheme, constraints.nttForm, transfer, hoisted)
      const estimate = estimateEndToEnd(operations, galoisSteps.length, facts, transfer, estimatedServerMs, link)
      candidates.push({ babySteps: side, babyStep: g, transfer, galoisSteps, operations, estimatedServerMs, estimate })
    }
  }
  const best = [...candidates].sort(
    (x, y) =>
      x.estimate.totalMs - y.estimate.totalMs ||
      x.estimatedServerMs - y.estimatedServerMs ||
      x.operations.queryCiphertexts - y.operations.queryCiphertexts ||
      x.galoisSteps.length - y.galoisSteps.length,
  )[0]
  if (!best) {
    // Only when every candidate needs keys the parameters cannot have: client-side g = D'.
    const g = shape.paddedDimension
    const withG = { ...shape, babyStep: g }
    const operations = countSearchOperations(withG, scheme, 'client')
    const estimatedServerMs = estimateServerMs(operations, facts, scheme, constraints.nttForm, transfer)
    const estimate = estimateEndToEnd(operations, 0, facts, transfer, estimatedServerMs, link)
    return {
      babySteps: 'client',
      babyStep: g,
      transfer,
      galoisSteps: [],
      operations,
      estimatedServerMs,
      estimate,
      candidates,
    }
  }
  return { ...best, candidates }
}
