import { publishedPeerLines } from './publishedPeers.ts'
import { appleTable, headlineComparison, targetTable } from './renderEngineComparison.ts'
import { headlineTable, loadSplitTable, rotationTable, tradeOffTable } from './renderSearchTables.ts'
import { renderThroughputSection } from './renderThroughputSection.ts'
import type { SearchBenchReport } from './SearchBenchReport.ts'
import { ms, table } from './searchReportFormat.ts'

/** The report as Markdown. */
export function renderSearchReport(report: SearchBenchReport): string {
  const parts = [
    '# Private search benchmark',
    '',
    `Command: \`${report.command}\`  `,
    `Date: ${report.date}; ${report.machine.cpuModel}, ${report.machine.cores} logical cores, Node ${report.machine.node}, ${report.machine.os}; load average ${report.machine.loadAverage.join(' / ')}.  `,
    `Timings: ${report.samples.samples} queries after ${report.samples.warmup} warm-up queries on one thread, node-seal 7 (SEAL 4.1 in WebAssembly), server side only (no network, no client), wall clock. The machine is shared: the minimum is the closest to an idle core, the median includes waiting for a core at this run's load, and the mean thread CPU time is what a query costs a core.`,
    '',
    ...(report.native
      ? [
          `Native: ${Object.entries(report.native)
            .map(([k, v]) => `${k} ${v}`)
            .join(', ')}.`,
          '',
        ]
      : []),
    '## Single operations during this run',
    '',
    'Timed at the start and at the end of the run (wall clock, min / median of 100). They show how busy the shared machine was; the query times in units of one NTT-form multiply do not depend on it.',
    '',
    table(
      [
        'scheme',
        'when',
        'multiply (NTT form)',
        'rotateRows',
        'mod switch to last level',
        'load seeded zstd ciphertext',
      ],
      report.calibration.map((c, i) => [
        c.scheme.toUpperCase(),
        i < report.calibration.length / 2 ? 'start' : 'end',
        `${ms(c.multiplyPlainNtt.min)} / ${ms(c.multiplyPlainNtt.median)}`,
        `${ms(c.rotateRows.min)} / ${ms(c.rotateRows.median)}`,
        `${ms(c.modSwitch.min)} / ${ms(c.modSwitch.median)}`,
        `${ms(c.loadSeeded.min)} / ${ms(c.loadSeeded.median)}`,
      ]),
    ),
    '',
    '## Headline: what the server spends per query, WASM vs native SEAL (same run, interleaved)',
    '',
    ...headlineComparison(report),
    '',
    "## Targets: the default and the key-switching kernel vs native SEAL's best",
    '',
    `Native's best is the lowest figure among **every** native row of the shape in this run (${report.targets
      .filter((t) => t.what === 'default config')
      .map((t) => `${t.native.configs} at ${t.shape}`)
      .join(
        ', ',
      )}: the headline, trade-off, Apple and candidate rows — server-side baby steps at several g, client-side g = 8, 16, 32 query ciphertexts, seeded and unseeded uncompressed queries), taken separately for the server total's minimum, its median and the CPU per query, each naming the native config it came from. The WASM default sends its own (packed) wire; the kernel rows read uncompressed queries as native does. Load average during the run: ${report.machine.loadAverage.join(' / ')}.`,
    '',
    targetTable(report.targets),
    ...(report.rotations
      ? [
          '',
          'Per rotation, timed alone in this run (the kernel and SEAL interleaved sample by sample; native in its own process):',
          '',
          rotationTable(report.rotations),
        ]
      : []),
    ...(() => {
      const peers = publishedPeerLines(report.targets)
      return peers.length ? ['', ...peers] : []
    })(),
    '',
    '## Where the load time goes',
    '',
    `One default query (${report.loadSplit[0]?.queryCiphertexts ?? '?'} seeded ciphertexts), each part timed alone over all its ciphertexts (ms, min / median of ${report.samples.samples}). Seed expansion is SEAL's PRNG regenerating the random half of every ciphertext; it is the floor of any seeded load. The CRC-32 of every item repeats the bundle's, which already covers them.`,
    '',
    loadSplitTable(report.loadSplit),
    '',
    '## The default config in detail',
    '',
    headlineTable(report.headline),
    '',
    "## Schemes (same parameters, client-side g = D')",
    '',
    tradeOffTable(report.schemes),
  ]
  if (report.tradeOff.length) {
    parts.push(
      '',
      '## Trade-off over the baby step g',
      '',
      "Client-side baby steps: the client encrypts the g rotations of q (g ciphertexts up); the server skips the g−1 baby rotations. Server-side: one ciphertext up, g−1 baby rotations by 1 and ceil(D'/g)−1 giant rotations by g per block. Key bytes are the Galois keys for exactly the steps used, uploaded once per key set: the seeded packed envelope the client uploads for WASM, the same keys saved expanded and uncompressed for native (the wheel reads no zstd). Queries and responses are uncompressed in this table, so both engines load and save the same bytes; each native row is the twin of the WASM row above it.",
      '',
      tradeOffTable(report.tradeOff),
    )
  }
  if (report.apple.length) {
    parts.push(
      '',
      "## A row comparable with Apple's PNNS example",
      '',
      "Apple's swift-homomorphic-encryption documents, for V = 4096 rows, D = 128, cosine, n = 4096, coefficient modulus [27, 28, 28]: 170.2 KB of evaluation keys (2 keys), a 28.2 KB query, a 52.1 KB response and 10.4–12.5 ms on unstated hardware. The same shape here (synthetic unit vectors): the default config and client-side baby steps, WASM on its own wire and native reading uncompressed seeded queries (the wheel reads neither zstd nor packed ciphertexts), then one query ciphertext with the model's g, single and hoisted, and in SEAL's evaluator. KB = 1000 bytes, as Apple's.",
      '',
      appleTable(report.apple),
    )
  }
  const candidates = [...report.candidates, ...report.appleCandidates]
  if (candidates.length) {
    parts.push(
      '',
      "## Native SEAL's candidate configs",
      '',
      "The configs that could be native's fastest and are not in the tables above, uncompressed queries and responses, seeded and unseeded, each native row beside its WASM twin (same config, keys, queries and database). Native's best in the targets is taken over these and every other native row of the shape.",
      '',
      tradeOffTable(candidates),
    )
  }
  if (report.forms.length) {
    parts.push('', '## Database in NTT form vs coefficient form', '', tradeOffTable(report.forms))
  }
  if (report.large) {
    parts.push('', `## V = ${report.large.config.rows.toLocaleString('en')}`, '', headlineTable(report.large))
  }
  if (report.threads.length) {
    parts.push(
      '',
      "## Splitting one query's blocks across worker threads",
      '',
      'Each worker thread holds its share of the processed blocks; the query is posted to all and the parts are merged by the client. One thread is the same set-up with one worker (same messaging).',
      '',
      table(
        [
          'V',
          'blocks',
          'threads',
          'blocks per thread',
          'latency ms (min / median)',
          'slowest worker compute ms (min / median)',
          'exact',
        ],
        report.threads.map((t) => [
          t.rows.toLocaleString('en'),
          String(t.blocks),
          String(t.threads),
          t.split.join(' + '),
          `${ms(t.latency.min)} / ${ms(t.latency.median)}`,
          `${ms(t.slowestCompute.min)} / ${ms(t.slowestCompute.median)}`,
          t.exact ? 'yes' : '**NO**',
        ]),
      ),
    )
  }
  if (report.batch) {
    const b = report.batch
    parts.push(
      '',
      '## Batching',
      '',
      `${b.users} users (${b.users} key sets), one query each, in one \`evaluateBatch\` call: ${ms(b.batch.median)} ms per call (median of ${b.rounds}), ${ms(b.perQuery.median)} ms per query (min ${ms(b.perQuery.min)}); every answer of every call decrypted to the plaintext oracle with its user's key set: ${b.allOk ? 'yes' : '**NO**'} (a wrong or refused answer stops the run).`,
    )
  }
  if (report.throughput) parts.push('', renderThroughputSection(report.throughput).trimEnd())
  return `${parts.join('\n')}\n`
}
