// The order test files start in (root vitest.config.ts): by `sequence.groupOrder`, then the
// longest first by scripts/testDurations.json, across projects. Vitest's own order runs one
// project after another and, without a cache (a fresh clone), the largest files first: the
// parallel group then ended with the browser files alone and one long server file after them.
// A file with no recorded duration (a new one) starts first, as in vitest's own order.
import { relative } from 'node:path'
import { BaseSequencer } from 'vitest/node'
import { readDurations } from './testDurations.mjs'

/**
 * Sorts `files` by group, then by expected seconds (longest first, unknown first of all),
 * then by path.
 * @template {{ moduleId: string, project: { config: { sequence: { groupOrder: number } } } }} F
 * @param {F[]} files
 * @param {Record<string, number>} seconds
 * @param {string} root
 * @returns {F[]}
 */
export function longestFirst(files, seconds, root) {
  const key = (file) => relative(root, file.moduleId)
  const expected = (file) => seconds[key(file)] ?? Number.POSITIVE_INFINITY
  return [...files].sort(
    (a, b) =>
      a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder ||
      expected(b) - expected(a) ||
      (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0),
  )
}

export class LongestFirstSequencer extends BaseSequencer {
  async sort(files) {
    return longestFirst(files, readDurations(), this.ctx.config.root)
  }
}
