import {
  decodeBatch,
  decrypt,
  encodeBatch,
  encryptSymmetric,
  exportEvaluationKeys,
  getHeContext,
  KeySet,
  type ProgramInput,
  runProgramPlain,
  withScope,
} from '@sealbox/he-core'
import { loadSealObject, saveSealObject } from '@sealbox/he-core/envelope'

/** One case of the evaluate-body benchmark: its parameters, program, inputs and the answer. */
export interface EvaluateBodyCase extends Disposable {
  /** e.g. `n=8192, 16 inputs`. */
  name: string
  degree: number
  inputCount: number
  params: { scheme: 'bfv'; polyModulusDegree: number; plainModulus: { batchingBits: number } }
  program: ProgramInput
  /** Input ciphertext envelopes (zstd, as the sandbox saves them) by name. */
  inputs: Record<string, Uint8Array>
  /** The relinearization and Galois keys the program needs, as one upload. */
  keyBytes: Uint8Array
  /** True when `out` decrypts to the plain computation's result. */
  verify(out: Uint8Array): boolean
}

const SLOTS = 256

/**
 * sum of the k inputs (k − 1 adds) → × x0 → relinearize → rotateRows(1): a few steps, the
 * same shape at every k, so the cases differ only in how many ciphertexts cross the wire.
 */
function sumTimesFirst(names: readonly string[]): ProgramInput {
  const steps: ProgramInput['steps'] = []
  let acc = names[0] as string
  for (const [i, name] of names.slice(1).entries()) {
    steps.push({ op: 'add', a: acc, b: name, out: `s${i}` })
    acc = `s${i}`
  }
  steps.push({ op: 'multiply', a: acc, b: names[0] as string, out: 'm' })
  steps.push({ op: 'relinearize', a: 'm', out: 'r' })
  steps.push({ op: 'rotateRows', a: 'r', steps: 1, out: 'out' })
  return { version: 1, inputs: names.map((name) => ({ name, kind: 'ciphertext' })), steps, outputs: ['out'] }
}

/** Makes the keys and encrypts the inputs of one case (BFV, t = Batching(n, 20)). */
export async function prepareEvaluateBodyCase(degree: number, inputCount: number): Promise<EvaluateBodyCase> {
  const params = { scheme: 'bfv', polyModulusDegree: degree, plainModulus: { batchingBits: 20 } } as const
  const ctx = await getHeContext(params)
  const keys = KeySet.generate(ctx, { relin: true, galois: { steps: [1] } })
  const names = Array.from({ length: inputCount }, (_, i) => `x${i}`)
  const plain = Object.fromEntries(
    names.map((name, k) => [name, Array.from({ length: SLOTS }, (_, i) => ((i * (k + 3)) % 97) - 40)]),
  )
  const program = sumTimesFirst(names)
  const inputs = withScope((scope) =>
    Object.fromEntries(
      names.map((name) => [
        name,
        saveSealObject(encryptSymmetric(keys, encodeBatch(ctx, plain[name] as number[], scope), scope), {
          kind: 'ciphertext',
          fingerprint: ctx.fingerprint,
          keySetId: keys.id,
          compression: 'zstd',
        }),
      ]),
    ),
  )
  const expected = (runProgramPlain(program, { ...params, plainModulus: ctx.plainModulus }, plain).out as bigint[]).map(
    String,
  )
  return {
    name: `n=${degree}, ${inputCount} inputs`,
    degree,
    inputCount,
    params: { ...params, plainModulus: { ...params.plainModulus } },
    program,
    inputs,
    keyBytes: exportEvaluationKeys(keys),
    verify(out) {
      const slots = withScope((scope) => {
        const ciphertext = scope.track(new ctx.seal.Ciphertext())
        loadSealObject(ciphertext, ctx, out, { kind: 'ciphertext', keySetId: keys.id })
        return decodeBatch(ctx, decrypt(keys, ciphertext, scope))
      })
      return slots.length === expected.length && slots.every((value, i) => String(value) === expected[i])
    },
    [Symbol.dispose]() {
      keys.dispose()
    },
  }
}
