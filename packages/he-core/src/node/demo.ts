// A small tour of he-core, printed step by step (`pnpm --filter @sealbox/he-core demo`).
import {
  decodeBatch,
  decrypt,
  describeCiphertext,
  encodeBatch,
  encrypt,
  getHeContext,
  KeySet,
  wasmHeapBytes,
  withScope,
} from '../index.ts'
import { liveSealHandles } from '../testing/index.ts'

const ctx = await getHeContext({ scheme: 'bfv', polyModulusDegree: 8192 })
const f = ctx.facts
console.log(
  `BFV n=${f.polyModulusDegree}, coeff modulus ${f.coeffModulusBits.join('+')} = ${f.totalBits} bits, t=${ctx.plainModulus}`,
)
console.log(`  ${f.slotCount} slots, ${f.levels} levels below the top, fingerprint ${ctx.fingerprint}`)

using keys = KeySet.generate(ctx, { relin: true, galois: { steps: [1] } })
console.log(
  `keys: secret ${keys.timings.secretKey.toFixed(1)} ms, public ${keys.timings.publicKey.toFixed(1)} ms, relin ${keys.timings.relinKeys?.toFixed(1)} ms, Galois [1] ${keys.timings.galoisKeys?.toFixed(1)} ms`,
)

withScope((scope) => {
  const a = [1, 2, 3, 4]
  const b = [10, -20, 30, -40]
  const x = encrypt(keys, encodeBatch(ctx, a, scope), scope)
  const y = encrypt(keys, encodeBatch(ctx, b, scope), scope)
  console.log(
    `encrypted a=${JSON.stringify(a)} and b=${JSON.stringify(b)}: noise budget ${describeCiphertext(ctx, x, keys).noiseBudget} bits`,
  )
  const product = scope.track(new ctx.seal.Ciphertext())
  ctx.evaluator.multiply(x, y, product)
  ctx.evaluator.relinearizeInplace(product, keys.relinKeys!)
  const rotated = scope.track(new ctx.seal.Ciphertext())
  ctx.evaluator.rotateRows(product, 1, keys.galoisKeys!, rotated)
  const info = describeCiphertext(ctx, rotated, keys)
  const values = decodeBatch(ctx, decrypt(keys, rotated, scope)).slice(0, 4)
  console.log(
    `a·b, relinearized, rotated left by 1 → ${values.join(', ')} (expected -40, 90, -160, 0); budget ${info.noiseBudget} bits`,
  )
})
console.log(
  `WASM heap ${((wasmHeapBytes() ?? 0) / 2 ** 20).toFixed(0)} MiB; live SEAL handles ${liveSealHandles()} (context + keys)`,
)
