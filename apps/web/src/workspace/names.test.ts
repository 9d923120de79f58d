import { describe, expect, it } from 'vitest'
import { freeName, nameProblem, nextVariableName } from './names.ts'

describe('names', () => {
  it('explains why a name cannot be used', () => {
    expect(nameProblem('', new Set())).toMatch(/Give it a name/)
    expect(nameProblem('1x', new Set())).toMatch(/start with a letter/)
    expect(nameProblem('a-b', new Set())).toMatch(/letters, digits or _/)
    expect(nameProblem('x'.repeat(65), new Set())).toMatch(/at most 64/)
    expect(nameProblem('x', new Set(['x']))).toBe("'x' already exists; pick another name or remove the old one")
    expect(nameProblem('x_2', new Set(['x']))).toBeUndefined()
  })

  it('finds the next free name', () => {
    expect(freeName('r1', new Set())).toBe('r1')
    expect(freeName('z', new Set(['z', 'z2']))).toBe('z3')
    expect(nextVariableName(new Set())).toBe('x')
    expect(nextVariableName(new Set(['x', 'y']))).toBe('z')
    expect(nextVariableName(new Set(['x', 'y', 'z', 'w', 'u', 'v', 'v1']))).toBe('v12')
  })
})
