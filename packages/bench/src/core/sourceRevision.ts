import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

/** The source a report was measured at, recorded in its JSON and Markdown. */
export interface SourceRevision {
  /** `git rev-parse --short HEAD`, or `unknown` outside a git checkout. */
  commit: string
  /** Tracked files differed from that commit (results files aside: the run writes them). */
  dirty: boolean
}

// The checkout this file is in, whatever directory the benchmark was started from.
const HERE = fileURLToPath(new URL('.', import.meta.url))

function git(args: string[], dir: string): string {
  return execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
}

/** The commit a checkout (default: this one) is at, and whether it had uncommitted changes. */
export function sourceRevision(dir: string = HERE): SourceRevision {
  try {
    const commit = git(['rev-parse', '--short', 'HEAD'], dir)
    const changes = git(
      ['status', '--porcelain', '--untracked-files=no', '--', ':(top)', ':(top,exclude)packages/bench/results'],
      dir,
    )
    return { commit, dirty: changes !== '' }
  } catch {
    // A source tarball has no .git: say so rather than fail a finished run.
    return { commit: 'unknown', dirty: false }
  }
}

const REVISION_LINE = /^Source: commit `[^`]*`.*\n/m

/** The Markdown line naming `revision`, e.g. "Source: commit `abc1234` (clean working tree)." */
export function revisionLine(revision: SourceRevision): string {
  return `Source: commit \`${revision.commit}\` (${revision.dirty ? 'with uncommitted changes' : 'clean working tree'}).\n`
}

/** `markdown` with its revision line set to `revision`, after the title (replacing an older one). */
export function stampMarkdown(markdown: string, revision: SourceRevision): string {
  const line = revisionLine(revision)
  if (REVISION_LINE.test(markdown)) return markdown.replace(REVISION_LINE, line)
  const end = markdown.indexOf('\n')
  return end < 0 ? `${markdown}\n\n${line}` : `${markdown.slice(0, end + 1)}\n${line}${markdown.slice(end + 1)}`
}

/** `json` with a `revision` field first, when it is an object. */
export function stampJson(json: unknown, revision: SourceRevision): unknown {
  return json !== null && typeof json === 'object' && !Array.isArray(json) ? { revision, ...json } : json
}
