import type { ClusterSearchRow } from './measureClusterSearch.ts'

/** What the cluster-private report records besides its rows. */
export interface ClusterSearchReport {
  command: string
  date: string
  loadAverage: { before: number[]; after: number[] }
  queries: number
  rows: ClusterSearchRow[]
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`
const ms = (value: number) => (value >= 100 ? value.toFixed(0) : value.toFixed(1))

/** The Markdown of `npm run benchmark:search -- --clusters`. */
export function renderClusterSearch(report: ClusterSearchReport): string {
  const lines = [
    '# Cluster-private search',
    '',
    `\`${report.command}\` · ${report.date} · load average ${report.loadAverage.before.join(' ')} before, ${report.loadAverage.after.join(' ')} after · ${report.queries} queries per row (after warm-up), server time = \`PrivateSearchIndex.evaluate\` wall clock in this process (decode, load, compute, save).`,
    '',
    'Clustered synthetic data: random unit topics (V/100 unless the table says otherwise), rows = normalise(topic + Gaussian/√D), queries drawn from the same topics. Recall@10 is against exact cosine over every row (floats); "vs exact mode" against exact mode\'s own top 10 (the same scaled integers over every row: what the clustering alone loses); "2 probes" is the recall against cosine had the client searched its two nearest clusters (two queries), computed in plaintext from the public clustering. Every decrypted score was checked against the plaintext oracle.',
    '',
    '| V | D | topics | setting | C | m = ⌈V/C⌉ | query ct / response ct | g | query | response | **query + response** | server total min / median ms | compute median | model ms | recall@10 | vs exact mode | 2 probes | k-means ms | processing ms | processed | noise left (bits) |',
    '| ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ]
  for (const row of report.rows) {
    lines.push(
      `| ${row.rows.toLocaleString('en')} | ${row.dimension} | ${row.topics} | ${row.setting === 0 ? 'exact' : row.setting} | ${row.clusters || '–'} | ${row.rowsPerCluster.toLocaleString('en')} | ${row.queryCiphertexts} / ${row.responseCiphertexts} | ${row.babyStep} | ${kib(row.queryBytes)} | ${kib(row.responseBytes)} | **${kib(row.queryBytes + row.responseBytes)}** | ${ms(row.serverTotal.min)} / ${ms(row.serverTotal.median)} | ${ms(row.serverCompute.median)} | ${ms(row.modelServerMs)} | ${row.recallAt10.toFixed(3)} | ${row.recallAt10VsExactMode.toFixed(3)} | ${row.recallAt10TwoProbes.toFixed(3)} | ${row.clusterMs.toFixed(0)} | ${row.processMs.toFixed(0)} | ${(row.processedBytes / 2 ** 20).toFixed(0)} MiB | ${row.minNoiseBudget} |`,
    )
  }
  lines.push('')
  return lines.join('\n')
}
