import { describe, expect, it } from 'vitest'
import { HeError } from '../errors/HeError.ts'
import { loadSeal, wasmHeapBytes } from '../seal/loadSeal.ts'
import { ContextCache } from './ContextCache.ts'
import { estimateContextBytes } from './estimateContextBytes.ts'
import type { ParamsInput } from './ParamsSpec.ts'
import { parseParams } from './parseParams.ts'

/** BFV parameter sets of one size that differ only in the plain modulus (so each is its own context). */
const bfv = (n: number, bits: number): ParamsInput => ({
  scheme: 'bfv',
  polyModulusDegree: n,
  plainModulus: { batchingBits: bits },
})

describe('ContextCache', () => {
  it('evicts least recently used leased contexts past its byte budget, and the heap stops growing', async () => {
    await loadSeal()
    const one = estimateContextBytes(parseParams(bfv(8192, 20)))
    using cache = new ContextCache({ maxBytes: Math.floor(one * 1.5) })
    const use = async (bits: number) => {
      using lease = await cache.acquire(bfv(8192, bits))
      expect(lease.ctx.disposed).toBe(false)
    }
    await use(20)
    await use(21)
    const heapAfterTwo = wasmHeapBytes() ?? 0
    expect(heapAfterTwo).toBeGreaterThan(0)
    for (const bits of [22, 23, 24, 25, 26, 27]) await use(bits)
    expect(cache.size).toBe(1)
    expect(cache.evictableBytes).toBeLessThanOrEqual(Math.floor(one * 1.5))
    // Eight contexts of ~11 MB each were built; evicted ones were deleted and their memory reused.
    expect((wasmHeapBytes() ?? 0) - heapAfterTwo).toBeLessThanOrEqual(one)
  }, 60_000)

  it('never deletes a context under a lease: an evicted one lives until its last lease ends', async () => {
    using cache = new ContextCache({ maxBytes: 1 })
    const a = await cache.acquire(bfv(4096, 20))
    const b = await cache.acquire(bfv(4096, 21))
    expect(a.ctx.disposed).toBe(false)
    const again = await cache.acquire(bfv(4096, 20))
    expect(again.ctx).toBe(a.ctx)
    a.release()
    a.release()
    expect(again.ctx.disposed).toBe(false)
    again.release()
    expect(a.ctx.disposed).toBe(true)
    b.release()
    expect(b.ctx.disposed).toBe(true)
    expect(cache.size).toBe(0)
  })

  it('keeps pinned contexts (get) until dispose, whatever the leases do', async () => {
    const cache = new ContextCache({ maxBytes: 1 })
    const pinned = await cache.get(bfv(4096, 20))
    for (const bits of [21, 22, 23]) (await cache.acquire(bfv(4096, bits))).release()
    const lease = await cache.acquire(bfv(4096, 20))
    expect(lease.ctx).toBe(pinned)
    lease.release()
    expect(pinned.disposed).toBe(false)
    expect(cache.size).toBe(1)
    cache.dispose()
    expect(pinned.disposed).toBe(true)
    expect(cache.size).toBe(0)
  })

  it('says whether a context is built (or being built) without building one', async () => {
    using cache = new ContextCache({ maxBytes: 1 })
    expect(cache.has(bfv(4096, 20))).toBe(false)
    expect(cache.size).toBe(0)
    const building = cache.acquire(bfv(4096, 20))
    expect(cache.has(bfv(4096, 20))).toBe(true)
    const lease = await building
    // The same parameters resolved, or spelled another way, are the same context.
    expect(cache.has(lease.ctx.params)).toBe(true)
    expect(cache.has(bfv(4096, 21))).toBe(false)
    lease.release()
    // Released past the byte budget: deleted, so the next acquire builds it again.
    expect(cache.has(bfv(4096, 20))).toBe(false)
  })

  it('validates before building: a fractional scale or an unknown n never becomes a context', async () => {
    using cache = new ContextCache()
    for (const input of [
      { scheme: 'ckks', polyModulusDegree: 16384, scaleBits: 40.001 },
      { scheme: 'bfv', polyModulusDegree: 5000 },
    ]) {
      const error = await cache.acquire(input as ParamsInput).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(HeError)
      expect((error as HeError).code).toBe('INVALID_PARAMS')
    }
    expect(cache.size).toBe(0)
  })
})
