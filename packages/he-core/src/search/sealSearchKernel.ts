import type { Ciphertext, GaloisKeys, Plaintext } from 'node-seal/throws'
import type { SearchKernel, SearchKernelInput } from './SearchKernel.ts'

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
function runSealSearch(input: SearchKernelInput): void {
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

/**
 * SEAL's evaluator as a `SearchKernel`: BFV, primes of 2^31 or more, `kernel: 'seal'` and
 * every other config he-ring's kernels do not take. It reads the index's SEAL plaintexts
 * and the query SEAL loaded; it holds nothing of its own.
 */
export class SealSearch implements SearchKernel {
  readonly name = 'seal'
  readonly ownsDiagonals = false
  readonly heapBytes = 0

  loadDirect(): boolean {
    return false
  }

  loadQuery(): void {}

  run(input: SearchKernelInput): void {
    runSealSearch(input)
  }
}
