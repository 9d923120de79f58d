import { describe, expect, it } from 'vitest'
import { bfvWorkspace, step, variable } from './testWorkspace.ts'
import { defaultPrint, linkSpecOf, unrebuildable, workspaceSpecOf } from './workspaceSpecOf.ts'

describe('workspaceSpecOf', () => {
  it('rebuilds variables from the numbers they were typed from, through encryptions and decryptions', () => {
    const state = bfvWorkspace({
      variables: [
        variable('x', { values: '1, 2, -3' }),
        variable('x_dec', { kind: 'plaintext', origin: 'convert', source: 'x', values: undefined }),
      ],
    })
    const outcome = workspaceSpecOf(state, ['x_dec'])
    expect(outcome.problem).toBeUndefined()
    expect(outcome.spec?.variables).toEqual([{ name: 'x_dec', kind: 'plaintext', values: [1n, 2n, -3n] }])
    expect(outcome.spec?.print).toEqual(['x_dec'])
  })

  it('prints the pipeline leaves by default, else the variables it can rebuild', () => {
    const variables = [variable('x'), variable('up', { origin: 'upload', values: undefined })]
    expect(defaultPrint(bfvWorkspace({ variables }))).toEqual(['x'])
    const pipeline = [step('negate', 'x', 'r1'), step('negate', 'r1', 'r2'), step('negate', 'x', 'r3')]
    expect(defaultPrint(bfvWorkspace({ variables, pipeline }))).toEqual(['r2', 'r3'])
  })

  it('never asks the program to print an uploaded value it cannot define', () => {
    const state = bfvWorkspace({
      variables: [variable('x', { origin: 'upload', values: undefined }), variable('y')],
    })
    expect([...unrebuildable(state)]).toEqual(['x'])
    const outcome = workspaceSpecOf(state, ['x', 'y'])
    expect(outcome.spec?.print).toEqual(['y'])
    expect(outcome.leftOut).toEqual(['x'])
    expect(workspaceSpecOf(state, ['x'])).toEqual({ problem: 'Choose at least one value to print.', leftOut: ['x'] })
  })

  it('says which step reads an uploaded value instead of generating a program that cannot run', () => {
    const state = bfvWorkspace({
      variables: [variable('x', { origin: 'upload', values: undefined })],
      pipeline: [step('negate', 'x', 'r1')],
    })
    expect(workspaceSpecOf(state, ['r1']).problem).toMatch(/^Step 1 \(negate\) reads 'x', which was uploaded/)
  })

  it('links a context alone (no values yet) as its parameters and the keys made', () => {
    const state = bfvWorkspace({
      keys: {
        keySetId: 'k',
        secretKey: { kind: 'secretKey', bytes: 1, seeded: false, source: 'generated', createdAt: 0 },
        relinKeys: { kind: 'relinKeys', bytes: 1, seeded: true, source: 'generated', createdAt: 0 },
      },
    })
    expect(linkSpecOf(state)).toEqual({
      spec: {
        version: 1,
        params: state.applied?.input,
        keys: { relin: true, galois: 'none', seeded: true },
        variables: [],
        steps: [],
        print: [],
      },
      leftOut: [],
    })
    // With a value typed, the link is the workspace as for code.
    const typed = bfvWorkspace({ variables: [variable('x')] })
    expect(linkSpecOf(typed).spec?.print).toEqual(['x'])
    expect(linkSpecOf(bfvWorkspace({ applied: undefined })).problem).toMatch(/Create the context/)
  })

  it('needs parameters and a valid pipeline first', () => {
    expect(workspaceSpecOf(bfvWorkspace({ applied: undefined }), ['x']).problem).toMatch(/Create the context/)
    const broken = bfvWorkspace({ variables: [variable('x')], pipeline: [step('negate', 'x', '')] })
    expect(workspaceSpecOf(broken, ['x']).problem).toMatch(/^Step 1 \(negate\): result name/)
  })
})
