import { HeError } from '@sealbox/he-core'
import { readmeCodeBlock } from './packageReadme.ts'

const SECTION = '## he-core in 20 lines'

/** The README's example, and the output its last comment promises. */
export interface ReadmeExample {
  /** The example's TypeScript, exactly as the README shows it. */
  code: string
  /** What the `console.log` line's comment says it prints, e.g. `[10n, -40n, 90n, -160n]`. */
  promised: string
  /** Printed output without Node's spacing, so Node's and a page's rendering compare equal. */
  normalize(printed: string): string
}

/** Reads the example from the README each time, so the tests keep the README true. */
export function readmeExample(): ReadmeExample {
  const code = readmeCodeBlock(SECTION)
  const promised = /console\.log\(.*\/\/ (.+)$/m.exec(code)?.[1]
  if (!promised)
    throw new HeError(
      'INTERNAL',
      `README.md: the \`${SECTION}\` example's console.log line does not say what it prints`,
    )
  return { code, promised, normalize: (printed) => printed.replace(/\s+/g, '') }
}
