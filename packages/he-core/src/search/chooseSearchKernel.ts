import type { DiagonalMemory } from '@sealbox/he-ring'
import type { HeContext } from '../params/HeContext.ts'
import { DyadicSearch } from './dyadicSearchKernel.ts'
import { KeySwitchSearch } from './keySwitchSearchKernel.ts'
import type { SearchConfig } from './SearchConfig.ts'
import type { ProcessedSearchBlock, SearchKernel, SearchKernelChoice, SearchKernelName } from './SearchKernel.ts'
import { SealSearch } from './sealSearchKernel.ts'
import { usesDyadicKernel } from './searchCost.ts'

/**
 * The kernel that runs an index's searches, chosen once when the database is processed:
 * he-ring's sums kernel where the config has no rotation, its key-switching kernel where it
 * rotates, SEAL's evaluator where neither applies (the cost model's rules, so it prices
 * exactly the configs each kernel runs) or where `choice` is `'seal'`. The key-switching
 * kernel writes its diagonals into `diagonals` when given (shared by a node's threads).
 */
export function chooseSearchKernel(
  ctx: HeContext,
  config: SearchConfig,
  blocks: readonly ProcessedSearchBlock[],
  choice: SearchKernelChoice,
  diagonals?: DiagonalMemory,
): SearchKernel {
  return (
    DyadicSearch.prepare(ctx, config, blocks, choice) ??
    KeySwitchSearch.prepare(ctx, config, blocks, choice, diagonals) ??
    new SealSearch()
  )
}

/**
 * The kernel `chooseSearchKernel` will choose for `config`, known before processing: where
 * it is the key-switching kernel, processing streams each block into its diagonal memory
 * (and a processed-database cache keeps that form, u32 residues).
 */
export function plannedSearchKernel(
  ctx: HeContext,
  config: SearchConfig,
  choice: SearchKernelChoice,
): SearchKernelName {
  if (choice === 'auto' && usesDyadicKernel(config.operations, ctx.facts, config.scheme, config.nttForm))
    return 'dyadic'
  return KeySwitchSearch.applies(ctx, config, choice) ? 'keySwitch' : 'seal'
}
