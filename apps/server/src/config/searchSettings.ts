import { z } from 'zod'
import { bool, int } from './configValues.ts'

/** The database a node serves and how its search is planned (ServerConfigSchema's search settings). */
export const SEARCH_SETTINGS = {
  DATABASE: z
    .string()
    .min(1)
    .default('synthetic')
    .describe(
      '`synthetic` (seeded random unit vectors, for benchmarks), `demo` (the 118 chemical elements with names, embedded with he-core’s public embedText: what the sandbox’s search is for) or a JSONL / CSV / .npy file of vectors.',
    ),
  SYNTHETIC_ROWS: int(1, 1_000_000).default(10_000).describe('Rows of the synthetic demo database.'),
  SYNTHETIC_DIM: int(1, 4096).default(16).describe('Vector dimension of the synthetic demo database.'),
  SYNTHETIC_SEED: int(0, 2 ** 31 - 1)
    .default(1)
    .describe('Seed of the synthetic demo database.'),
  SEARCH_CACHE: bool
    .default(true)
    .describe(
      'Keep the processed database (its NTT-form diagonals) in DATA_DIR/search-cache, named by the database’s SHA-256 and the search config id, so a restart reads it instead of processing again. Every block is checked (CRC-32, and the kernel form’s residues below their primes) before use; a damaged or stale file is processed again and rewritten, never served.',
    ),
  SEARCH_SHARD: z
    .string()
    .regex(/^\d{1,4}\/\d{1,4}$/, 'expected i/S, e.g. 0/2')
    .refine((text) => {
      // Text that is not i/S has its one message from the regex above.
      if (!/^\d{1,4}\/\d{1,4}$/.test(text)) return true
      const [index, count] = text.split('/').map(Number) as [number, number]
      return count >= 1 && index < count
    }, 'expected i/S with 0 ≤ i < S')
    .optional()
    .describe(
      'Serve shard i of S of the database (`0/2`, `1/2`): every node plans the whole database’s search config (one config id for all shards) and processes only its contiguous blocks — blocks ⌊i·B/S⌋ to ⌊(i+1)·B/S⌋ − 1 of the B blocks of n rows, in row order. Rows keep their global numbers and ids; clients send every query to every shard and merge (deploy/README.md, “Shards”). Unset: the whole database.',
    ),
  SEARCH_SPLIT_BLOCKS: int(1, 4096)
    .default(8)
    .describe(
      'A query over at least twice this many blocks (n rows each: 4,096 at the default parameters) is split across the workers by blocks, each part at least this many blocks, and the parts merged into one response; a smaller one runs on one worker. Each part is admitted and priced as a job of its own: they sum to the whole query.',
    ),
  SEARCH_PROFILE: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Search parameters: an he-core profile (`n4096`, `n4096-wide`, `n4096-cluster`, `n4096-seal-default`, `n8192`; each at t = 65537); unset: `n4096`, or `n4096-wide` from a padded dimension of 512 on (more noise budget), and in cluster-private BGV search `n4096-cluster` at the largest plain modulus its noise bound allows (a finer scale: better recall).',
    ),
  SEARCH_SCHEME: z.enum(['bgv', 'bfv']).default('bgv').describe('Search scheme: `bgv` or `bfv`.'),
  SEARCH_METRIC: z
    .enum(['cosine', 'dot'])
    .default('cosine')
    .describe('Search similarity: `cosine` (vectors normalized) or `dot`.'),
  SEARCH_BABY_STEPS: z
    .enum(['client', 'server'])
    .optional()
    .describe(
      'Who computes the baby-step rotations of the query: the client or the server; unset lets he-core choose by end-to-end time over broadband.',
    ),
  SEARCH_BABY_STEP: int(1, 4096)
    .optional()
    .describe('Baby step g of the search; unset lets he-core choose from its cost model.'),
  SEARCH_HOIST_BABY_STEPS: bool
    .default(false)
    .describe(
      "Server-side baby steps hoisted: the query's g − 1 rotations share one decomposition (faster per query), for a Galois key per step 1 … g − 1 uploaded once (instead of step 1's alone).",
    ),
  SEARCH_CLUSTERS: z
    .union([z.literal('auto'), int(0, 1 << 24)])
    .default(0)
    .describe(
      'Cluster-private search: `0` (default) searches every row exactly and returns every score; a number C ≥ 2 clusters the database once (balanced k-means, seeded, cached with the processed database) and each query selects its cluster obliviously, so the response holds one cluster’s scores (V/C rows) and its bytes do not grow with the database; `auto` picks C (or exact search) by the end-to-end cost model. The centroids and each cluster’s rows are public, served with the search config.',
    ),
}
