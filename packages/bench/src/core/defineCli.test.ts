import { describe, expect, it } from 'vitest'
import { commandLine } from './defineCli.ts'

describe('commandLine', () => {
  it('is the bare command without flags, and drops the separator npm passes on', () => {
    expect(commandLine('npm run benchmark:server', [])).toBe('npm run benchmark:server')
    expect(commandLine('npm run benchmark:server', ['--'])).toBe('npm run benchmark:server')
  })

  it('writes the flags after one separator, as a user types them from the root', () => {
    expect(commandLine('npm run benchmark', ['--', '--quick', '--engines', 'node'])).toBe(
      'npm run benchmark -- --quick --engines node',
    )
  })
})
