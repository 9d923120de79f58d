import { fileURLToPath } from 'node:url'
import { build } from 'vite'

/** apps/web, resolved from this file. */
export const WEB_ROOT = fileURLToPath(new URL('../..', import.meta.url))
/** Where `vite build` writes the sandbox (the server serves it at `/`). */
export const DIST_DIR = fileURLToPath(new URL('../../dist', import.meta.url))

/** Builds the sandbox with its own vite.config.ts, so a clean checkout tests what it ships. */
export async function buildApp(): Promise<void> {
  // Vitest runs with NODE_ENV=test, which would make Vite bundle React's development build.
  const previous = process.env.NODE_ENV
  process.env.NODE_ENV = 'production'
  try {
    await build({ root: WEB_ROOT, configFile: `${WEB_ROOT}/vite.config.ts`, logLevel: 'warn', mode: 'production' })
  } finally {
    process.env.NODE_ENV = previous
  }
}
