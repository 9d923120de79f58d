import { describe, expect, it } from 'vitest'
import { bfvWorkspace, step, variable } from './testWorkspace.ts'
import { holdsWork, inWords, replacingLabel, secretKeyName, workspaceLosses } from './workspaceLosses.ts'
import type { KeyEntry } from './workspaceState.ts'

const key = (kind: KeyEntry['kind']): KeyEntry => ({ kind, bytes: 1, seeded: false, source: 'generated', createdAt: 0 })

describe('workspaceLosses', () => {
  const state = bfvWorkspace({
    keys: {
      keySetId: '1a2b3c4d5e6f',
      secretKey: key('secretKey'),
      publicKey: key('publicKey'),
      relinKeys: key('relinKeys'),
    },
    variables: [variable('alpha'), variable('alpha2', { origin: 'pipeline' }), variable('w', { kind: 'plaintext' })],
    pipeline: [step('add', 'alpha', 'alpha2', { b: 'alpha' })],
  })

  it('names the secret key by its key set, then counts the other keys, then every value by name', () => {
    expect(secretKeyName(state)).toBe('secret key of key set 1a2b3c4d')
    expect(workspaceLosses(state)).toEqual([
      'the secret key of key set 1a2b3c4d',
      '2 other keys',
      '2 ciphertexts (alpha, alpha2)',
      '1 plaintext (w)',
      'a pipeline of 1 step',
    ])
    // New parameters keep the pipeline.
    expect(workspaceLosses(state, { pipeline: false })).not.toContain('a pipeline of 1 step')
    // A new secret key drops the keys and the ciphertexts only.
    expect(workspaceLosses(state, { pipeline: false, plaintexts: false })).toEqual([
      'the secret key of key set 1a2b3c4d',
      '2 other keys',
      '2 ciphertexts (alpha, alpha2)',
    ])
  })

  it('labels the destructive button with what goes, the secret key first', () => {
    expect(replacingLabel('Load the example', state)).toBe(
      'Load the example (replaces the secret key of key set 1a2b3c4d, 2 other keys, 2 ciphertexts, 1 plaintext and a pipeline of 1 step)',
    )
    expect(replacingLabel('Start over', bfvWorkspace())).toBe('Start over')
    expect(replacingLabel('Discard', state, { pipeline: false, verb: 'drops' })).toBe(
      'Discard (drops the secret key of key set 1a2b3c4d, 2 other keys, 2 ciphertexts and 1 plaintext)',
    )
  })

  it('holds work when any key or value exists', () => {
    expect(holdsWork(state)).toBe(true)
    expect(holdsWork(bfvWorkspace({ pipeline: [step('negate', 'x', 'r')] }))).toBe(false)
    expect(holdsWork(bfvWorkspace({ keys: { publicKey: key('publicKey') } }))).toBe(true)
    expect(workspaceLosses(bfvWorkspace({ keys: { publicKey: key('publicKey') } }))).toEqual(['1 key'])
  })

  it('lists in prose', () => {
    expect([inWords([]), inWords(['a']), inWords(['a', 'b']), inWords(['a', 'b', 'c'])]).toEqual([
      '',
      'a',
      'a and b',
      'a, b and c',
    ])
  })
})
