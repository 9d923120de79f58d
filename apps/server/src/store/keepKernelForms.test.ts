import { describe, expect, it } from 'vitest'
import { keepKernelForms } from './keepKernelForms.ts'

describe('keepKernelForms', () => {
  it('keeps the fresh form first, then stored forms while they fit', () => {
    const stored = [
      { key: 'a', bytes: 400 },
      { key: 'b', bytes: 300 },
      { key: 'c', bytes: 100 },
    ]
    expect(keepKernelForms(1000, 200, stored)).toEqual({ keepFresh: true, drop: [] })
    expect(keepKernelForms(700, 200, stored)).toEqual({ keepFresh: true, drop: ['b'] })
    expect(keepKernelForms(150, 200, stored)).toEqual({ keepFresh: false, drop: ['a', 'b'] })
    expect(keepKernelForms(0, undefined, stored)).toEqual({ keepFresh: false, drop: ['a', 'b', 'c'] })
  })

  it('keeps nothing when the uploads alone use the quota up (room below zero)', () => {
    expect(keepKernelForms(-5, 1, [{ key: 'a', bytes: 0 }])).toEqual({ keepFresh: false, drop: ['a'] })
  })
})
