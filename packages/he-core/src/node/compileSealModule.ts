import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { capWasmMemory } from '../seal/capWasmMemory.ts'

/**
 * Compiles node-seal's WebAssembly binary for worker threads (`LoadSealOptions.wasmModule`),
 * its heap capped at `maxHeapBytes` when given: past that, SEAL throws std::bad_alloc
 * (answered OUT_OF_MEMORY) instead of growing toward the 4 GiB cap.
 */
export async function compileSealModule(options: { maxHeapBytes?: number } = {}): Promise<WebAssembly.Module> {
  const glue = fileURLToPath(import.meta.resolve('node-seal/throws'))
  const file = await readFile(glue.replace(/index_throws\.js$/, 'seal_throws.wasm'))
  const binary = new Uint8Array(file.buffer, file.byteOffset, file.byteLength) as Uint8Array<ArrayBuffer>
  return WebAssembly.compile(options.maxHeapBytes === undefined ? binary : capWasmMemory(binary, options.maxHeapBytes))
}
