import { readFileSync } from 'node:fs'
import { HeError } from '@sealbox/he-core'

/** he-core's README.md, the page a package user reads first; the package tests keep it true. */
export function packageReadme(): string {
  return readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
}

/** The first ```ts block under `heading` in the README. */
export function readmeCodeBlock(heading: string): string {
  const readme = packageReadme()
  const start = readme.indexOf(`${heading}\n`)
  const code = start < 0 ? undefined : /```ts\n([\s\S]*?)```/.exec(readme.slice(start))?.[1]
  if (!code) throw new HeError('INTERNAL', `README.md: no \`${heading}\` section with a ts block`)
  return code
}
