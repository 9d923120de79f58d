import { z } from 'zod'
import { SEARCH_DATABASE_FORMATS } from '../search/parseSearchDatabase.ts'

/**
 * Where the served database's rows come from. A synthetic database is public (a client
 * can rebuild it from its seed), and so is the demo (the chemical elements, embedded
 * with he-core's public `embedText`); a file is named by its base name only, never its
 * path on the server.
 */
export const SearchDatabaseSourceSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('synthetic'),
    seed: z.number().int(),
    rows: z.number().int().min(1),
    dimension: z.number().int().min(1),
  }),
  /** sealbox's named demo rows (he-core's `demoSearchDatabase`): query them with `embedText`. */
  z.object({
    type: z.literal('demo'),
    name: z.string().min(1),
    rows: z.number().int().min(1),
    dimension: z.number().int().min(1),
  }),
  z.object({
    type: z.literal('file'),
    /** The file's base name. */
    name: z.string().min(1),
    format: z.enum(SEARCH_DATABASE_FORMATS),
  }),
])
export type SearchDatabaseSource = z.infer<typeof SearchDatabaseSourceSchema>

/** The served database as `GET /api/v1/search/config` reports it (`database`). */
export const ServedSearchDatabaseSchema = z.object({
  source: SearchDatabaseSourceSchema,
  rows: z.number().int().min(1),
  dimension: z.number().int().min(1),
  /** How processing went at warm-up (he-core's `SearchProcessingReport`). */
  processing: z.object({
    milliseconds: z.number(),
    plaintexts: z.number().int(),
    /** Bytes of the processed diagonals where they are held (SEAL's heap, or the kernel's diagonal memory: `form`). */
    bytes: z.number(),
    /** `seal`: SEAL plaintexts in each worker's heap; `kernel`: u32 residues in the key-switching kernel's memory. Absent from older servers. */
    form: z.enum(['seal', 'kernel']).optional(),
    nttForm: z.boolean(),
    blocks: z.array(z.number().int()),
    /** Blocks read from the server's processed-database cache instead of encoded (absent: no cache). */
    cachedBlocks: z.number().int().optional(),
  }),
})
export type ServedSearchDatabase = z.infer<typeof ServedSearchDatabaseSchema>

/** A person's label for a database source: `synthetic (seed 7)`, `chemical elements (demo)`, or the file's name. */
export function searchDatabaseSourceLabel(source: SearchDatabaseSource): string {
  switch (source.type) {
    case 'synthetic':
      return `synthetic (seed ${source.seed})`
    case 'demo':
      return `${source.name} (demo)`
    case 'file':
      return source.name
    default: {
      const unknown: never = source
      return String(unknown)
    }
  }
}
