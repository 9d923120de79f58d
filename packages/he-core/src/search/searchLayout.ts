/*
 * Where every database value and query value sits in the batching slots.
 *
 * BFV/BGV batching views n slots as a 2 × (n/2) matrix; `rotateRows(ct, s)` turns each
 * row left by s. The query q (padded to D' = nextPow2(D)) is repeated along each row
 * with period D', so a row rotation by k shows slot c the value q[(c + k) mod D'] — as
 * long as D' divides n/2. Row 1 holds the same repetition shifted by D'/2 (the client
 * writes it that way), which lets a block of at most n/2 rows be *folded*: each
 * database row sits in both matrix rows and each half sums half of the D' diagonals,
 * so the block needs D'/2 plaintext multiplies instead of D'. The client adds the two
 * halves after decryption.
 *
 * Generalized diagonal k of a block: diag_k[ρ][c] = X[row(ρ, c)][(c + k + ρ·shift) mod D'].
 * Then Σ_k diag_k ⊙ rot_k(query) puts Σ_j X[row][j]·q[j] in the row's slot(s). With
 * baby step g and giant step b (k = g·b + a), the server computes
 * Σ_b rot_{g·b}(Σ_a rot_{−g·b}(diag_{g·b+a}) ⊙ rot_a(query)) (Halevi–Shoup), so the
 * plaintexts are stored pre-rotated by −g·b and only g−1 baby and h−1 giant rotations
 * run per block.
 */

import { z } from 'zod'

/** One block of at most n database rows: one response ciphertext. */
export const SearchBlockSchema = z
  .object({
    /** Position in the response (0-based). */
    index: z.number().int(),
    /** Database row of the block's first slot. */
    firstRow: z.number().int(),
    /** Database rows in this block. */
    rows: z.number().int(),
    /** Rows ≤ n/2 and D' ≥ 2: every row uses both matrix rows, half the diagonals each. */
    folded: z.boolean(),
    /** Generalized diagonals multiplied for this block: D', or D'/2 when folded. */
    diagonals: z.number().int(),
    /** Giant steps: ceil(diagonals / g). */
    giantSteps: z.number().int(),
  })
  .strict()
export type SearchBlock = z.infer<typeof SearchBlockSchema>

/** The numbers the layout depends on. */
export interface SearchShape {
  polyModulusDegree: number
  dimension: number
  paddedDimension: number
  rows: number
  babyStep: number
}

export function nextPowerOfTwo(value: number): number {
  let power = 1
  while (power < value) power *= 2
  return power
}

/** Splits V rows into blocks of n rows; a last block of at most n/2 rows is folded. */
export function planBlocks(shape: SearchShape): SearchBlock[] {
  const n = shape.polyModulusDegree
  const blocks: SearchBlock[] = []
  for (let firstRow = 0, index = 0; firstRow < shape.rows; firstRow += n, index++) {
    const rows = Math.min(n, shape.rows - firstRow)
    const folded = rows <= n / 2 && shape.paddedDimension >= 2
    const diagonals = folded ? shape.paddedDimension / 2 : shape.paddedDimension
    blocks.push({ index, firstRow, rows, folded, diagonals, giantSteps: Math.ceil(diagonals / shape.babyStep) })
  }
  return blocks
}

/** The shift of matrix row 1 against row 0 in the query (D'/2; 0 when D' = 1). */
export function rowShift(paddedDimension: number): number {
  return paddedDimension >= 2 ? paddedDimension / 2 : 0
}

/**
 * Slot values of query ciphertext `a` (the a-th baby rotation; 0 for the one the
 * server rotates itself): slot (ρ, c) holds q[(c + a + ρ·shift) mod D'], 0 past D.
 */
export function querySlots(shape: SearchShape, query: ArrayLike<number>, a: number): BigInt64Array {
  const n = shape.polyModulusDegree
  const half = n / 2
  const dPad = shape.paddedDimension
  const shift = rowShift(dPad)
  // One period per matrix row, then repeated: D' divides n/2.
  const period = [0, 1].map((rho) =>
    Array.from({ length: dPad }, (_, c) => {
      const j = (c + a + rho * shift) % dPad
      return j < shape.dimension ? BigInt(query[j] ?? 0) : 0n
    }),
  )
  const slots = new BigInt64Array(n)
  for (let rho = 0; rho < 2; rho++) {
    const values = period[rho] as bigint[]
    for (let c = 0; c < half; c++) slots[rho * half + c] = values[c % dPad] as bigint
  }
  return slots
}

/**
 * Slot values of the stored plaintext for (block, giant step b, baby step a): diagonal
 * k = g·b + a pre-rotated right by g·b inside each matrix row. `scaled` holds the
 * scaled database row-major (V × D). Slots with no row are 0.
 */
export function diagonalSlots(
  shape: SearchShape,
  block: SearchBlock,
  scaled: Int32Array,
  b: number,
  a: number,
  out: BigInt64Array,
): BigInt64Array {
  const n = shape.polyModulusDegree
  const half = n / 2
  const dim = shape.dimension
  const dPad = shape.paddedDimension
  const shift = rowShift(dPad)
  const giant = shape.babyStep * b
  const k = giant + a
  out.fill(0n)
  for (let rho = 0; rho < 2; rho++) {
    for (let c = 0; c < half; c++) {
      // Pre-rotation: stored[c] = diag[c − g·b] (indices inside the n/2 row).
      const source = (c - giant + half) % half
      const offset = block.folded ? source : rho * half + source
      if (offset >= block.rows) continue
      const j = (source + k + rho * shift) % dPad
      if (j >= dim) continue
      out[rho * half + c] = BigInt(scaled[(block.firstRow + offset) * dim + j] as number)
    }
  }
  return out
}

/**
 * Adds a decrypted block's slots into per-row scores: slot (ρ, c) of an unfolded
 * block is row firstRow + ρ·n/2 + c; a folded block's row firstRow + c is the sum of
 * both matrix rows at c.
 */
export function scatterBlockScores(
  shape: SearchShape,
  block: SearchBlock,
  slots: ArrayLike<bigint>,
  scores: Float64Array,
): void {
  const half = shape.polyModulusDegree / 2
  for (let offset = 0; offset < block.rows; offset++) {
    const value = block.folded
      ? Number(slots[offset] as bigint) + Number(slots[half + offset] as bigint)
      : Number(slots[offset] as bigint)
    scores[block.firstRow + offset] = value
  }
}

/** Slots of a block that hold no row (they must decrypt to 0). */
export function isUnusedSlot(shape: SearchShape, block: SearchBlock, slot: number): boolean {
  const half = shape.polyModulusDegree / 2
  const offset = block.folded ? slot % half : slot
  return offset >= block.rows
}
