import { KEY_SWITCH_LOCAL_WASM, KEY_SWITCH_WASM } from './keySwitchWasm.ts'
import { wasmModule } from './wasmModule.ts'

/** The functions keySwitch.wat exports: offsets are bytes into the kernel's heap (or its diagonals). */
export interface RnsKernelExports {
  ntt(a: number, n: number, tab: number, p: number): void
  intt(a: number, n: number, tab: number, p: number): void
  nttLazy(a: number, n: number, tab: number, p: number): void
  inttLazy(a: number, n: number, tab: number, p: number): void
  mulScalar(a: number, len: number, w: number, wq: number, p: number): void
  lift(dst: number, src: number, len: number, one: number, p: number): void
  permute(dst: number, src: number, table: number, n: number): void
  mulAcc(acc: number, x: number, y: number, len: number): void
  mulAccDiagonal(acc: number, x: number, y: number, len: number, accOff: number, xOff: number): void
  mulAccPermuted(acc0: number, acc1: number, x: number, table: number, y0: number, y1: number, len: number): void
  reduce(dst: number, acc: number, len: number, c: number, cq: number, one: number, p: number): void
  addInto(dst: number, src: number, len: number, p: number): void
  keyProduct(
    out0: number,
    out1: number,
    d: number,
    dStride: number,
    key: number,
    keyStride: number,
    key1Off: number,
    count: number,
    len: number,
    fold: number,
    c: number,
    cq: number,
    one: number,
    p: number,
  ): void
  modDownDelta(
    delta: number,
    tl: number,
    len: number,
    t: number,
    k: number,
    kq: number,
    q: number,
    qOne: number,
    pModQ: number,
    pModQq: number,
  ): void
  modDownFinish(dst: number, c: number, delta: number, len: number, inv: number, invq: number, q: number): void
}

const compiled: { shared?: WebAssembly.Module; local?: WebAssembly.Module } = {}

/** The kernel's module, its diagonals memory declared shared (or not): an import's flag must match. */
export function rnsKernelModule(shared: boolean): WebAssembly.Module {
  if (shared) {
    compiled.shared ??= wasmModule(KEY_SWITCH_WASM)
    return compiled.shared
  }
  compiled.local ??= wasmModule(KEY_SWITCH_LOCAL_WASM)
  return compiled.local
}

let compiles: boolean | undefined

/**
 * Whether this host compiles the kernel (SIMD and multi-memory: Node 22+, current Chrome and
 * Firefox). Where it does not, callers run the search in SEAL's evaluator instead.
 */
export function rnsKernelCompiles(): boolean {
  if (compiles === undefined) {
    try {
      rnsKernelModule(false)
      compiles = true
    } catch {
      compiles = false
    }
  }
  return compiles
}
