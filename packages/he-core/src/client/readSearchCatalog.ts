import { HeError } from '../errors/HeError.ts'
import type { SearchCatalog } from '../search/SearchDatabase.ts'
import type { SearchCatalogPage } from './contract/catalogContract.ts'

/**
 * The whole search catalog from its pages, read in order from offset 0 until every row
 * is in. A page that starts elsewhere than asked, or that belongs to another database
 * (the server swapped it between two pages), is refused rather than stitched in.
 */
export async function readSearchCatalog(
  pageAt: (offset: number) => Promise<SearchCatalogPage>,
): Promise<SearchCatalog & { configId: string }> {
  const ids: Array<string | number> = []
  const metadata: unknown[] = []
  let hasMetadata = false
  let configId: string | undefined
  let total = Number.POSITIVE_INFINITY
  while (ids.length < total) {
    const page = await pageAt(ids.length)
    if (configId !== undefined && page.configId !== configId) {
      throw new HeError('CONFLICT', 'the server changed its database while the catalog was being read; read it again')
    }
    if (page.offset !== ids.length || (page.ids.length === 0 && ids.length < page.total)) {
      throw new HeError('INVALID_INPUT', `the server sent catalog rows from ${page.offset}, expected ${ids.length}`)
    }
    configId = page.configId
    total = page.total
    ids.push(...page.ids)
    if (page.metadata) {
      hasMetadata = true
      metadata.push(...page.metadata.map((entry) => (entry === null ? undefined : entry)))
    }
  }
  return { configId: configId ?? '', ids, ...(hasMetadata ? { metadata } : {}) }
}
