import type { Ciphertext, GaloisKeys, Plaintext } from 'node-seal/throws'
import type { HeContext } from '../params/HeContext.ts'
import type { SealScope } from '../scope/SealScope.ts'
import type { SearchConfig } from './SearchConfig.ts'
import type { SearchBlock } from './searchLayout.ts'
import type { GaloisKeyWords } from './wasm/RnsKernel.ts'

/** One block of the processed database: plaintexts[b][a] = diagonal g·b + a, pre-rotated by −g·b. */
export interface ProcessedSearchBlock {
  block: SearchBlock
  plaintexts: Plaintext[][]
}

/** What one evaluation runs on. Every ciphertext it makes is tracked by `scope`. */
export interface SearchKernelInput {
  ctx: HeContext
  config: SearchConfig
  blocks: readonly ProcessedSearchBlock[]
  /** The loaded query: g ciphertexts (client-side baby steps) or 1. */
  query: readonly Ciphertext[]
  galoisKeys: GaloisKeys | undefined
  /** The same keys in the key-switching kernel's form, when the caller holds only that (`KernelGaloisKeys`). */
  kernelKeys?: GaloisKeyWords | undefined
  scope: SealScope
  /** Receives each block's result, mod-switched to the last level; the ciphertext is reused after return. */
  onBlock: (block: SearchBlock, result: Ciphertext) => void
}

/**
 * The BSGS matrix–vector product over every block (see searchLayout.ts):
 * result = Σ_b rot_{g·b}(Σ_a P[b][a] ⊙ rot_a(q)), by Horner's rule over b so every
 * giant rotation is by the same step g. Inputs are validated by the caller: nothing
 * here should make SEAL throw.
 *
 * Forms: BGV ciphertexts live in NTT form, so products, sums, rotations and the mod
 * switch all run there. BFV key switching and mod switching need coefficient form,
 * so the baby set goes into NTT form once and each inner sum comes back out.
 */
export function runSearchKernel(input: SearchKernelInput): void {
  const { ctx, config, scope, galoisKeys } = input
  const { seal, evaluator } = ctx
  const g = config.babyStep
  const bfvNtt = config.scheme === 'bfv' && config.nttForm
  const baby: Ciphertext[] = [...input.query]
  if (config.babySteps === 'server') {
    for (let a = 1; a < g; a++) {
      const next = scope.track(new seal.Ciphertext())
      evaluator.rotateRows(baby[a - 1] as Ciphertext, 1, galoisKeys as GaloisKeys, next)
      baby.push(next)
    }
  }
  if (bfvNtt) for (const ciphertext of baby) evaluator.cipherTransformToNttInplace(ciphertext)

  const product = scope.track(new seal.Ciphertext())
  const inner = scope.track(new seal.Ciphertext())
  const acc = scope.track(new seal.Ciphertext())
  const lastParmsId = scope.track(ctx.context.lastParmsId())
  for (const { block, plaintexts } of input.blocks) {
    const h = plaintexts.length
    for (let b = h - 1; b >= 0; b--) {
      const target = b === h - 1 ? acc : inner
      const row = plaintexts[b] as Plaintext[]
      evaluator.multiplyPlain(baby[0] as Ciphertext, row[0] as Plaintext, target)
      for (let a = 1; a < row.length; a++) {
        evaluator.multiplyPlain(baby[a] as Ciphertext, row[a] as Plaintext, product)
        evaluator.addInplace(target, product)
      }
      if (bfvNtt) evaluator.cipherTransformFromNttInplace(target)
      if (b < h - 1) {
        evaluator.rotateRowsInplace(acc, g, galoisKeys as GaloisKeys)
        evaluator.addInplace(acc, inner)
      }
    }
    evaluator.cipherModSwitchToInplace(acc, lastParmsId)
    input.onBlock(block, acc)
  }
}
