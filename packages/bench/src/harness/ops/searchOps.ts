import { galoisElementOf } from '@sealbox/he-core'
import { parseGaloisKeyWords, RnsKernel, rnsKernelCompiles } from '@sealbox/he-ring'
import { BenchError } from '../../BenchError.ts'
import type { BenchEnv } from '../BenchEnv.ts'
import { galoisOp } from './batchSchemeOps.ts'
import { fixedOp, type OpFactory, opArena } from './PreparedOp.ts'
import { sealResidueWords } from './sealResidueWords.ts'

/**
 * Why an engine has no kernel rows: he-ring's module declares two memories (its heap and the
 * diagonals), and WebKit's WebAssembly takes one per module (no multi-memory yet); the
 * search itself falls back to SEAL's evaluator there.
 */
export const KERNEL_UNAVAILABLE =
  "this engine's WebAssembly cannot compile he-ring's kernel (it needs SIMD and multi-memory: two memories in one module)"

/** Baby steps of g = 8 sharing one decomposition in the hoisted row (the search's default g). */
export const HOISTED_ROTATIONS = 7

/** The key-level primes of the environment (data primes, then the special prime). */
function keyPrimes(env: BenchEnv): bigint[] {
  const arena = opArena()
  try {
    const keyData = arena.track(env.context.keyContextData())
    const parms = arena.track(keyData.parms())
    const primes = arena.track(parms.coeffModulus())
    return env.seal.jsArrayFromVecModulus(primes).map(BigInt)
  } finally {
    arena.dispose()
  }
}

/**
 * he-ring's kernel for `env` (the `bgv-search` context) with Galois keys for steps 1..7 made
 * by the environment's key generator, and one fresh NTT-form ciphertext copied into its heap.
 */
function kernelFixture(env: BenchEnv) {
  if (env.scheme !== 'bgv-search' || env.plainModulus === undefined) {
    throw new BenchError('INTERNAL', `the kernel rows need the bgv-search context (got ${env.scheme})`)
  }
  if (!rnsKernelCompiles()) throw new BenchError('ENGINE_UNAVAILABLE', KERNEL_UNAVAILABLE)
  const arena = opArena()
  try {
    const n = env.n
    const primes = keyPrimes(env)
    const steps = Array.from({ length: HOISTED_ROTATIONS }, (_, i) => i + 1)
    const elements = steps.map((step) => galoisElementOf(n, step))
    const kernel = new RnsKernel({
      polyModulusDegree: n,
      keyPrimes: primes,
      plainModulus: env.plainModulus,
      galoisElements: elements,
    })
    const keys = arena.track(env.keygen.createGaloisKeysWithSteps(Int32Array.from(steps)))
    // The kernel reads SEAL's own uncompressed save of the keys, as he-core's galoisKeyWordsOf does.
    const savedKeys = keys.saveToArray(env.seal.ComprModeType.none) as Uint8Array
    kernel.useKeys(parseGaloisKeyWords({ polyModulusDegree: n, keyPrimes: primes }, savedKeys, elements))
    const ciphertext = env.randomCipher(arena)
    if (!ciphertext.isNttForm()) throw new BenchError('INTERNAL', 'a fresh BGV ciphertext should be in NTT form')
    const words = kernel.ciphertextWords
    const src = kernel.alloc(words)
    kernel
      .words(src, words)
      .set(sealResidueWords(kernel, ciphertext.saveToArray(env.seal.ComprModeType.none) as Uint8Array, words))
    const dst = kernel.alloc(words)
    // Before anything is timed: the kernel's rotation is SEAL's, residue for residue.
    const rotated = arena.track(new env.seal.Ciphertext())
    env.evaluator.rotateRows(ciphertext, 1, keys, rotated)
    kernel.rotate(dst, src, elements[0] as number)
    const expected = sealResidueWords(kernel, rotated.saveToArray(env.seal.ComprModeType.none) as Uint8Array, words)
    if (!kernel.words(dst, words).every((word, i) => word === expected[i])) {
      throw new BenchError('INTERNAL', "he-ring's rotation differs from SEAL's rotateRows at the search's parameters")
    }
    return { kernel, elements, src, dst, arena, ciphertext }
  } catch (error) {
    arena.dispose()
    throw error
  }
}

/**
 * The `Search` rows (opCatalog.ts): SEAL's rotation and NTT-form plaintext product at the
 * search's parameters, and he-ring's kernel doing the same work as the search does it
 * (keySwitchSearchKernel): residues already in the kernel's heap, keys already read.
 */
export const SEARCH_OPS: Readonly<Record<string, OpFactory>> = {
  'Search/EvaluateRotateRows': galoisOp((env, a, keys, d) => env.evaluator.rotateRows(a, 1, keys, d)),
  'Search/EvaluateMulPtNtt': ({ env }) => {
    const arena = opArena()
    const a = env.randomCipher(arena)
    const p = env.randomPlain(arena)
    const first = arena.track(env.context.firstParmsId())
    env.evaluator.plainTransformToNttInplace(p, first)
    const dest = arena.track(new env.seal.Ciphertext())
    return fixedOp(arena, () => env.evaluator.multiplyPlain(a, p, dest))
  },
  'Search/KernelRotate': ({ env }) => {
    const { kernel, elements, src, dst, arena } = kernelFixture(env)
    const element = elements[0] as number
    return fixedOp(arena, () => kernel.rotate(dst, src, element))
  },
  'Search/KernelRotateHoisted': ({ env }) => {
    const { kernel, elements, src, dst, arena } = kernelFixture(env)
    // Each call is one baby step; every HOISTED_ROTATIONS-th call (counted across batches)
    // decomposes first, so the run pays one decomposition per seven rotations, as a giant
    // step of g = 8 does.
    let next = 0
    return fixedOp(arena, () => {
      const k = next++ % HOISTED_ROTATIONS
      if (k === 0) kernel.decompose(src)
      kernel.rotateHoisted(dst, src, elements[k] as number)
    })
  },
  'Search/KernelMulPtNtt': ({ env }) => {
    const { kernel, src, dst, arena, ciphertext } = kernelFixture(env)
    // One NTT-form plaintext (L data-prime residues) in the kernel's own diagonal memory.
    const plain = env.randomPlain(arena)
    const first = arena.track(env.context.firstParmsId())
    env.evaluator.plainTransformToNttInplace(plain, first)
    const plainWords = kernel.L * env.n
    const at = kernel.diagonals.alloc(plainWords)
    kernel.diagonals
      .words(at, plainWords)
      .set(sealResidueWords(kernel, plain.saveToArray(env.seal.ComprModeType.none) as Uint8Array, plainWords))
    // Before timing: the kernel's product is SEAL's multiplyPlain, residue for residue.
    const product = arena.track(new env.seal.Ciphertext())
    env.evaluator.multiplyPlain(ciphertext, plain, product)
    kernel.innerProduct(dst, [src], [at])
    const words = kernel.ciphertextWords
    const expected = sealResidueWords(kernel, product.saveToArray(env.seal.ComprModeType.none) as Uint8Array, words)
    if (!kernel.words(dst, words).every((word, i) => word === expected[i])) {
      throw new BenchError('INTERNAL', "he-ring's NTT-form product differs from SEAL's multiplyPlain")
    }
    return fixedOp(arena, () => kernel.innerProduct(dst, [src], [at]))
  },
}
