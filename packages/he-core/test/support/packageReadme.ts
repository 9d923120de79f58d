import { readFileSync } from 'node:fs'

/** The repository's README.md, which the package tests keep true. */
export function repoReadme(): string {
  return readFileSync(new URL('../../../../README.md', import.meta.url), 'utf8')
}
