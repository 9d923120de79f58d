import { repoReadme } from './repoReadme.ts'

const SECTION = '## he-core in 20 lines'

/** The repository README's he-core example, and the output its last comment promises. */
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
  const readme = repoReadme()
  const start = readme.indexOf(`${SECTION}\n`)
  const code = /```ts\n([\s\S]*?)```/.exec(readme.slice(start))?.[1]
  const promised = code && /console\.log\(.*\/\/ (.+)$/m.exec(code)?.[1]
  if (start < 0 || !code || !promised) {
    throw new Error(`README.md: no \`${SECTION}\` section with a ts block whose console.log line says what it prints`)
  }
  return { code, promised, normalize: (printed) => printed.replace(/\s+/g, '') }
}
