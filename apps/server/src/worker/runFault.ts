import { existsSync } from 'node:fs'
import { HeError, sealCall, withScope } from '@sealbox/he-core'
import type { Fault, JobResult } from '../executor/jobMessages.ts'
import type { JobContext } from './PhaseClock.ts'

/** How long the `slow` fault keeps a worker busy. */
export const SLOW_FAULT_MS = 1500

/** The longest a `hold` waits for its gate by default: past any test's wait, short of a stuck run. */
export const HOLD_FAULT_MS = 60_000

/** How often a held job looks for its gate file (a poll interval; the worker stays occupied meanwhile). */
const GATE_POLL_MS = 5

/**
 * Test-only failures (FAULT_INJECTION, never in production mode), each the real
 * thing: the thread or process exits, loops forever, fills the 4 GiB WASM heap
 * until SEAL throws bad_alloc, makes SEAL throw one C++ exception, or keeps the
 * worker busy for `ms` (1.5 s by default: a long job, to fill queues; tests that
 * need the queue full for a while choose a duration well past what they wait for),
 * or hold the worker until the test releases it (`hold`: a barrier, so a test orders
 * "the worker is busy" before "these jobs queue" without guessing a duration).
 */
export async function runFault(job: JobContext, fault: Fault, ms?: number, gatePath?: string): Promise<JobResult> {
  if (!job.setup.faultInjection) throw new HeError('FORBIDDEN', 'fault injection is disabled on this server')
  if (!job.isolated && (fault === 'crash' || fault === 'hang')) {
    throw new HeError('INVALID_INPUT', `fault "${fault}" would take the whole server down in inline mode`)
  }
  switch (fault) {
    case 'crash':
      process.exit(70)
      break
    case 'hang':
      for (;;) {
        // A spinning worker is what node-seal does after an OOM at the heap cap.
      }
    case 'outOfMemory': {
      if (!job.isolated) throw new HeError('INVALID_INPUT', 'fault "outOfMemory" needs an isolated executor')
      // Never deleted: after bad_alloc the instance may deadlock, and the worker is replaced.
      const hog: unknown[] = []
      for (;;) {
        const plaintext = new job.seal.Plaintext()
        hog.push(plaintext)
        sealCall('fault: allocate', () => plaintext.resize(2 ** 26 * 1.5))
      }
    }
    case 'slow': {
      const until = performance.now() + (ms ?? SLOW_FAULT_MS)
      while (performance.now() < until) {
        // Busy on purpose: a worker occupied by one long job.
      }
      return { type: 'faultSurvived' }
    }
    case 'hold': {
      if (gatePath === undefined) throw new HeError('INVALID_INPUT', 'fault "hold" needs a gate')
      const until = performance.now() + (ms ?? HOLD_FAULT_MS)
      // The job occupies its worker (the scheduler counts it running) until the gate opens.
      while (!existsSync(gatePath)) {
        if (performance.now() > until) throw new HeError('TIMEOUT', `fault "hold": the gate was not opened in time`)
        await new Promise((resolve) => setTimeout(resolve, GATE_POLL_MS))
      }
      return { type: 'faultSurvived' }
    }
    case 'sealError':
      withScope((scope) => {
        const ciphertext = scope.track(new job.seal.Ciphertext())
        sealCall('fault: load garbage', () =>
          ciphertext.loadFromArray(job.search.ctx.context, new Uint8Array([1, 2, 3, 4])),
        )
      })
      return { type: 'faultSurvived' }
    default: {
      const never: never = fault
      throw new HeError('INVALID_INPUT', `unknown fault ${String(never)}`)
    }
  }
}
