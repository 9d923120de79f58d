import { z } from 'zod'
import { API_PREFIX, NoBodySchema, type RouteContract } from './routeContract.ts'

/** Rows in one catalog page at most (the server's default page size too). */
export const SEARCH_CATALOG_MAX_PAGE = 5000

/** Largest catalog `offset`: the most a query string's 15 decimal digits can say. */
export const SEARCH_CATALOG_MAX_OFFSET = 999_999_999_999_999

/**
 * A count in a query string: decimal digits only. `z.coerce.number()` would take what
 * `Number()` takes — `0x10`, `" 5 "`, `""` (as 0), `1e1`, `-0` — so one page had many names.
 * The bounds sit on both branches, and `digits` admits exactly the same numbers, so the
 * OpenAPI spec generated from this schema states what the server enforces.
 */
function queryCount(bounds: { min: number; max: number; digits: RegExp }) {
  const count = z.number().int().min(bounds.min).max(bounds.max)
  const message = `must be a decimal integer from ${bounds.min} to ${bounds.max} (digits only)`
  // One message for both branches: a union's own would say only "Invalid input".
  return z.union([count, z.string().regex(bounds.digits).transform(Number)], { error: message }).pipe(count)
}

/** `GET /api/v1/search/catalog?offset=&limit=`: which rows to return. */
export const SearchCatalogQuerySchema = z
  .object({
    offset: queryCount({
      min: 0,
      max: SEARCH_CATALOG_MAX_OFFSET,
      digits: /^\d{1,15}$/,
    }).default(0),
    limit: queryCount({
      min: 1,
      max: SEARCH_CATALOG_MAX_PAGE,
      // 1–5000 (SEARCH_CATALOG_MAX_PAGE), no leading zeros; catalogContract.test.ts checks it against the bounds.
      digits: /^(?:[1-9]\d{0,2}|[1-4]\d{3}|5000)$/,
    }).default(SEARCH_CATALOG_MAX_PAGE),
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
    offset: z.number().int().min(0).max(SEARCH_CATALOG_MAX_OFFSET),
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
  description: `Query: \`offset\` (0–${SEARCH_CATALOG_MAX_OFFSET}, default 0), \`limit\` (1–${SEARCH_CATALOG_MAX_PAGE}, default ${SEARCH_CATALOG_MAX_PAGE}). A row without metadata is null. Each page has a strong ETag; send it back in If-None-Match to get 304 (no body) instead of the page.`,
  querystring: SearchCatalogQuerySchema,
  response: { 200: SearchCatalogPageSchema, 304: NoBodySchema },
} as const satisfies RouteContract
