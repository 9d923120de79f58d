import { HeError } from '@sealbox/he-core'
import { describe, expect, it } from 'vitest'
import { ReceivingBudget } from './ReceivingBudget.ts'

const bounds = { nodeBytes: 1000, addressBytes: 600, tenantBytes: 400, requestTimeoutMs: 30_000 }

function refusal(run: () => unknown): HeError {
  try {
    run()
  } catch (error) {
    if (error instanceof HeError) return error
    throw error
  }
  throw new HeError('INTERNAL', 'expected a refusal')
}

describe('ReceivingBudget', () => {
  it('holds a tenant to its bound, then its address, then the node', () => {
    let now = 0
    const budget = new ReceivingBudget(bounds, () => now)
    budget.reserve({ address: 'a', tenant: 't1' }, 400)
    const tenant = refusal(() => budget.reserve({ address: 'a', tenant: 't1' }, 1))
    expect(tenant.code).toBe('RATE_LIMITED')
    expect(tenant.details).toMatchObject({ setting: 'TENANT_RECEIVING_BYTES', retryAfterSeconds: 30 })
    now = 10_000
    budget.reserve({ address: 'a', tenant: 't2' }, 200)
    const address = refusal(() => budget.reserve({ address: 'a', tenant: 't3' }, 1))
    expect(address.details).toMatchObject({ setting: 'ADDRESS_RECEIVING_BYTES', retryAfterSeconds: 20 })
    budget.reserve({ address: 'b' }, 400)
    const node = refusal(() => budget.reserve({ address: 'c' }, 1))
    expect(node.code).toBe('OVERLOADED')
    expect(node.details).toMatchObject({ setting: 'RECEIVING_BYTES' })
    expect(budget.stats()).toEqual({ reservedBytes: 1000, arrivedBytes: 0, bodies: 3 })
  })

  it('grows a streamed body chunk by chunk and frees everything once, on release', () => {
    const budget = new ReceivingBudget(bounds)
    const body = budget.reserve({ address: 'a', tenant: 't' }, 0)
    body.grow(300)
    body.arrived(300)
    expect(() => body.grow(101)).toThrow(HeError)
    body.grow(100)
    expect(budget.stats()).toEqual({ reservedBytes: 400, arrivedBytes: 300, bodies: 1 })
    body.release()
    body.release()
    body.grow(50)
    expect(budget.stats()).toEqual({ reservedBytes: 0, arrivedBytes: 0, bodies: 0 })
    budget.reserve({ address: 'a', tenant: 't' }, 400)
  })
})
