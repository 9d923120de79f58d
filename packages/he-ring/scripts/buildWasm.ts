// Compiles he-ring's hand-written WebAssembly kernels (src/*.wat) into TypeScript modules
// that carry the bytes (base64), so browsers and Node load them without a file fetch. The
// drift tests in `src/DyadicAccumulator.test.ts` and `src/RnsKernel.test.ts` fail when the
// committed modules no longer match their sources.
// Run: pnpm --filter @sealbox/he-ring build:wasm
import { readFileSync, writeFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { compileWat, unsharedVariant, wasmModuleSource } from './compileWat.ts'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const kernels = ['src/mulAccumulate.wat', 'src/keySwitch.wat']
for (const kernel of kernels) {
  const watPath = join(root, kernel)
  const text = readFileSync(watPath, 'utf8')
  const bytes = await compileWat(text, basename(watPath))
  // The key-switching kernel also comes with its diagonals memory unshared (browsers without isolation).
  const variants: Record<string, Uint8Array> =
    basename(watPath) === 'keySwitch.wat' ? { local: await compileWat(unsharedVariant(text), basename(watPath)) } : {}
  const out = watPath.replace(/\.wat$/, 'Wasm.ts')
  writeFileSync(out, wasmModuleSource(basename(watPath), bytes, variants))
  console.log(`${kernel} → ${out.slice(root.length + 1)} (${bytes.length} bytes)`)
}
