/**
 * Compiles a kernel carried as base64 (the generated `*Wasm.ts` modules). A few kilobytes at
 * most, so it compiles synchronously on any thread; `atob` is in every browser and in Node.
 */
export function wasmModule(base64: string): WebAssembly.Module {
  const binary = atob(base64)
  const bytes = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
  return new WebAssembly.Module(bytes)
}
