import { ServerNode, TempNginx } from '@sealbox/testkit'

/*
 * A sharded deployment as the deploy guide builds it: S shards of the database, R nodes
 * (replicas) each, every node started with SEARCH_SHARD=i/S on one shared key store, and
 * nginx rendered by render.mjs with --shard-node i=host:port per node.
 */

/** Rows of the shard drills' database: 3 blocks of n = 4096 rows (4096, 4096, 808), so 2 shards hold 1 and 2 blocks. */
export const SHARD_ROWS = 9000

/** S shards × R replicas behind one nginx; `nodes[i]` are shard i's replicas. */
export interface ShardedDeployment {
  nodes: ServerNode[][]
  nginx: TempNginx
  /** Node `r` of shard `i` started again where nginx expects it (same port), with its settings. */
  restart(i: number, r: number): Promise<ServerNode>
  stop(): Promise<void>
}

/** Starts `shards` × `replicas` nodes with `env` (plus SEARCH_SHARD) and nginx in front of them. */
export async function startShardedDeployment(options: {
  shards: number
  replicas: number
  env: Record<string, string>
  /** Settings of one shard's nodes on top of `env`. */
  shardEnv?: (shard: number) => Record<string, string>
}): Promise<ShardedDeployment> {
  const envOf = (i: number) => ({
    ...options.env,
    ...options.shardEnv?.(i),
    SEARCH_SHARD: `${i}/${options.shards}`,
  })
  const started = await Promise.allSettled(
    Array.from({ length: options.shards }, (_, i) =>
      Array.from({ length: options.replicas }, (_, r) =>
        ServerNode.start({ name: `shard${i}-r${r}`, env: envOf(i), readyTimeoutMs: 600_000 }),
      ),
    ).flat(),
  )
  const failed = started.find((result) => result.status === 'rejected')
  if (failed) {
    await Promise.all(started.map((result) => (result.status === 'fulfilled' ? result.value.stop() : undefined)))
    throw failed.reason
  }
  const flat = started.map((result) => (result as PromiseFulfilledResult<ServerNode>).value)
  const nodes = Array.from({ length: options.shards }, (_, i) =>
    flat.slice(i * options.replicas, (i + 1) * options.replicas),
  )
  const renderArgs = nodes.flatMap((replicas, i) =>
    replicas.flatMap((node) => ['--shard-node', `${i}=${node.address}`]),
  )
  const nginx = await TempNginx.start({ nodes: [], renderArgs })
  return {
    nodes,
    nginx,
    async restart(i, r) {
      const old = nodes[i]?.[r] as ServerNode
      const node = await ServerNode.start({ name: old.name, env: envOf(i), port: old.port, readyTimeoutMs: 600_000 })
      ;(nodes[i] as ServerNode[])[r] = node
      return node
    },
    async stop() {
      await nginx.stop()
      await Promise.all(nodes.flat().map((node) => node.stop()))
    },
  }
}
