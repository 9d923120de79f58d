import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { SEARCH_CATALOG_MAX_OFFSET, SEARCH_CATALOG_MAX_PAGE, SearchCatalogQuerySchema } from './catalogContract.ts'

/** Whether the query schema takes `value` (as a query string sends it) for `field`. */
function takes(field: 'offset' | 'limit', value: string | number): boolean {
  return SearchCatalogQuerySchema.safeParse({ [field]: value }).success
}

/** The JSON Schema a spec states for `field` (the request's input side, as Fastify's docs render it). */
function statedSchema(field: 'offset' | 'limit') {
  const schema = z.toJSONSchema(SearchCatalogQuerySchema, { io: 'input', unrepresentable: 'any' }) as {
    properties: Record<string, { anyOf: Array<{ type: string; minimum?: number; maximum?: number; pattern?: string }> }>
  }
  const stated = schema.properties[field]?.anyOf ?? []
  return {
    integer: stated.find((branch) => branch.type === 'integer'),
    pattern: new RegExp(stated.find((branch) => branch.type === 'string')?.pattern ?? '^$'),
  }
}

describe('the catalog query: what the schema states is what it takes', () => {
  it.each([
    ['offset', 0, SEARCH_CATALOG_MAX_OFFSET],
    ['limit', 1, SEARCH_CATALOG_MAX_PAGE],
  ] as const)('%s: the stated integer bounds are [%d, %d], and so are the enforced ones', (field, min, max) => {
    const { integer } = statedSchema(field)
    expect(integer).toMatchObject({ minimum: min, maximum: max })
    for (const value of [min, max, String(min), String(max)]) expect(takes(field, value)).toBe(true)
    for (const value of [min - 1, max + 1, -(2 ** 53) + 1, 2 ** 53 - 1, String(max + 1), '-1']) {
      expect(takes(field, value)).toBe(false)
    }
  })

  it('limit: the stated digit pattern admits exactly 1–SEARCH_CATALOG_MAX_PAGE', () => {
    const { pattern } = statedSchema('limit')
    for (let n = 0; n <= 2 * SEARCH_CATALOG_MAX_PAGE; n++) {
      const inBounds = n >= 1 && n <= SEARCH_CATALOG_MAX_PAGE
      expect(pattern.test(String(n))).toBe(inBounds)
      expect(takes('limit', String(n))).toBe(inBounds)
    }
  })

  it('offset: the stated digit pattern admits exactly the enforced range', () => {
    const { pattern } = statedSchema('offset')
    for (const value of ['0', '7', String(SEARCH_CATALOG_MAX_OFFSET)]) expect(pattern.test(value)).toBe(true)
    for (const value of ['-1', String(SEARCH_CATALOG_MAX_OFFSET + 1), '0x10', ' 5', '']) {
      expect(pattern.test(value)).toBe(false)
      expect(takes('offset', value)).toBe(false)
    }
  })
})
