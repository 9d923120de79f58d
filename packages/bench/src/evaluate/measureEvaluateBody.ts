import type { SealboxClient } from '@sealbox/he-core/client'
import { BenchError } from '../BenchError.ts'
import type { EvaluateBodyCase } from './evaluateBodyCase.ts'
import type { WireCounter } from './wireCounter.ts'

/** The phases the report shows, in `Server-Timing` order; `loop` = decode + encode. */
export const EVALUATE_PHASES = [
  'decode',
  'queue',
  'deserialize',
  'compute',
  'serialize',
  'transfer',
  'encode',
  'total',
] as const

/** One measured request. */
export interface EvaluateSample {
  /** Server-Timing phases, ms (0 when the server did not report one). */
  phases: Record<(typeof EVALUATE_PHASES)[number], number>
  /** The route's event-loop time: decode + encode, ms. */
  loopMs: number
  /** Client wall time of the call, ms. */
  elapsedMs: number
  bytesUp: number
  bytesDown: number
}

/**
 * Sends `warmup` then `requests` evaluate calls of one case, one at a time (so the
 * server's loop serves nothing else and its phases are the request's own), checks the
 * first answer decrypts to the plain result, and returns the measured samples.
 */
export async function measureEvaluateBody(
  client: SealboxClient,
  wire: WireCounter,
  testCase: EvaluateBodyCase,
  keySet: string,
  counts: { warmup: number; requests: number },
): Promise<EvaluateSample[]> {
  const call = { params: testCase.params, program: testCase.program, inputs: testCase.inputs, keySet }
  const first = await client.evaluate(call)
  const out = first.outputs.out
  if (out === undefined || !testCase.verify(out)) {
    throw new BenchError('ENGINE_FAILED', `${testCase.name}: the server's output does not decrypt to the plain result`)
  }
  for (let i = 0; i < counts.warmup; i++) await client.evaluate(call)
  const samples: EvaluateSample[] = []
  for (let i = 0; i < counts.requests; i++) {
    const result = await client.evaluate(call)
    const phases = Object.fromEntries(EVALUATE_PHASES.map((phase) => [phase, result.timing[phase] ?? 0])) as Record<
      (typeof EVALUATE_PHASES)[number],
      number
    >
    samples.push({
      phases,
      loopMs: phases.decode + phases.encode,
      elapsedMs: result.elapsedMs,
      bytesUp: wire.last.up,
      bytesDown: wire.last.down,
    })
  }
  return samples
}
