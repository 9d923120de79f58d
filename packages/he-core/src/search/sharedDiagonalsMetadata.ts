import { z } from 'zod'
import { HeError } from '../errors/HeError.ts'
import type { KeySwitchLayout } from './KeySwitchLayout.ts'
import type { SearchProcessingReport } from './processSearchDatabase.ts'

/*
 * What a thread that processed a database into a shared diagonal memory publishes beside
 * the diagonals (he-ring's DiagonalMemory.publish), for the threads that attach: where each
 * block's diagonals are, and how processing went. Read back through zod: the bytes come
 * from another thread's memory.
 */

const SharedDiagonalsSchema = z.object({
  v: z.literal(1),
  layout: z.object({
    configId: z.string(),
    plainWords: z.number().int().positive(),
    blocks: z.array(
      z.object({
        index: z.number().int().nonnegative(),
        start: z.number().int().nonnegative(),
        rows: z.array(z.number().int().nonnegative()),
      }),
    ),
    plaintextHeader: z.array(z.number().int().min(0).max(255)),
  }),
  report: z.object({
    milliseconds: z.number(),
    plaintexts: z.number().int(),
    bytes: z.number(),
    form: z.enum(['seal', 'kernel']),
    nttForm: z.boolean(),
    blocks: z.array(z.number().int()),
    cachedBlocks: z.number().int(),
  }),
  // Checked against the config by checkSearchClustering where it is used.
  clustering: z.unknown().optional(),
})

/** The published metadata of shared diagonals. */
export interface SharedDiagonals {
  layout: KeySwitchLayout
  report: SearchProcessingReport
  /** A cluster-private config's clustering (the order of the diagonals' rows). */
  clustering?: unknown
}

export function encodeSharedDiagonals(value: SharedDiagonals): Uint8Array {
  return new TextEncoder().encode(JSON.stringify({ v: 1, ...value }))
}

export function decodeSharedDiagonals(bytes: Uint8Array): SharedDiagonals {
  let json: unknown
  try {
    json = JSON.parse(new TextDecoder().decode(bytes))
  } catch (error) {
    throw new HeError('INVALID_INPUT', 'the shared diagonals carry no readable layout', { cause: error })
  }
  const parsed = SharedDiagonalsSchema.safeParse(json)
  if (!parsed.success) {
    throw new HeError('INVALID_INPUT', `the shared diagonals' layout is malformed: ${parsed.error.message}`, {
      cause: parsed.error,
    })
  }
  const { layout, report, clustering } = parsed.data
  return clustering === undefined ? { layout, report } : { layout, report, clustering }
}
