import { createServer } from 'node:net'
import { HeError } from '@sealbox/he-core'
import { describe, expect, it } from 'vitest'
import { freePort } from './freePort.ts'
import { waitFor } from './waitFor.ts'

describe('waitFor', () => {
  it('resolves once check says true, treating a plain failure as "not yet"', async () => {
    let calls = 0
    await waitFor('the third call', () => {
      calls += 1
      if (calls === 1) throw new TypeError('connection refused')
      return calls >= 3
    })
    expect(calls).toBe(3)
  })

  it('gives up at once on an HeError from check', async () => {
    let calls = 0
    const failure = waitFor('a process that exited', () => {
      calls += 1
      throw new HeError('INTERNAL', 'exited (1) at start')
    })
    await expect(failure).rejects.toMatchObject({ code: 'INTERNAL', message: 'exited (1) at start' })
    expect(calls).toBe(1)
  })

  it('throws TIMEOUT naming what it waited for once its deadline has passed', async () => {
    const failure = waitFor('a port that never opens', () => false, 0)
    await expect(failure).rejects.toMatchObject({ code: 'TIMEOUT' })
    await expect(failure).rejects.toThrow(/a port that never opens/)
  })
})

describe('freePort', () => {
  it('returns a loopback port a server can listen on', async () => {
    const port = await freePort()
    expect(port).toBeGreaterThan(0)
    const server = createServer()
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(port, '127.0.0.1', resolve)
    })
    const address = server.address()
    expect(typeof address === 'object' && address?.port).toBe(port)
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })
})
