import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, test } from 'vitest'
import { commitMessageProblems, MAX_SUBJECT } from './commitMsg.mjs'

const HERE = dirname(fileURLToPath(import.meta.url))

describe('commit-msg check', () => {
  test('a short subject with a body after a blank line passes', () => {
    expect(commitMessageProblems('server: refuse big key sets at upload\n\nThe detail.\n')).toEqual([])
  })

  test('a subject over 72 characters is refused with its length', () => {
    const subject = 'x'.repeat(MAX_SUBJECT + 1)
    expect(commitMessageProblems(`${subject}\n`)).toEqual([
      `the subject has ${MAX_SUBJECT + 1} characters; keep it to ${MAX_SUBJECT} and put the detail in the body`,
    ])
    expect(commitMessageProblems(`${'x'.repeat(MAX_SUBJECT)}\n`)).toEqual([])
  })

  test('a body glued to the subject, or an empty subject, is refused', () => {
    expect(commitMessageProblems('subject\nbody\n')).toEqual(['leave a blank line between the subject and the body'])
    expect(commitMessageProblems('# only a comment\n\n')).toEqual(['the subject is empty'])
  })

  test("git's comment lines and its own merge subjects are left alone", () => {
    expect(commitMessageProblems(`# Please enter the commit message\nfix: one thing\n`)).toEqual([])
    expect(commitMessageProblems(`Merge branch '${'a'.repeat(90)}'\n`)).toEqual([])
  })

  test('the hook script exits 1 and says why on a long subject, 0 on a good one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'commit-msg-'))
    try {
      const file = join(dir, 'COMMIT_EDITMSG')
      writeFileSync(file, `${'y'.repeat(100)}\n`)
      const bad = spawnSync(process.execPath, [join(HERE, 'commitMsg.mjs'), file], { encoding: 'utf8' })
      expect(bad.status).toBe(1)
      expect(bad.stderr).toContain('the subject has 100 characters')
      writeFileSync(file, 'docs: say what the hook checks\n')
      const good = spawnSync(process.execPath, [join(HERE, 'commitMsg.mjs'), file], { encoding: 'utf8' })
      expect(good.status).toBe(0)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
