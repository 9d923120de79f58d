import { z } from 'zod'
import type { RouteContract } from './routeContract.ts'
import { type ServerSearchConfig, ServerSearchConfigSchema, searchConfigRoute } from './searchContract.ts'

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

/**
 * `GET /api/v1/search/config` as a client reads it: one node's config, or a proxy's
 * shard map (an object with `shards` and no `configId`). Each is checked against its
 * own schema, so a contract error names the field at fault.
 */
export const SearchDeploymentConfigSchema = z
  .record(z.string(), z.unknown())
  .pipe(z.custom<SearchShardMap | ServerSearchConfig>())
  .superRefine((body, context) => {
    const schema = 'shards' in body && !('configId' in body) ? SearchShardMapSchema : ServerSearchConfigSchema
    const parsed = schema.safeParse(body)
    for (const issue of parsed.error?.issues ?? []) context.addIssue({ ...issue, code: 'custom' })
  })

/** The search config route as `SealboxClient.searchConfig` calls it: a node's config or a proxy's shard map. */
export const searchDeploymentConfigRoute = {
  ...searchConfigRoute,
  response: { 200: SearchDeploymentConfigSchema },
} as const satisfies RouteContract
