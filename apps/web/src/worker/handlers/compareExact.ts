import { centredMod, HeError, type PlainSlots, parseProgram, runProgramPlain } from '@sealbox/he-core'
import type { ExactComparison, RequestOf } from '../protocol.ts'
import type { WorkerSession } from '../WorkerSession.ts'
import { INTEGER_MODULUS, plainWraps } from './plainWraps.ts'
import { decodeValue, PREVIEW_SLOTS } from './variableHandlers.ts'

/**
 * Runs the program on the cleartext of its inputs (he-core's plain oracle, over every
 * slot) and compares each output the workspace holds with its decrypted value: the
 * largest error for CKKS, the number of wrong slots for BFV/BGV (garbage after the
 * noise budget ran out, and the slots that wrapped around t although decrypted right).
 * Outputs not made yet are compared by their exact values only.
 *
 * CKKS inputs count as the numbers typed (`request.typed`), not as decrypted: against the
 * decrypted inputs, a product looked more precise than its own inputs, their encoding
 * error left out of the answer it was measured against.
 */
export function compareExact(session: WorkerSession, request: RequestOf<'compareExact'>): ExactComparison[] {
  const ctx = session.context
  const { program } = parseProgram(request.program)
  const ckks = ctx.scheme === 'ckks'
  const slots = ctx.params.polyModulusDegree / (ckks ? 2 : 1)
  const inputs: Record<string, ReadonlyArray<number | bigint>> = {}
  for (const input of program.inputs) {
    const typed = ckks ? request.typed?.[input.name] : undefined
    if (typed && typed.length > slots) {
      throw new HeError(
        'INVALID_INPUT',
        `Input '${input.name}' has ${typed.length} typed values; a ciphertext holds ${slots}.`,
      )
    }
    inputs[input.name] = typed ?? decodeValue(session, session.requireValue(input.name))
  }
  const t = ctx.plainModulus
  // BFV/BGV: the oracle runs once, over the integers. Every op is slot-wise ring arithmetic,
  // so those results centred mod t are the results mod t; where the two differ, it wrapped.
  const integers = runProgramPlain(
    program,
    { scheme: ctx.scheme, polyModulusDegree: ctx.params.polyModulusDegree, plainModulus: ckks ? t : INTEGER_MODULUS },
    inputs,
  )
  const exact: Record<string, PlainSlots> =
    ckks || t === undefined
      ? integers
      : Object.fromEntries(
          Object.entries(integers).map(([name, slots]) => [name, (slots as bigint[]).map((x) => centredMod(x, t))]),
        )
  return program.outputs.map((name): ExactComparison => {
    const expected = exact[name] ?? []
    const head = expected.slice(0, PREVIEW_SLOTS) as bigint[] | number[]
    const value = session.value(name)
    if (!value) return { name, expected: head }
    const actual = decodeValue(session, value)
    if (ckks) {
      let maxError = 0
      for (const [i, x] of expected.entries()) maxError = Math.max(maxError, Math.abs(Number(actual[i]) - Number(x)))
      return { name, expected: head, maxError }
    }
    let wrongSlots = 0
    for (const [i, x] of expected.entries()) if (actual[i] !== x) wrongSlots++
    const wraps = plainWraps(expected as bigint[], (integers[name] ?? []) as bigint[])
    return {
      name,
      expected: head,
      wrongSlots,
      ...(wraps ? { wrappedSlots: wraps.slots, wrappedExact: wraps.exact } : {}),
    }
  })
}
