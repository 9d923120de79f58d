import { rnsKernelCompiles } from '@sealbox/he-ring'
import { HeError } from '../errors/HeError.ts'
import { describeParams } from '../params/describeParams.ts'
import type { SearchDiagonalForm } from './processSearchDatabase.ts'
import type { SearchConfig } from './SearchConfig.ts'
import { usesKeySwitchKernel } from './searchCost.ts'
import type { SearchBlock } from './searchLayout.ts'

const GiB = 2 ** 30
const MiB = 2 ** 20

/**
 * SEAL's form (plaintexts in each worker's SEAL heap) above this many bytes is refused:
 * the SEAL heap is one 4 GiB WebAssembly memory, and SEAL, its context, keys and queries
 * share it.
 */
export const SEARCH_MAX_PROCESSED_BYTES = 2 * GiB

/**
 * The key-switching kernel's form (u32 residues in one diagonal memory, shared by a node's
 * worker threads) above this many bytes is refused: a 32-bit WebAssembly memory holds
 * 4 GiB, less its header page and the layout published beside the diagonals (a
 * cluster-private config's clustering too: a few MiB at a million rows).
 */
export const SEARCH_MAX_KERNEL_DIAGONAL_BYTES = 4 * GiB - 64 * MiB

/** What one processed copy of a search database holds, and where. */
export interface SearchProcessedMemory {
  /**
   * `kernel`: the search runs in the key-switching kernel, and processing streams each
   * block into its diagonal memory as u32 residues (L × n × 4 bytes a diagonal);
   * `seal`: SEAL's plaintexts stay in the SEAL heap (L × n × 8 bytes, coefficient form n × 8).
   */
  form: SearchDiagonalForm
  /** Bytes of one processed copy where it is held. */
  bytes: number
  /** The most SEAL's heap holds of it while processing: all of it in SEAL's form, one plaintext in the kernel's. */
  sealPeakBytes: number
  /** The limit of one copy in this form. */
  limit: number
  /** Diagonals in the copy. */
  diagonals: number
  nttForm: boolean
}

/** The fields of a config the count reads (all a resolved config has). */
export type SearchMemoryShape = Pick<
  SearchConfig,
  'params' | 'scheme' | 'nttForm' | 'operations' | 'polyModulusDegree' | 'blocks'
>

/**
 * How much one processed copy of `config`'s database holds (of `blocks` only: a shard's),
 * in the form it will be held in: the kernel form where `PrivateSearchIndex.process` will
 * stream into the key-switching kernel (BGV in NTT form with rotations, primes below 2^31,
 * a host that compiles the kernel), SEAL's form everywhere else.
 */
export function searchProcessedMemory(
  config: SearchMemoryShape,
  blocks: readonly SearchBlock[] = config.blocks,
): SearchProcessedMemory {
  const facts = describeParams(config.params)
  const n = config.polyModulusDegree
  const primes = config.nttForm ? facts.dataPrimeCount : 1
  const diagonals = blocks.reduce((sum, block) => sum + block.diagonals, 0)
  const sealBytes = (count: number) => count * n * 8 * primes
  const kernel = usesKeySwitchKernel(config.operations, facts, config.scheme, config.nttForm) && rnsKernelCompiles()
  if (kernel) {
    return {
      form: 'kernel',
      bytes: diagonals * n * 4 * facts.dataPrimeCount,
      // Each diagonal is deleted from SEAL's heap once its residues are in the kernel's memory.
      sealPeakBytes: sealBytes(Math.min(1, diagonals)),
      limit: SEARCH_MAX_KERNEL_DIAGONAL_BYTES,
      diagonals,
      nttForm: true,
    }
  }
  return {
    form: 'seal',
    bytes: sealBytes(diagonals),
    sealPeakBytes: sealBytes(diagonals),
    limit: SEARCH_MAX_PROCESSED_BYTES,
    diagonals,
    nttForm: config.nttForm,
  }
}

/**
 * Where one processed copy lives, as every message about it says it (after its size):
 * "of u32 residues in the key-switching kernel's diagonal memory (one copy per node…)",
 * or "of NTT-form plaintexts in each worker's SEAL heap".
 */
export function searchMemoryPlace(memory: Pick<SearchProcessedMemory, 'form' | 'nttForm'>): string {
  return memory.form === 'kernel'
    ? "of u32 residues in the key-switching kernel's diagonal memory (one copy per node, shared by its worker threads; one per process under EXECUTOR=process)"
    : `of ${memory.nttForm ? 'NTT' : 'coefficient'}-form plaintexts in each worker's SEAL heap`
}

/** GiB with one decimal, as refusals print them. */
export function gibibytes(bytes: number): string {
  return `${(bytes / GiB).toFixed(1)} GiB`
}

/**
 * Refuses (LIMIT_EXCEEDED, `details.field` = `rows`) a processed copy above its form's
 * limit, or above `maxBytes` when given (Infinity: a client, or a shard's whole plan).
 * `what` names the shape (`V=… × D'=…`).
 */
export function assertSearchMemoryFits(memory: SearchProcessedMemory, what: string, maxBytes?: number): void {
  const limit = maxBytes ?? memory.limit
  if (memory.bytes <= limit) return
  const where = `${searchMemoryPlace(memory)}; the limit is ${gibibytes(limit)} of ${memory.form === 'kernel' ? 'its 4 GiB (one WebAssembly memory)' : 'the 4 GiB WASM heap'}`
  throw new HeError(
    'LIMIT_EXCEEDED',
    `rows: ${what} needs ${gibibytes(memory.bytes)} ${where} (SEARCH_SHARD splits a database across nodes)`,
    { details: { field: 'rows', limit, bytes: memory.bytes, form: memory.form } },
  )
}
