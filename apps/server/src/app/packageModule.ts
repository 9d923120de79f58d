import { fileURLToPath } from 'node:url'

/**
 * True when the server runs from its TypeScript sources (`node --conditions=@sealbox/source
 * src/main.ts`, Node's type stripping), false when it runs from the built `dist/` with
 * plain Node. Worker threads and child processes must start the same way.
 */
export const RUNS_FROM_SOURCE = import.meta.url.endsWith('.ts')

/**
 * The file of one of this package's modules, by its path under `src/` without extension
 * (`worker/threadWorker`): the `.ts` source or its built `.js`, whichever this process runs.
 */
export function packageModuleFile(pathUnderSrc: string): string {
  return fileURLToPath(new URL(`../${pathUnderSrc}${RUNS_FROM_SOURCE ? '.ts' : '.js'}`, import.meta.url))
}

/**
 * Node flags for a worker thread or child process: from source, the package condition
 * that points `@sealbox/*` imports at `src/`; built, none (the `import` condition finds `dist/`).
 */
export const CHILD_EXEC_ARGV: readonly string[] = RUNS_FROM_SOURCE ? ['--conditions=@sealbox/source'] : []
