import type { ParmsIdType, SEALContext } from 'node-seal/throws'
import type { HasParmsId } from './HasParmsId.ts'

/**
 * What the table walks: a built SEAL context and its owner (an `HeContext`). Structural,
 * so `HeContext` can use the table without the two modules importing each other.
 */
export interface ModulusChainOwner {
  readonly context: SEALContext
}

/** One level of the modulus chain. */
export interface ChainLevel {
  /** SEAL's chain index: the top data level when fresh, 0 at the last level. */
  chainIndex: number
  /** Bits of the coefficient modulus at this level (a CKKS scale must stay below it). */
  totalBits: number
}

interface LevelTable {
  byParmsId: Map<string, ChainLevel>
}

// One table per context, built on first use: a few SEAL calls, then pure lookups.
const tables = new WeakMap<ModulusChainOwner, LevelTable>()

function keyOf(parmsId: ParmsIdType): string {
  return Array.from(parmsId.values() as BigUint64Array).join(',')
}

function buildTable(ctx: ModulusChainOwner): LevelTable {
  const byParmsId = new Map<string, ChainLevel>()
  // Walk by chain index: past the last level, nextContextData() returns a
  // non-null handle to nothing rather than null.
  let data = ctx.context.firstContextData()
  try {
    for (;;) {
      const parmsId = data.parmsId()
      const chainIndex = data.chainIndex()
      byParmsId.set(keyOf(parmsId), { chainIndex, totalBits: data.totalCoeffModulusBitCount() })
      parmsId.delete()
      if (chainIndex === 0) break
      const next = data.nextContextData()
      data.delete()
      data = next
    }
  } finally {
    data.delete()
  }
  return { byParmsId }
}

/**
 * The chain level of a ciphertext or CKKS plaintext under `ctx`, or undefined when
 * it is at no level of this context (another context, an empty object, or a BFV/BGV
 * plaintext, which has no level). Unlike `getContextData`, never reads garbage.
 */
export function chainLevelOf(ctx: ModulusChainOwner, object: HasParmsId): ChainLevel | undefined {
  let table = tables.get(ctx)
  if (!table) {
    table = buildTable(ctx)
    tables.set(ctx, table)
  }
  const parmsId = object.parmsId()
  try {
    return table.byParmsId.get(keyOf(parmsId))
  } finally {
    parmsId.delete()
  }
}
