import SEAL, { type MainModule } from 'node-seal/throws'
import { HeError } from '../errors/HeError.ts'
import { resetSealOutOfMemory } from './sealOutOfMemory.ts'

/** The node-seal module type (the `throws` build: transparent results throw). */
export type Seal = MainModule

/** Options for the first load on a thread; later calls get the memoised module. */
export interface LoadSealOptions {
  /**
   * A compiled node-seal WebAssembly module (e.g. compiled once on the main thread
   * and posted to workers), which skips fetching and compiling the binary again.
   */
  wasmModule?: WebAssembly.Module
}

interface LoadedSeal {
  seal: Seal
  memory: WebAssembly.Memory | undefined
  module: WebAssembly.Module | undefined
}

let loading: Promise<LoadedSeal> | undefined
let loaded: LoadedSeal | undefined

function findMemory(instance: WebAssembly.Instance): WebAssembly.Memory | undefined {
  for (const value of Object.values(instance.exports)) {
    if (value instanceof WebAssembly.Memory) return value
  }
  return undefined
}

type InstantiateResult = WebAssembly.WebAssemblyInstantiatedSource

/**
 * node-seal exports no handle on its heap, and without a precompiled module the glue
 * fetches and compiles the binary itself. While that first load runs, watch
 * `WebAssembly.instantiate*` for the instance that carries SEAL's memory. Loading
 * happens once per thread, so the wrapper is in place for that one call only.
 */
function captureInstantiation(onInstance: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void) {
  const wasm = WebAssembly as unknown as {
    instantiate: (...args: unknown[]) => Promise<InstantiateResult | WebAssembly.Instance>
    instantiateStreaming?: (...args: unknown[]) => Promise<InstantiateResult>
  }
  const original = { instantiate: wasm.instantiate, instantiateStreaming: wasm.instantiateStreaming }
  const seen = (result: InstantiateResult | WebAssembly.Instance) => {
    if ('instance' in result && findMemory(result.instance)) onInstance(result.instance, result.module)
    return result
  }
  wasm.instantiate = (...args) => original.instantiate.apply(WebAssembly, args).then(seen)
  if (original.instantiateStreaming) {
    const streaming = original.instantiateStreaming
    wasm.instantiateStreaming = (...args) => streaming.apply(WebAssembly, args).then(seen) as Promise<InstantiateResult>
  }
  return () => {
    wasm.instantiate = original.instantiate
    if (original.instantiateStreaming) wasm.instantiateStreaming = original.instantiateStreaming
  }
}

async function instantiate(options: LoadSealOptions): Promise<LoadedSeal> {
  let memory: WebAssembly.Memory | undefined
  let module: WebAssembly.Module | undefined = options.wasmModule
  // node-seal has no export for its heap, so capture the instance as it is made.
  // The Emscripten `instantiateWasm` hook is the documented way in; `locateFile:
  // undefined` lets bundlers (Vite) rewrite the glue's own `new URL(..wasm)`.
  const restore = module
    ? undefined
    : captureInstantiation((instance, compiled) => {
        memory = findMemory(instance)
        module = compiled
      })
  const seal = await SEAL({
    locateFile: undefined,
    ...(module
      ? {
          instantiateWasm(
            imports: WebAssembly.Imports,
            done: (i: WebAssembly.Instance, m: WebAssembly.Module) => void,
          ) {
            void WebAssembly.instantiate(module as WebAssembly.Module, imports).then((instance) => {
              memory = findMemory(instance)
              done(instance, module as WebAssembly.Module)
            })
            return {}
          },
        }
      : {}),
  } as Parameters<typeof SEAL>[0]).finally(() => restore?.())
  return { seal, memory, module }
}

/**
 * Loads node-seal once per thread (browser main thread, Web Worker, Node worker)
 * and returns the same module on every call. Every call to node-seal's factory
 * would create a new, isolated WASM instance whose objects cannot mix with ours.
 */
export function loadSeal(options: LoadSealOptions = {}): Promise<Seal> {
  loading ??= instantiate(options).then(
    (result) => {
      loaded = result
      return result
    },
    (error: unknown) => {
      loading = undefined
      throw error
    },
  )
  return loading.then((result) => result.seal)
}

/** The loaded module, for code that runs after `loadSeal()` resolved. */
export function sealSync(): Seal {
  if (!loaded) throw new HeError('INTERNAL', 'node-seal is not loaded yet: await loadSeal() first')
  return loaded.seal
}

/** The compiled node-seal module of this thread, to post to workers (`LoadSealOptions.wasmModule`). */
export function sealWasmModule(): WebAssembly.Module | undefined {
  return loaded?.module
}

/** Bytes of the WASM heap right now (it only grows), or undefined if unknown. */
export function wasmHeapBytes(): number | undefined {
  return loaded?.memory?.buffer.byteLength
}

/**
 * Retires this thread's node-seal instance: the next `loadSeal()` makes a fresh WASM
 * instance (from the same compiled module, so no recompilation). For a long-lived
 * host that cannot replace its thread — the server's inline executor — once the
 * instance has caught enough C++ exceptions to be near breaking. The caller must
 * first delete or drop every object of the old instance, contexts cached by
 * `getHeContext` included (`sharedContextCache().dispose()`); the old heap is freed
 * when nothing references it any more.
 */
export function retireSeal(): void {
  resetSealOutOfMemory()
  loading = undefined
  loaded = undefined
}
