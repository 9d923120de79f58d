import { once } from 'node:events'
import { HeError, SealboxClient } from '@sealbox/he-core/client'
import { describe, expect, it } from 'vitest'
import { clientFailure } from './clientFailure.ts'

describe('clientFailure', () => {
  it('reads an error reply: its status, code and Server-Timing', () => {
    const error = new HeError('OVERLOADED', 'the queue is full', {
      details: { status: 503, timing: { queue: 1.5, total: 2 }, hint: 'retry later' },
    })
    expect(clientFailure(error)).toEqual({ status: 503, code: 'OVERLOADED', phases: { queue: 1.5, total: 2 } })
  })

  it('is NETWORK_ERROR when nothing answered, and CLIENT_TIMEOUT when the signal timed out', async () => {
    // A port nobody listens on: a real refused connection through the real client.
    const unreachable = new SealboxClient({ baseUrl: 'http://127.0.0.1:9' })
    const refused = await unreachable.health().then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(clientFailure(refused)).toEqual({ status: 0, code: 'NETWORK_ERROR', phases: {} })
    expect(clientFailure(new Error('socket hang up'))).toMatchObject({ status: 0, code: 'NETWORK_ERROR' })

    const signal = AbortSignal.timeout(1)
    await once(signal, 'abort')
    const aborted = await unreachable.health({ signal }).then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(clientFailure(aborted, signal)).toEqual({ status: 0, code: 'CLIENT_TIMEOUT', phases: {} })
  })

  it('keeps the code of a reply the client refused (no status: outside the contract)', () => {
    const error = new HeError('INTERNAL', 'GET /healthz: the reply does not match the contract', {
      details: { contract: true },
    })
    expect(clientFailure(error)).toEqual({ status: 0, code: 'INTERNAL', phases: {} })
  })
})
