import { fileURLToPath } from 'node:url'
import { build } from 'vite'

const PAGE_ROOT = fileURLToPath(new URL('../../page/', import.meta.url))

/**
 * Builds a benchmark page (by default the op table's: index.html + main + module worker +
 * node-seal's .wasm; the search client's page passes its own `root`) into `outDir` with Vite, using the settings of packages/he-core/NODE-SEAL-FACTS.md §2: node-seal excluded from
 * dependency optimisation, ES workers, and `locateFile: undefined` in the worker so the
 * hashed `.wasm` asset is found.
 */
export async function buildBenchPage(outDir: string, root: string = PAGE_ROOT): Promise<void> {
  await build({
    configFile: false,
    root,
    base: './',
    // 'error': the glue's Node-only `import('module')` is externalized for the browser, which Vite warns about.
    logLevel: 'error',
    resolve: { conditions: ['@sealbox/source'] },
    optimizeDeps: { exclude: ['node-seal'] },
    worker: { format: 'es' },
    build: { outDir, emptyOutDir: true, target: 'esnext', minify: false, reportCompressedSize: false },
  })
}
