import { createHash } from 'node:crypto'
import type { SearchCatalogPage } from '@sealbox/he-core/client'
import type { ServedSearchCatalog } from './SearchSummary.ts'

/**
 * The served database's catalog, cut into pages for `GET /api/v1/search/catalog`. The
 * ETag of a page is a hash of the whole catalog with the page's bounds, so a client
 * that already holds a page revalidates it for a few bytes (304) and downloads the
 * catalog once per database.
 */
export class SearchCatalogPages {
  readonly configId: string
  readonly #catalog: ServedSearchCatalog
  readonly #hash: string

  constructor(configId: string, catalog: ServedSearchCatalog) {
    this.configId = configId
    this.#catalog = catalog
    this.#hash = createHash('sha256').update(configId).update(JSON.stringify(catalog)).digest('base64url').slice(0, 22)
  }

  get total(): number {
    return this.#catalog.ids.length
  }

  /** The strong ETag of the page at `offset` of at most `limit` rows. */
  etag(offset: number, limit: number): string {
    return `"${this.#hash}-${offset}-${limit}"`
  }

  /** Rows `offset … offset + limit − 1` (fewer at the end; none past it). */
  page(offset: number, limit: number): SearchCatalogPage {
    const end = Math.min(this.total, offset + limit)
    const ids = this.#catalog.ids.slice(offset, end)
    const metadata = this.#catalog.metadata?.slice(offset, end)
    return { configId: this.configId, total: this.total, offset, ids, ...(metadata ? { metadata } : {}) }
  }
}
