import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import process from 'node:process'
import { fileURLToPath } from 'node:url'
import { getHeContext } from '@sealbox/he-core'
import { SealboxClient } from '@sealbox/he-core/client'
import {
  PrivateSearchClient,
  plaintextSearchScores,
  resolveSearchLink,
  type SearchLinkName,
  type SearchLinkRates,
  syntheticSearchDatabase,
  syntheticSearchQuery,
  topKIndices,
  transferMs,
  verifySearchConfig,
} from '@sealbox/he-core/search'
import { ServerNode, TempNginx } from '@sealbox/testkit'
import { loadAverage } from '../core/machineInfo.ts'
import { median } from '../core/stats.ts'
import { BENCH_SERVER_ENV } from '../load/benchServerEnv.ts'
import { timeClientQuery } from './timeSearchQueries.ts'
import { ensureToxiproxy, ToxiproxyLinks } from './toxiproxyLink.ts'

/*
 * Issue 28's whole cost over the link: a database in S = 1, 2, 4 shards (one node each,
 * SEARCH_SHARD=i/S, one worker) behind nginx rendered with --shard-node, a Toxiproxy link
 * shaped like broadband or mobile in front of nginx, and he-core's client fanning each
 * query out to every shard and merging the parts. Medians of encrypt, the search call
 * (upload, the slowest shard, download) and decrypt + rank; every answer's top 10 checked
 * against the plaintext oracle.
 *
 *   node --conditions=@sealbox/source packages/bench/src/search/measureShardedLink.ts
 *
 * SHARD_BENCH_ROWS (65,536), SHARD_BENCH_DIM (128), SHARD_BENCH_SAMPLES (7), SHARD_BENCH_SHARDS
 * (1,2,4) and SHARD_BENCH_LINKS (broadband,mobile; `loopback`: nginx directly, no link) change
 * the run; the tables go to packages/bench/results/search/$SHARD_BENCH_OUT.{md,json}
 * (search-shards by default).
 */

const TOKEN = 'bench-token-0123456789abcdefghijKLMNOPQR'
const HERE = fileURLToPath(new URL('.', import.meta.url))

/** One S over one link. */
export interface ShardLinkRow {
  shards: number
  link: SearchLinkRates
  rows: number
  dimension: number
  samples: number
  /** Bytes up per query: the same query to every shard (S × one query). */
  uploadBytes: number
  /** Bytes down per query: every shard's blocks, together one node's response. */
  downloadBytes: number
  encryptMs: number
  /** The search call as the client waited for it (fan-out, upload, the slowest shard, download). */
  callMs: number
  /** The slowest shard's server compute per query (x-sealbox-query-ms). */
  serverMs: number
  decryptRankMs: number
  endToEndMs: number
  /**
   * Toxiproxy shapes each connection on its own, so S parallel uploads each get the whole
   * uplink: what one shared access link adds, (S − 1) × query ÷ up rate (modelled).
   */
  sharedUplinkMs: number
  /**
   * A gateway fanning out inside the deployment: the query sent once over the link. With
   * per-connection shaping the measured end to end is that already (each upload had the
   * whole uplink), so this is the measured figure, labelled modelled for a shared link.
   */
  gatewayMs: number
  exact: boolean
}

async function measureOne(
  url: string,
  nginxUrl: string,
  link: SearchLinkRates,
  rows: number,
  dimension: number,
  samples: number,
): Promise<Omit<ShardLinkRow, 'shards'>> {
  const client = new SealboxClient({ baseUrl: url, token: TOKEN })
  const config = verifySearchConfig(await client.searchConfig())
  const layout = client.searchShards
  const shards = layout?.shards.length ?? 1
  const ctx = await getHeContext(config.params)
  using search = PrivateSearchClient.create(ctx, config)
  const keys = search.evaluationKeys()
  // Keys go to each shard's node over loopback once, as a tenant's one-time upload (not timed here).
  if (keys) {
    for (const shard of layout?.shards ?? [{ prefix: '' }]) {
      await new SealboxClient({ baseUrl: `${nginxUrl}${shard.prefix}`, token: TOKEN }).putKeySet('main', keys)
    }
  }
  const database = syntheticSearchDatabase({ rows, dimension, seed: 1 })
  const encrypt: number[] = []
  const call: number[] = []
  const server: number[] = []
  const decrypt: number[] = []
  let uploadBytes = 0
  let downloadBytes = 0
  let exact = true
  for (let i = -1; i < samples; i++) {
    const vector = syntheticSearchQuery(dimension, 100 + i)
    const { sample, result, hits } = await timeClientQuery(client, search, vector, { keySet: 'main' })
    const oracle = topKIndices(plaintextSearchScores(config, database, vector), 10)
    exact &&= hits?.map((hit) => hit.row).join() === oracle.join()
    uploadBytes = sample.up * shards
    downloadBytes = sample.down
    // The first query warms the connections and the shards' key caches: not counted.
    if (i < 0) continue
    encrypt.push(sample.encrypt)
    call.push(sample.request)
    server.push(result.queryMs[0] ?? 0)
    decrypt.push(sample.decrypt)
  }
  const endToEndMs = median(encrypt) + median(call) + median(decrypt)
  const extraUploadMs = transferMs(uploadBytes - uploadBytes / shards, link.upMbps)
  return {
    link,
    rows,
    dimension,
    samples,
    uploadBytes,
    downloadBytes,
    encryptMs: median(encrypt),
    callMs: median(call),
    serverMs: median(server),
    decryptRankMs: median(decrypt),
    endToEndMs,
    sharedUplinkMs: endToEndMs + extraUploadMs,
    gatewayMs: endToEndMs,
    exact,
  }
}

/** Measures every S over every link; nodes and nginx are started per S, Toxiproxy once. */
export async function measureShardedLink(options: {
  rows: number
  dimension: number
  shardCounts: readonly number[]
  links: readonly (SearchLinkName | 'loopback')[]
  samples: number
  cacheDir: string
  log: (line: string) => void
}): Promise<ShardLinkRow[]> {
  // Loopback rows alone need no Toxiproxy.
  const links = options.links.every((name) => name === 'loopback')
    ? undefined
    : await ToxiproxyLinks.start(await ensureToxiproxy(options.cacheDir, options.log))
  const out: ShardLinkRow[] = []
  try {
    for (const shards of options.shardCounts) {
      options.log(`S = ${shards}: starting ${shards} node(s)`)
      const nodes = await Promise.all(
        Array.from({ length: shards }, (_, i) =>
          ServerNode.start({
            name: `shard${i}of${shards}`,
            env: {
              ...BENCH_SERVER_ENV,
              MODE: 'production',
              TOKENS: `bench:${TOKEN}`,
              EXECUTOR: 'pool',
              WORKERS: '1',
              SYNTHETIC_ROWS: String(options.rows),
              SYNTHETIC_DIM: String(options.dimension),
              SYNTHETIC_SEED: '1',
              SEARCH_SHARD: `${i}/${shards}`,
            },
            readyTimeoutMs: 600_000,
          }),
        ),
      )
      const nginx = await TempNginx.start({
        nodes: [],
        renderArgs: nodes.flatMap((node, i) => ['--shard-node', `${i}=${node.address}`]),
      })
      try {
        for (const name of options.links) {
          // loopback: nginx reached directly, no link (the server side alone).
          const link: SearchLinkRates =
            name === 'loopback'
              ? { name: 'custom', upMbps: Number.POSITIVE_INFINITY, downMbps: Number.POSITIVE_INFINITY, rttMs: 0 }
              : resolveSearchLink(name)
          const url =
            name === 'loopback' || !links ? nginx.url : await links.shape(`shards-${shards}-${name}`, nginx.port, link)
          options.log(`S = ${shards}, ${name}`)
          const row = await measureOne(url, nginx.url, link, options.rows, options.dimension, options.samples)
          out.push({ shards, ...row })
        }
      } finally {
        await nginx.stop()
        await Promise.all(nodes.map((node) => node.stop()))
      }
    }
  } finally {
    await links?.[Symbol.asyncDispose]()
  }
  return out
}

/** The Markdown table of the rows. */
export function renderShardedLink(rows: readonly ShardLinkRow[], command: string, load: string): string {
  const ms = (value: number) => value.toFixed(0)
  const kb = (bytes: number) => (bytes / 1000).toFixed(0)
  return [
    '## Search across shards over a shaped link (issue 28)',
    '',
    `\`${command}\` — ${new Date().toISOString()}; load average ${load}. One node per shard (SEARCH_SHARD=i/S,`,
    '`EXECUTOR=pool`, one worker) on this 2-core VM behind nginx (render.mjs --shard-node); the link is a',
    'Toxiproxy proxy in front of nginx (latency toxic: half the round trip each way; bandwidth toxic per',
    'direction, per connection). he-core’s client sends each query to every shard at once and merges the',
    `parts; medians over ${rows[0]?.samples ?? 0} queries after one warm-up; the top 10 checked against the plaintext oracle.`,
    'Toxiproxy shapes each connection on its own, so the S parallel uploads each got the whole uplink:',
    '"shared uplink" adds what one access link shared by them costs, (S − 1) × query ÷ up rate (modelled).',
    '"gateway" is sending the query once to a gateway that fans out inside the deployment (modelled: the',
    'same run without the extra uploads).',
    '',
    '| S | link | rows × D | up KB (S × query) | down KB | encrypt | search call | server (slowest shard) | decrypt + rank | **end to end** | shared uplink (modelled) | gateway (modelled) | exact top 10 |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.shards} | ${r.link.rttMs === 0 ? 'loopback (no link)' : `${r.link.name} ${r.link.upMbps}/${r.link.downMbps} Mbit/s, ${r.link.rttMs} ms`} | ${r.rows} × ${r.dimension} | ${kb(r.uploadBytes)} | ${kb(r.downloadBytes)} | ${ms(r.encryptMs)} | ${ms(r.callMs)} | ${ms(r.serverMs)} | ${ms(r.decryptRankMs)} | **${ms(r.endToEndMs)}** | ${ms(r.sharedUplinkMs)} | ${ms(r.gatewayMs)} | ${r.exact ? 'yes' : 'NO'} |`,
    ),
    '',
  ].join('\n')
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const settings = [
    'SHARD_BENCH_ROWS',
    'SHARD_BENCH_DIM',
    'SHARD_BENCH_SAMPLES',
    'SHARD_BENCH_SHARDS',
    'SHARD_BENCH_LINKS',
  ]
    .filter((name) => process.env[name] !== undefined)
    .map((name) => `${name}=${process.env[name]} `)
    .join('')
  const command = `${settings}node --conditions=@sealbox/source packages/bench/src/search/measureShardedLink.ts`
  const loadBefore = loadAverage()
  const rows = await measureShardedLink({
    rows: Number(process.env.SHARD_BENCH_ROWS ?? 65_536),
    dimension: Number(process.env.SHARD_BENCH_DIM ?? 128),
    shardCounts: (process.env.SHARD_BENCH_SHARDS ?? '1,2,4').split(',').map(Number),
    links: (process.env.SHARD_BENCH_LINKS ?? 'broadband,mobile').split(',') as ('broadband' | 'mobile' | 'loopback')[],
    samples: Number(process.env.SHARD_BENCH_SAMPLES ?? 7),
    cacheDir: join(HERE, '../../.cache'),
    log: (line) => process.stderr.write(`${line}\n`),
  })
  const load = `${loadBefore.join(' ')} → ${loadAverage().join(' ')}`
  const dir = join(HERE, '../../results/search')
  await mkdir(dir, { recursive: true })
  const name = process.env.SHARD_BENCH_OUT ?? 'search-shards'
  await writeFile(join(dir, `${name}.json`), `${JSON.stringify({ command, load, rows }, null, 2)}\n`)
  await writeFile(join(dir, `${name}.md`), renderShardedLink(rows, command, load))
  process.stdout.write(renderShardedLink(rows, command, load))
}
