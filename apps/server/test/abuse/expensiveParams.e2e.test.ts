import type { ParamsInput } from '@sealbox/he-core'
import { isPrime } from '@sealbox/he-ring'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { errorOf, type SearchSide } from '../harness.ts'
import { duringAttack, expectHealthy, type HealthStats, idleHealth, metricSum, metricsText } from './abuseHarness.ts'
import { identityProgram } from './abusePrograms.ts'
import { type AbuseServer, spawnAbuseServer } from './abuseServer.ts'

/*
 * Expensive parameters: parameter checks that cost seconds and memory. A plain modulus
 * near 2^53 was primality-tested by trial division on the event loop (~1 s each);
 * fractional CKKS scales each built a new context in the worker's never-evicted
 * cache (17 → 312 MB after five). Now Miller–Rabin answers in microseconds, zod
 * refuses a fractional scale before anything is built, and the worker's contexts
 * are leased from a cache bounded by estimated bytes.
 */

const FILE = 'expensiveParams.e2e.test.ts'
const MiB = 2 ** 20

async function workerHeap(url: string): Promise<number> {
  return metricSum(await metricsText(url), 'sealbox_worker_wasm_heap_bytes')
}

/** Values ≡ 1 (mod step) just below 2^53: where trial division needed ~5·10^7 divisions. */
function near2to53(step: number, want: (t: number) => boolean): number {
  for (let t = 2 ** 53 - step + 1; t > 2 ** 52; t -= step) if (want(t)) return t
  throw new Error('no candidate found')
}

/** No factor below 2^20: trial division would have run for long before finding one. */
function noSmallFactor(t: number): boolean {
  for (let d = 3; d < 2 ** 20; d += 2) if (t % d === 0) return false
  return true
}

describe('expensive parameters (a real server process)', () => {
  let server: AbuseServer
  let side: SearchSide
  let idle: HealthStats

  beforeAll(async () => {
    // The deadline is not what this file tests: a cold n = 16384 context's admission estimate
    // follows the measured speed of earlier jobs, and beside other work it passed 60 s
    // (a 504 before the context was built, where the test expects the build's 4xx).
    server = await spawnAbuseServer({ REQUEST_TIMEOUT_MS: '1800000' }, { name: 'params' })
    side = await server.searchSide()
    idle = await idleHealth(server.url)
  }, 120_000)

  afterAll(() => server?.stop())

  /** Another tenant searching until `stop()`; every search must succeed. */
  async function otherTenantSearching() {
    const victim = (await server.client.createSession()).client
    await victim.putKeySet('search', side.keys as Uint8Array)
    const query = side.query(2)
    await victim.search(query.bytes, { keySet: 'search' })
    let stopped = false
    const done = (async () => {
      let ok = 0
      while (!stopped) {
        expect((await victim.search(query.bytes, { keySet: 'search' })).responses).toHaveLength(1)
        ok++
      }
      return ok
    })()
    return {
      async stop() {
        stopped = true
        return done
      },
    }
  }

  it('plain moduli near 2^53 (a prime, a composite with no small factor) and fractional CKKS scales: 400 INVALID_PARAMS, nothing built, /healthz fast, the other tenant served', async () => {
    // A prime ≡ 1 (mod 4096): at n=2048 it passes the primality test and is then refused for its noise budget.
    const prime = near2to53(4096, (t) => isPrime(t))
    // A composite ≡ 1 (mod 8192) with no factor below 2^20: refused as not prime.
    const composite = near2to53(8192, (t) => !isPrime(t) && noSmallFactor(t))
    const attacker = (await server.client.createSession()).client
    const victim = await otherTenantSearching()
    const heapBefore = await workerHeap(server.url)
    const requests: ParamsInput[] = [
      ...Array.from(
        { length: 8 },
        (): ParamsInput => ({
          scheme: 'bfv',
          polyModulusDegree: 2048,
          plainModulus: { value: prime },
        }),
      ),
      ...Array.from(
        { length: 8 },
        (): ParamsInput => ({
          scheme: 'bfv',
          polyModulusDegree: 4096,
          plainModulus: { value: composite },
        }),
      ),
      ...Array.from(
        { length: 10 },
        (_, i): ParamsInput => ({
          scheme: 'ckks',
          polyModulusDegree: 16384,
          scaleBits: 40 + (i + 1) / 1000,
        }),
      ),
    ]
    const { result, health } = await duringAttack(server.url, async () => {
      const answers = await Promise.all(
        requests.map(async (params) => {
          const error = await errorOf(attacker.evaluate({ params, program: identityProgram, inputs: {} }))
          return `${error.httpStatus} ${error.code}: ${error.message}`
        }),
      )
      return { answers, searches: await victim.stop() }
    })
    const byKind = (from: number, to: number) => new Set(result.answers.slice(from, to).map((a) => a.split(':')[0]))
    expect(byKind(0, 26)).toEqual(new Set(['400 INVALID_PARAMS']))
    expect(result.answers[0]).toMatch(/leaves no noise budget/)
    expect(result.answers[8]).toMatch(/is not a prime ≡ 1 \(mod 8192\)/)
    expect(result.answers[16]).toMatch(/scaleBits: scaleBits is a whole number of bits/)
    expect(result.searches).toBeGreaterThan(0)
    // Refused on the loop before any job: the worker's heap did not move.
    expect(await workerHeap(server.url)).toBe(heapBefore)
    expectHealthy({
      attack: 'expensive parameters',
      test: `${FILE} › 8 × t≈2^53 prime, 8 × t≈2^53 composite, 10 × scaleBits 40.00x at n=16384`,
      answer: '400 INVALID_PARAMS',
      during: health,
      idle,
    })
  }, 120_000)

  it('distinct whole scales at CKKS n=16384 each need a context, but the worker keeps only its byte budget of them', async () => {
    const params = { scheme: 'ckks', polyModulusDegree: 16384 } as const
    const tenant = (await server.client.createSession()).client
    // No input sent: the worker builds (or reuses) the context, then refuses the missing input. The
    // context is what costs; leaving out the ciphertext keeps this test from building one here too.
    const run = async (scaleBits: number) => {
      const error = await errorOf(
        tenant.evaluate({ params: { ...params, scaleBits }, program: identityProgram, inputs: {} }),
      )
      return `${error.httpStatus} ${error.code}`
    }
    // The first context sets the worker's working size.
    const first = await run(40)
    const heapBefore = await workerHeap(server.url)
    const scales = [30, 31, 32, 33]
    const { result, health } = await duringAttack(server.url, async () => {
      const answers = [first]
      for (const scaleBits of scales) answers.push(await run(scaleBits))
      return answers
    })
    expect(new Set(result)).toEqual(new Set([result[0]]))
    expect(result[0]).toMatch(/^4\d\d /)
    // Each of these contexts takes ~53 MB of WASM heap (measured): four more unevicted would add ~212 MB.
    // The cache keeps at most 256 MiB of estimated contexts (~67 MB each: three), so about two more fit.
    const growth = (await workerHeap(server.url)) - heapBefore
    expect(growth).toBeLessThan(170 * MiB)
    expectHealthy({
      attack: 'expensive parameters',
      test: `${FILE} › 5 distinct whole scaleBits at CKKS n=16384 (worker heap +${Math.round(growth / MiB)} MiB after the first)`,
      answer: `${result[0]} (missing input, after the context; contexts evicted past the byte budget)`,
      during: health,
      idle,
    })
  }, 180_000)
})
