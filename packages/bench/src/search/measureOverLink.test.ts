import { resolveSearchLink } from '@sealbox/he-core/search'
import { ServerNode } from '@sealbox/testkit'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BrowserSearchClient } from './browserSearchClient.ts'
import type { EndToEndRow } from './EndToEndReport.ts'
import { type EndToEndCase, endToEndServerEnv } from './endToEndCases.ts'
import { measureInChromium } from './measureInChromium.ts'
import { measureOverLink } from './measureOverLink.ts'

// The end-to-end section's two clients (timeSearchQueries in Node and in the page) against
// one real server over loopback, the link added by the model: shape and oracle, never timings.
describe('the end-to-end clients', () => {
  const c: EndToEndCase = { title: 'default, V = 4,096, D = 16', rows: 4096, dimension: 16, env: {} }
  const link = resolveSearchLink('broadband')
  let node: ServerNode
  let browser: BrowserSearchClient

  beforeAll(async () => {
    browser = await BrowserSearchClient.start()
    node = await ServerNode.start({
      name: 'e2e-clients',
      env: endToEndServerEnv(c, browser.origin),
    })
  })

  afterAll(async () => {
    await node?.stop()
    await browser?.[Symbol.asyncDispose]()
  })

  const checkRow = (row: EndToEndRow, client: RegExp) => {
    expect(row.client).toMatch(client)
    expect(row.shapedBy).toBe('model')
    expect(row.samples).toBe(3)
    expect(row.exact).toBe(true)
    expect(row.topHitFound).toBe(true)
    expect(row.noiseExhausted).toBe(0)
    expect(row.queryBytes).toBeGreaterThan(0)
    expect(row.responseBytes).toBeGreaterThan(0)
    // Upload and download are bytes ÷ the link's rate; the modelled end to end holds them and the round trip.
    expect(row.uploadMs).toBeCloseTo((row.queryBytes * 8) / (link.upMbps * 1000), 6)
    expect(row.downloadMs).toBeCloseTo((row.responseBytes * 8) / (link.downMbps * 1000), 6)
    expect(row.endToEndMinMs).toBeGreaterThan(row.uploadMs + row.downloadMs + link.rttMs)
    expect(row.endToEndMs).toBeGreaterThanOrEqual(row.endToEndMinMs)
  }

  it('Node: every sample decrypts to the oracle and finds the top hit', async () => {
    checkRow(await measureOverLink({ node, baseUrl: node.url, link, shapedBy: 'model', c, samples: 3 }), /^Node$/)
  })

  it('Chromium: the same through the page', async () => {
    checkRow(
      await measureInChromium(browser, { node, baseUrl: node.url, link, shapedBy: 'model', c, samples: 3 }),
      /^Chromium \d/,
    )
  })
})
