import { Writable } from 'node:stream'
import { describe, expect, test } from 'vitest'
import { checkAndTest } from './checkAndTest.mjs'

/** A step that is plain Node running `source`. */
function nodeStep(name, source) {
  return { name, command: process.execPath, args: ['-e', source] }
}

function collect() {
  let text = ''
  const out = new Writable({
    write(chunk, _encoding, done) {
      text += chunk.toString()
      done()
    },
  })
  return { out, text: () => text }
}

describe('checkAndTest', () => {
  test('passes when the tests and every check pass, and names each check once the tests ended', async () => {
    const { out, text } = collect()
    const status = await checkAndTest({
      checks: [nodeStep('typecheck', 'console.log("quiet when it passes")'), nodeStep('lint', '')],
      tests: nodeStep('tests', ''),
      out,
    })
    expect(status).toBe(0)
    expect(text()).not.toContain('quiet when it passes')
    expect(text().trim().split('\n').at(-1)).toBe('sealbox checks: typecheck passed, lint passed')
  })

  test('fails with a failing check, printing what it said, even when the tests pass', async () => {
    const { out, text } = collect()
    const status = await checkAndTest({
      checks: [nodeStep('typecheck', ''), nodeStep('lint', 'console.error("biome: 1 error"); process.exit(3)')],
      tests: nodeStep('tests', ''),
      out,
    })
    expect(status).toBe(3)
    expect(text()).toContain('[lint] output:\nbiome: 1 error')
    expect(text().trim().split('\n').at(-1)).toBe('sealbox checks: typecheck passed, lint failed')
  })

  test("fails with the tests' own status when the tests fail and the checks pass", async () => {
    const { out, text } = collect()
    const status = await checkAndTest({
      checks: [nodeStep('typecheck', ''), nodeStep('lint', '')],
      tests: nodeStep('tests', 'process.exit(1)'),
      out,
    })
    expect(status).toBe(1)
    expect(text().trim().split('\n').at(-1)).toBe('sealbox checks: typecheck passed, lint passed')
  })

  test('counts a command that cannot start as a failed check', async () => {
    const { out, text } = collect()
    const status = await checkAndTest({
      checks: [{ name: 'lint', command: '/nonexistent/sealbox-lint', args: [] }],
      tests: nodeStep('tests', ''),
      out,
    })
    expect(status).toBe(127)
    expect(text()).toContain('[lint] failed (exit 127)')
  })
})
