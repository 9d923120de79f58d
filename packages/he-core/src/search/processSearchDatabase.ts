import type { Plaintext } from 'node-seal/throws'
import { HeError } from '../errors/HeError.ts'
import { sealCall } from '../errors/toHeError.ts'
import type { HeContext } from '../params/HeContext.ts'
import { adopt, type SealHandle, withScope } from '../scope/SealScope.ts'
import { type SearchConfig, searchShapeOf } from './SearchConfig.ts'
import type { SearchDatabase } from './SearchDatabase.ts'
import type { ProcessedSearchBlock } from './SearchKernel.ts'
import { scaleDatabaseVectors } from './scaleVectors.ts'
import { diagonalSlots, type SearchBlock } from './searchLayout.ts'

/** How long processing took and what it produced. */
export interface SearchProcessingReport {
  milliseconds: number
  /** Encoded plaintexts kept (Σ over blocks of the diagonals). */
  plaintexts: number
  /** Their size in the WASM heap: n × 8 bytes × (data primes in NTT form, 1 in coefficient form). */
  bytes: number
  nttForm: boolean
  blocks: number[]
}

/** A half-open range of block indices, for splitting one query across workers. */
export interface SearchBlockRange {
  start: number
  end: number
}

/** Throws PARAMS_MISMATCH unless `ctx` was built from the config's parameters. */
export function assertSearchContext(ctx: HeContext, config: SearchConfig): void {
  const same =
    ctx.params.scheme === config.params.scheme &&
    ctx.params.polyModulusDegree === config.params.polyModulusDegree &&
    ctx.params.security === config.params.security &&
    ctx.params.coeffModulusBits.join() === config.params.coeffModulusBits.join() &&
    ctx.plainModulus === BigInt(config.plainModulus)
  if (!same) {
    throw new HeError(
      'PARAMS_MISMATCH',
      `the context is ${ctx.scheme} n=${ctx.params.polyModulusDegree} [${ctx.params.coeffModulusBits.join(', ')}] t=${ctx.plainModulus}, the search config wants ${config.scheme} n=${config.polyModulusDegree} [${config.params.coeffModulusBits.join(', ')}] t=${config.plainModulus}`,
    )
  }
}

/** The blocks of `config` inside `range` (all by default); an empty or out-of-range range is an error. */
export function selectBlocks(config: SearchConfig, range: SearchBlockRange | undefined): SearchBlock[] {
  if (range === undefined) return config.blocks
  const { start, end } = range
  if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || end > config.blocks.length || start >= end) {
    throw new HeError(
      'INVALID_INPUT',
      `block range [${start}, ${end}) is not a non-empty range of the ${config.blocks.length} blocks`,
    )
  }
  return config.blocks.slice(start, end)
}

/**
 * Scales the database and encodes every generalized diagonal of the selected blocks
 * (pre-rotated for the giant steps), in NTT form at the first data level unless the
 * config says coefficient form. The plaintexts are adopted: `owned` receives them.
 */
export function processSearchDatabase(
  ctx: HeContext,
  database: SearchDatabase,
  config: SearchConfig,
  range: SearchBlockRange | undefined,
  owned: SealHandle[],
): { blocks: ProcessedSearchBlock[]; report: SearchProcessingReport } {
  assertSearchContext(ctx, config)
  const started = performance.now()
  const scaled = scaleDatabaseVectors(config, database)
  const shape = searchShapeOf(config)
  const encoder = ctx.batchEncoder
  if (!encoder) throw new HeError('SCHEME_MISMATCH', 'private search needs BFV or BGV batching')
  const slots = new BigInt64Array(config.polyModulusDegree)
  const blocks: ProcessedSearchBlock[] = []
  let count = 0
  withScope((scope) => {
    const firstParmsId = scope.track(ctx.context.firstParmsId())
    for (const block of selectBlocks(config, range)) {
      const plaintexts: Plaintext[][] = []
      for (let b = 0; b < block.giantSteps; b++) {
        const row: Plaintext[] = []
        for (let a = 0; a < config.babyStep && b * config.babyStep + a < block.diagonals; a++) {
          diagonalSlots(shape, block, scaled, b, a, slots)
          const plaintext = new ctx.seal.Plaintext()
          owned.push(adopt(plaintext))
          sealCall('encode diagonal', () => {
            encoder.encode(slots, plaintext)
            if (config.nttForm) ctx.evaluator.plainTransformToNttInplace(plaintext, firstParmsId)
          })
          row.push(plaintext)
          count++
        }
        plaintexts.push(row)
      }
      blocks.push({ block, plaintexts })
    }
  })
  const primes = config.nttForm ? ctx.facts.dataPrimeCount : 1
  return {
    blocks,
    report: {
      milliseconds: performance.now() - started,
      plaintexts: count,
      bytes: count * config.polyModulusDegree * 8 * primes,
      nttForm: config.nttForm,
      blocks: blocks.map(({ block }) => block.index),
    },
  }
}
