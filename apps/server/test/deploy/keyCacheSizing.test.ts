import { ServerNode, waitFor } from '@sealbox/testkit'
import { describe, expect, it } from 'vitest'
import { drillNodeEnv } from './drillKit.ts'

/*
 * The worker-heap sizing rule at start-up (issue 30, major 3): cached keys share a worker's
 * heap with SEAL and the processed database, and a worker above WORKER_HEAP_RECYCLE_BYTES
 * is replaced after its job, keys and all. A KEY_CACHE_BYTES above the threshold is
 * refused outright; one that fits only without the fresh heap (the deploy guide's old
 * example: 1 GiB of keys under a 1 GiB threshold) is warned about once the first worker is
 * warm, with the measured fresh heap and the largest cache that fits.
 */

const MiB = 2 ** 20

describe('KEY_CACHE_BYTES against WORKER_HEAP_RECYCLE_BYTES', () => {
  it('refuses a key cache above the recycle threshold, naming both settings', async () => {
    const run = await ServerNode.run([], {
      KEY_CACHE_BYTES: String(2048 * MiB),
      WORKER_HEAP_RECYCLE_BYTES: String(1024 * MiB),
    })
    expect(run.code).toBe(1)
    expect(run.stderr).toMatch(/KEY_CACHE_BYTES .*above WORKER_HEAP_RECYCLE_BYTES \(1073741824\)/)
  })

  it('warns at start, with the measured fresh heap, when cache + fresh heap reach the threshold', async () => {
    const recycle = 128 * MiB
    const node = await ServerNode.start({
      name: 'heap-plan',
      env: drillNodeEnv({
        TOKENS: 'alice:alice-token-0123456789abcdefghijKLMNOPQR',
        KEY_CACHE_BYTES: String(recycle),
        WORKER_HEAP_RECYCLE_BYTES: String(recycle),
        LOG_LEVEL: 'info',
      }),
    })
    try {
      // main.ts prints the warning once the workers are warm, which /readyz may announce first.
      await waitFor('the heap warning', async () => (await node.log()).includes('sealbox: warning'))
      const log = await node.log()
      const warning =
        /sealbox: warning — KEY_CACHE_BYTES \(128 MiB\) \+ a fresh worker's heap \((\d+) MiB.*not below WORKER_HEAP_RECYCLE_BYTES \(128 MiB\).*Set KEY_CACHE_BYTES below (\d+) MiB/.exec(
          log,
        )
      expect(warning).not.toBeNull()
      const fresh = Number(warning?.[1])
      expect(fresh).toBeGreaterThan(0)
      expect(Number(warning?.[2])).toBe(128 - fresh)
    } finally {
      await node.stop()
    }
  })

  it('logs the plan without a warning when the cache fits', async () => {
    const node = await ServerNode.start({
      name: 'heap-plan-ok',
      env: drillNodeEnv({ TOKENS: 'alice:alice-token-0123456789abcdefghijKLMNOPQR', LOG_LEVEL: 'info' }),
    })
    try {
      // pino writes asynchronously; main.ts logs "ready: workers warm" after any warning it prints.
      await waitFor('the ready log line', async () => (await node.log()).includes('ready: workers warm'))
      const log = await node.log()
      expect(log).not.toContain('sealbox: warning')
      const plan = log
        .split('\n')
        .find((line) => line.includes('fresh + KEY_CACHE_BYTES below WORKER_HEAP_RECYCLE_BYTES'))
      const parsed = JSON.parse(plan ?? '{}') as { freshBytes?: number; headroomBytes?: number }
      console.info(`fresh worker heap (drill database): ${((parsed.freshBytes ?? 0) / MiB).toFixed(1)} MiB`)
      expect(parsed.headroomBytes).toBeGreaterThan(0)
    } finally {
      await node.stop()
    }
  })
})
