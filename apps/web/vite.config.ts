import react from '@vitejs/plugin-react'
import { defaultClientConditions, defineConfig } from 'vite'

/**
 * node-seal needs two things from Vite (packages/he-core/NODE-SEAL-FACTS.md §2): no pre-bundling (else the
 * dev server answers the .wasm request with index.html), and module workers. he-core's
 * `loadSeal()` passes `locateFile: undefined` so the glue's own `new URL(...wasm)` is
 * rewritten to the hashed asset. The source condition builds he-core from src/.
 */
export default defineConfig({
  plugins: [react()],
  resolve: { conditions: ['@sealbox/source', ...defaultClientConditions] },
  optimizeDeps: { exclude: ['node-seal'] },
  worker: { format: 'es' },
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2023', chunkSizeWarningLimit: 2048 },
  server: {
    headers: { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' },
  },
})
