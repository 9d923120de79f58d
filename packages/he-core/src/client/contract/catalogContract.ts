import { z } from 'zod'
import { API_PREFIX, NoBodySchema, type RouteContract } from './routeContract.ts'

/** Rows in one catalog page at most (the server's default page size too). */
export const SEARCH_CATALOG_MAX_PAGE = 5000

/**
 * A count in a query string: decimal digits only. `z.coerce.number()` would take what
 * `Number()` takes — `0x10`, `" 5 "`, `""` (as 0), `1e1`, `-0` — so one page had many names.
 */
function queryCount(field: string) {
  return z.union([
    z.number().int(),
    z
      .string()
      .regex(/^\d{1,15}$/, `${field} must be a decimal integer (digits only)`)
      .transform(Number),
  ])
}

/** `GET /api/v1/search/catalog?offset=&limit=`: which rows to return. */
export const SearchCatalogQuerySchema = z
  .object({
    offset: queryCount('offset').pipe(z.number().int().min(0)).default(0),
    limit: queryCount('limit')
      .pipe(z.number().int().min(1).max(SEARCH_CATALOG_MAX_PAGE))
      .default(SEARCH_CATALOG_MAX_PAGE),
  })
  .strict()
export type SearchCatalogQuery = z.input<typeof SearchCatalogQuerySchema>

/**
 * One page of the server's search catalog: the public ids and metadata of rows
 * `offset … offset + ids.length − 1` (never vectors). `metadata` is absent when the
 * database has none; a row without metadata is `null`.
 */
export const SearchCatalogPageSchema = z
  .object({
    /** The search config the catalog belongs to (a new database is a new configId). */
    configId: z.string(),
    /** Rows in the whole database. */
    total: z.number().int().min(0),
    offset: z.number().int().min(0),
    ids: z.array(z.union([z.string(), z.number()])),
    metadata: z.array(z.unknown()).optional(),
  })
  .strict()
export type SearchCatalogPage = z.infer<typeof SearchCatalogPageSchema>

/**
 * The public catalog of the served database, paged. Public by design, like the search
 * config (no bearer token): clients name their hits with it after decrypting.
 */
export const searchCatalogRoute = {
  method: 'GET',
  path: `${API_PREFIX}/search/catalog`,
  tags: ['search'],
  summary: 'Ids and metadata of the database rows, paged (no vectors)',
  description: `Query: \`offset\` (default 0), \`limit\` (1–${SEARCH_CATALOG_MAX_PAGE}, default ${SEARCH_CATALOG_MAX_PAGE}). A row without metadata is null. Each page has a strong ETag; send it back in If-None-Match to get 304 (no body) instead of the page.`,
  querystring: SearchCatalogQuerySchema,
  response: { 200: SearchCatalogPageSchema, 304: NoBodySchema },
} as const satisfies RouteContract
