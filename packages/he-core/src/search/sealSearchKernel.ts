import type { Ciphertext, GaloisKeys, Plaintext } from 'node-seal/throws'
import { HeError } from '../errors/HeError.ts'
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
  // Server-side: each query ciphertext (one, or one per chunk of a cluster-private query)
  // and its g − 1 baby rotations, chunk-major like the plaintexts of a giant step.
  const baby: Ciphertext[] = config.babySteps === 'server' ? [] : [...input.query]
  if (config.babySteps === 'server') {
    for (const query of input.query) {
      baby.push(query)
      for (let a = 1; a < g; a++) {
        const next = scope.track(new seal.Ciphertext())
        evaluator.rotateRows(baby.at(-1) as Ciphertext, 1, galoisKeys as GaloisKeys, next)
        baby.push(next)
      }
    }
  }
  if (bfvNtt) for (const ciphertext of baby) evaluator.cipherTransformToNttInplace(ciphertext)

  const product = scope.track(new seal.Ciphertext())
  const inner = scope.track(new seal.Ciphertext())
  const acc = scope.track(new seal.Ciphertext())
  const lastParmsId = scope.track(ctx.context.lastParmsId())
  for (const { block, plaintexts } of input.blocks) {
    const h = plaintexts.length
    // SEAL refuses a product with an all-zero plaintext (a transparent result). Exact
    // blocks have none; a cluster-private chunk that is mostly padding has some: skip them,
    // and an inner sum of nothing but zeros with them.
    let accSet = false
    for (let b = h - 1; b >= 0; b--) {
      const target = accSet ? inner : acc
      const row = plaintexts[b] as Plaintext[]
      let targetSet = false
      for (let a = 0; a < row.length; a++) {
        const plaintext = row[a] as Plaintext
        if (plaintext.isZero()) continue
        evaluator.multiplyPlain(baby[a] as Ciphertext, plaintext, targetSet ? product : target)
        if (targetSet) evaluator.addInplace(target, product)
        targetSet = true
      }
      if (targetSet && bfvNtt) evaluator.cipherTransformFromNttInplace(target)
      if (accSet) evaluator.rotateRowsInplace(acc, g, galoisKeys as GaloisKeys)
      if (accSet && targetSet) evaluator.addInplace(acc, inner)
      accSet ||= targetSet
    }
    if (!accSet) throw new HeError('INTERNAL', `block ${block.index} has no non-zero diagonal`)
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
