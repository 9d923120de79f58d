import { z } from 'zod'
import { ResolvedParamsSchema } from '../params/ParamsSpec.ts'
import { SearchClusterLayoutSchema } from './searchClusterLayout.ts'
import { SEARCH_WIRE_ENCODINGS, SearchOperationCountSchema } from './searchCost.ts'
import { SearchEndToEndEstimateSchema } from './searchEndToEnd.ts'
import { SearchBlockSchema } from './searchLayout.ts'
import { SEARCH_SCHEMES } from './searchParams.ts'

/** A validated search config with every derived number. Plain data: post it to workers as is. */
export const SearchConfigSchema = z
  .object({
    /** 32 hex chars: SHA-256 of the fields client and server must agree on. */
    configId: z.string(),
    params: ResolvedParamsSchema,
    scheme: z.enum(SEARCH_SCHEMES),
    polyModulusDegree: z.number().int(),
    /** The plain modulus t. */
    plainModulus: z.number().int(),
    /** D */
    dimension: z.number().int(),
    /** D' = nextPow2(D): the query's period along a batching row. */
    paddedDimension: z.number().int(),
    /** V */
    rows: z.number().int(),
    metric: z.enum(['cosine', 'dot']),
    /** Norm bound of every vector (1 for cosine). */
    maxNorm: z.number(),
    /** s: vectors are scaled by s and rounded; |score| ≤ (s·maxNorm + √D/2)² ≤ (t−1)/2. */
    scale: z.number().int(),
    /** The largest s these params allow for D and maxNorm. */
    maxScale: z.number().int(),
    babySteps: z.enum(['client', 'server']),
    /** Server-side baby steps rotate the query by each step 1 … g − 1 from one decomposition. */
    hoistBabySteps: z.boolean(),
    /** g */
    babyStep: z.number().int(),
    /** h = ceil(D'/g) for a full block. */
    giantSteps: z.number().int(),
    /** Exactly the rotation steps the server uses (empty: no Galois keys at all). */
    galoisSteps: z.array(z.number().int()),
    /** Ciphertexts in one query: g with client-side baby steps, else 1. */
    queryCiphertexts: z.number().int(),
    blocks: z.array(SearchBlockSchema),
    operations: SearchOperationCountSchema,
    /** Model estimate of the server total (decode, load, compute, save) on this VM. Measured numbers come from the benchmark. */
    estimatedServerMs: z.number(),
    /** Model estimate of one query end to end over the config's link (what chose the defaults), with its bytes. */
    estimate: SearchEndToEndEstimateSchema.optional(),
    /** Compression of the query ciphertexts (the client's choice; the server loads either). */
    compression: z.enum(SEARCH_WIRE_ENCODINGS),
    /** Compression of the response ciphertexts (the server's choice; the client loads either). */
    responseCompression: z.enum(SEARCH_WIRE_ENCODINGS),
    nttForm: z.boolean(),
    /**
     * Cluster-private mode's layout (absent in exact mode). Then `rows` and `dimension` are the
     * database's, `paddedDimension` is the chunk width W = n/2, `blocks` cover the m virtual
     * rows of one cluster and count every chunk's diagonals, and `queryCiphertexts` is the
     * number of chunks.
     */
    clusters: SearchClusterLayoutSchema.optional(),
  })
  .strict()
