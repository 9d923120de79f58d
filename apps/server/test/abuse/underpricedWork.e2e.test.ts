import { COST_UNIT_MS, exportEvaluationKeys, getHeContext, KeySet, type ProgramInput } from '@sealbox/he-core'
import type { EvaluateCallResult, SealboxClient } from '@sealbox/he-core/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { KeySetRecord } from '../../src/store/KeyStore.ts'
import { untilQueue } from '../harness.ts'
import { duringAttack, expectHealthy, type HealthStats, idleHealth } from './abuseHarness.ts'
import { type AbuseNode, startAbuseNode } from './abuseNode.ts'
import { encryptedInput, grownProductsProgram, largestWithin, serverPrice } from './abusePrograms.ts'

/*
 * The cost model used to underprice real work: grown ciphertexts ran 5–10× their price
 * per unit, and a rotation SEAL composes from six NAF terms cost 5.4–6.3× a single
 * rotation but was priced as one, so a program priced 609 units (≈ 0.6 s) ran 4–6 s and
 * another tenant waited ≈ 4 s behind it. Now each step is priced by its operands' real
 * sizes and every NAF term of a rotation the key set has no key for. A tenant floods the
 * only worker with the dearest such programs the server allows (MAX_PROGRAM_COST): another
 * tenant's search waits about one of them, and none ran more than 2× what it was charged
 * (worker CPU time per unit against COST_UNIT_MS), both measured in the same run.
 *
 * The programs run on a worker that already holds their parameters' context and their
 * key set: building a context (about 0.4 s of CPU at n = 8192) and loading a key set are
 * not in a program's price; they happen once per worker, and the warm-up here does them.
 */

const FILE = 'underpricedWork.e2e.test.ts'
/** The server's default MAX_PROGRAM_STEPS. */
const MAX_STEPS = 64
/** About 0.45 s of a worker per program at COST_UNIT_MS. */
const MAX_PROGRAM_COST = 2000
/** BGV at n = 8192: four data primes, so products and key switches are dear. */
const PARAMS = { scheme: 'bgv', polyModulusDegree: 8192, plainModulus: { batchingBits: 20 } } as const
/** A rotation by 1365 = 1024 + 256 + 64 + 16 + 4 + 1: six NAF terms, each a key of the set; none its own. */
const NAF_STEP = 1365
const NAF_TERMS = [1, 4, 16, 64, 256, 1024]
/**
 * The reference: rotations by 4, a step with its own key — one key switch each, the unit
 * the model's key-switching prices are built on. Measured in the same flood, its CPU time
 * per unit is the rate the server charges by on this machine now (every core shared, CPU
 * time per unit rises too).
 */
const OWN_KEY_STEP = 4
/** Programs in the flood: two of each kind, sent at once. */
const FLOOD = 6
/** How far above the charged rate a program's CPU time per unit may be: the calibration's 2×. */
const CALIBRATION_FACTOR = 2

/** `count` rotations by `step` in a row. */
function rotations(step: number): (count: number) => ProgramInput {
  return (count) => ({
    version: 1,
    inputs: [{ name: 'x', kind: 'ciphertext' }],
    steps: Array.from({ length: count }, (_, i) => ({
      op: 'rotateRows' as const,
      a: i === 0 ? 'x' : `r${i - 1}`,
      steps: step,
      out: `r${i}`,
    })),
    outputs: [`r${count - 1}`],
  })
}

/** A program the flood sends: its kind, its price as the server admits it, and how to send it. */
interface Dear {
  kind: 'grown' | 'naf' | 'ownKey'
  units: number
  run(client: SealboxClient): Promise<EvaluateCallResult>
}

/** Worker wall time of a job (its reply's total minus its queue), ms. */
const jobMs = (reply: EvaluateCallResult) => (reply.timing.total ?? 0) - (reply.timing.queue ?? 0)

describe('the cost model prices grown ciphertexts and NAF rotations as they run', () => {
  let server: AbuseNode
  let attacker: SealboxClient
  let programs: Dear[]
  let idle: HealthStats

  beforeAll(async () => {
    server = await startAbuseNode('underpriced', {
      MAX_PROGRAM_COST: String(MAX_PROGRAM_COST),
      // Every tenant here is an anonymous session of one address: budgets are other tests' subject.
      TENANT_COST_BUDGET: '10000000',
      ADDRESS_COST_BUDGET: '10000000',
      REQUEST_TIMEOUT_MS: '120000',
    })
    attacker = (await server.client.createSession()).client
    const ctx = await getHeContext(PARAMS)
    using keys = KeySet.generate(ctx, { galois: { steps: NAF_TERMS } })
    const record = (await attacker.putKeySet('naf', exportEvaluationKeys(keys))).keySet as KeySetRecord
    const x = encryptedInput(ctx, keys)
    const products = largestWithin(
      MAX_PROGRAM_COST,
      (n) => grownProductsProgram(n, 3),
      (p) => serverPrice(PARAMS, p),
    )
    const rotated = (step: number) => {
      const program = rotations(step)(
        largestWithin(MAX_PROGRAM_COST, rotations(step), (p) => serverPrice(PARAMS, p, record), MAX_STEPS),
      )
      return {
        units: serverPrice(PARAMS, program, record),
        run: (client: SealboxClient) => client.evaluate({ params: PARAMS, program, inputs: { x }, keySet: 'naf' }),
      }
    }
    const grown = grownProductsProgram(products, 3)
    programs = [
      {
        kind: 'grown',
        units: serverPrice(PARAMS, grown),
        run: (client) => client.evaluate({ params: PARAMS, program: grown, inputs: { x } }),
      },
      { kind: 'naf', ...rotated(NAF_STEP) },
      { kind: 'ownKey', ...rotated(OWN_KEY_STEP) },
    ]
    // Warm the worker: the context of PARAMS and the key set, outside any program's price.
    for (const program of programs) await program.run(attacker)
    idle = await idleHealth(server.url)
  }, 180_000)

  afterAll(() => server?.stop())

  it('another tenant’s search waits about one program while a tenant floods the dearest grown and NAF programs, none beyond 2× its price', async () => {
    for (const program of programs) {
      expect(program.units).toBeLessThanOrEqual(MAX_PROGRAM_COST)
      expect(program.units).toBeGreaterThan(0.75 * MAX_PROGRAM_COST)
    }
    const query = server.victim.side.query(4)
    const finished: string[] = []
    const { result, health } = await duringAttack(server.url, async () => {
      const flood = Array.from({ length: FLOOD }, (_, i) => {
        const program = programs[i % programs.length] as Dear
        return program.run(attacker).then((reply) => {
          finished.push(`${program.kind}${i}`)
          return { program, reply }
        })
      })
      // Every program admitted (queued, running or done) while some still wait.
      await untilQueue(
        server.url,
        (pool) => pool.queued > 0 && pool.queued + pool.running + finished.length === FLOOD,
        'the flood is queued',
      )
      const search = server.victim.client.search(query.bytes, { keySet: 'k' }).then((reply) => {
        finished.push('search')
        return reply
      })
      return { flood: await Promise.all(flood), search: await search }
    })
    const longest = Math.max(...result.flood.map(({ reply }) => jobMs(reply)))
    const searchWait = result.search.timing.queue ?? Number.POSITIVE_INFINITY
    const perUnit = result.flood.map(({ program, reply }) => ({
      kind: program.kind,
      units: program.units,
      wallMs: jobMs(reply),
      cpuMs: reply.timing.cpu ?? Number.NaN,
      cpuPerUnit: (reply.timing.cpu ?? Number.NaN) / program.units,
    }))
    const summary = perUnit
      .map(
        (p) =>
          `${p.kind} ${p.units.toFixed(0)} u: ${p.wallMs.toFixed(0)} ms (CPU ${p.cpuMs.toFixed(0)} ms, ${p.cpuPerUnit.toFixed(3)} ms/u)`,
      )
      .join('; ')
    console.log(
      `${summary}; the other tenant's search waited ${searchWait.toFixed(0)} ms (longest program ${longest.toFixed(0)} ms); finished: ${finished.join(' ')}`,
    )
    // The search went right after the program that was running when it arrived, and waited about that one.
    expect(finished.indexOf('search')).toBeLessThanOrEqual(1)
    expect(searchWait).toBeLessThanOrEqual(1.25 * longest)
    expect(Array.from(server.victim.side.search.decryptScores(result.search.responses).scores)).toEqual(
      Array.from(query.expected),
    )
    // No program ran more than 2× what it was charged: worker CPU time per unit against the
    // rate the server charges by — COST_UNIT_MS, or the reference's rate in the same flood
    // on a machine that makes every job slower. (Charged more than it ran gives a tenant
    // nothing; how close prices are from below is the calibration benchmark's to keep:
    // grown products at this n ran about 0.1 ms per unit when this test was written.)
    const reference = perUnit.filter((p) => p.kind === 'ownKey').map((p) => p.cpuPerUnit)
    const chargedRate = Math.max(COST_UNIT_MS, Math.min(...reference))
    console.log(
      `programs judged against ${chargedRate.toFixed(3)} ms/u (own-key rotations ${reference.map((r) => r.toFixed(3)).join(', ')})`,
    )
    for (const p of perUnit) expect(p.cpuPerUnit).toBeLessThan(CALIBRATION_FACTOR * chargedRate)
    expectHealthy({
      attack: 'underpriced work',
      test: `${FILE} › a flood of the dearest grown and NAF programs`,
      answer: `200 ×${FLOOD}; ${summary}; search queue ${searchWait.toFixed(0)} ms vs a program's ${longest.toFixed(0)} ms`,
      during: health,
      idle,
    })
  })
})
