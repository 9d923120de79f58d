#!/usr/bin/env node
// The commit-msg check the repo installs (.githooks/commit-msg, set as core.hooksPath by
// `npm start`, `npm test` and `npm run setup`): a subject of at most 72 characters, then a
// blank line before any body, so `git log --oneline` reads as a list of changes and the
// detail lives in the body. Plain Node, no dependencies.
import { readFileSync } from 'node:fs'

export const MAX_SUBJECT = 72

/** Returns the problems with a commit message (empty when it is fine). */
export function commitMessageProblems(message) {
  const lines = message
    .split('\n')
    .filter((line) => !line.startsWith('#'))
    .map((line) => line.trimEnd())
  while (lines.length > 0 && lines[0] === '') lines.shift()
  const [subject = '', second] = lines
  const problems = []
  if (subject === '') problems.push('the subject is empty')
  // Git's own messages (merges, reverts, fixups) are left as git writes them.
  if (/^(Merge |Revert "|fixup! |squash! )/.test(subject)) return problems
  if (subject.length > MAX_SUBJECT)
    problems.push(
      `the subject has ${subject.length} characters; keep it to ${MAX_SUBJECT} and put the detail in the body`,
    )
  if (second !== undefined && second !== '') problems.push('leave a blank line between the subject and the body')
  return problems
}

const file = process.argv[2]
if (file) {
  const problems = commitMessageProblems(readFileSync(file, 'utf8'))
  if (problems.length > 0) {
    process.stderr.write(`commit message: ${problems.join('; ')}\n`)
    process.exit(1)
  }
}
