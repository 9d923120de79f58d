import { z } from 'zod'
import type { RouteContract } from './routeContract.ts'
import { ServerSearchConfigSchema, searchConfigRoute } from './searchContract.ts'

/**
 * What `GET /api/v1/search/config` answers through a proxy in front of a sharded
 * database (deploy/nginx/render.mjs --shard-node): every shard and the path prefix of its
 * nodes. Each shard's own config is at `<prefix>/api/v1/search/config`.
 */
export const SearchShardMapSchema = z
  .object({
    shards: z
      .array(
        z
          .object({
            index: z.number().int().nonnegative(),
            prefix: z.string().regex(/^\/[A-Za-z0-9/_-]*$/),
          })
          .strict(),
      )
      .min(1),
  })
  .strict()
export type SearchShardMap = z.infer<typeof SearchShardMapSchema>

/** `GET /api/v1/search/config` as a client reads it: one node's config, or a proxy's shard map. */
export const searchDeploymentConfigRoute = {
  ...searchConfigRoute,
  response: { 200: z.union([ServerSearchConfigSchema, SearchShardMapSchema]) },
} as const satisfies RouteContract
