import { describe, expect, it } from 'vitest'
import { HeError } from '../errors/HeError.ts'
import type { HeErrorCode } from '../errors/heErrorCodes.ts'
import { getHeContext } from '../params/ContextCache.ts'
import type { SchemeName } from '../params/ParamsSpec.ts'
import { runProgramPlain } from '../program/runProgramPlain.ts'
import { liveSealHandles } from '../scope/SealScope.ts'
import { wasmHeapBytes } from '../seal/loadSeal.ts'
import { EXAMPLE_WORKSPACES } from './exampleWorkspaces.ts'
import { formatOutputLine } from './formatOutput.ts'
import { parseWorkspace } from './parseWorkspace.ts'
import { runWorkspace } from './runWorkspace.ts'
import type { WorkspaceInput } from './WorkspaceSpec.ts'

const SMALL: WorkspaceInput = {
  version: 1,
  params: { scheme: 'bfv', polyModulusDegree: 4096 },
  variables: [
    { name: 'x', kind: 'ciphertext', values: [1, 2, 3] },
    { name: 'p', kind: 'plaintext', values: [10, 20, 30] },
  ],
  steps: [
    { op: 'multiplyPlain', a: 'x', b: 'p', out: 'xp' },
    { op: 'rotateRows', a: 'xp', steps: 1, out: 'r' },
  ],
  print: ['r'],
}

async function failure(input: unknown): Promise<HeError> {
  try {
    await runWorkspace(input)
  } catch (error) {
    expect(error).toBeInstanceOf(HeError)
    return error as HeError
  }
  expect.unreachable('expected runWorkspace to fail')
}

async function expectCode(input: unknown, code: HeErrorCode, message: RegExp | string) {
  const error = await failure(input)
  expect(error.code).toBe(code)
  if (typeof message === 'string') expect(error.message).toBe(message)
  else expect(error.message).toMatch(message)
}

describe('formatOutputLine', () => {
  it('prints the first slots, integers in full, reals with fixed decimals and no -0', () => {
    expect(formatOutputLine('r', [1n, -2n, 3n], { slots: 8, decimals: undefined })).toBe('r = [1, -2, 3]')
    expect(formatOutputLine('r', [1n, 2n, 3n, 4n], { slots: 2, decimals: undefined })).toBe('r = [1, 2, ...]')
    expect(formatOutputLine('c', [0.123456, -0.00001, -1.5, 2], { slots: 3, decimals: 3 })).toBe(
      'c = [0.123, 0.000, -1.500, ...]',
    )
    expect(formatOutputLine('c', [-0.4], { slots: 3, decimals: 0 })).toBe('c = [0]')
  })
})

describe('runWorkspace', () => {
  it.each(['bfv', 'bgv', 'ckks'] as SchemeName[])('%s example: prints the plain oracle', async (scheme) => {
    const workspace: WorkspaceInput = EXAMPLE_WORKSPACES[scheme]
    const result = await runWorkspace(workspace)
    const ctx = await getHeContext(result.params)
    const inputs = Object.fromEntries(workspace.variables.map((v) => [v.name, v.values]))
    const expected = runProgramPlain(result.analysis.program, { ...ctx.params, plainModulus: ctx.plainModulus }, inputs)
    const format = {
      slots: workspace.display?.slots ?? 8,
      decimals: scheme === 'ckks' ? (workspace.display?.decimals ?? 4) : undefined,
    }
    expect(result.lines).toHaveLength(workspace.print.length)
    result.outputs.forEach((output) => {
      const want = expected[output.name] ?? []
      if (scheme === 'ckks') {
        const worst = want.reduce<number>((m, w, i) => Math.max(m, Math.abs(Number(w) - Number(output.values[i]))), 0)
        expect(worst).toBeLessThan(1e-3)
      } else {
        expect(output.values).toEqual(want)
        expect(output.line).toBe(formatOutputLine(output.name, want, format))
      }
    })
    expect(result.steps).toHaveLength(workspace.steps.length)
  })

  it('makes exactly the keys the pipeline needs', () => {
    expect(parseWorkspace(SMALL).keys).toEqual({ relin: false, galois: { steps: [1] }, seeded: false })
    expect(parseWorkspace(EXAMPLE_WORKSPACES.bgv).keys).toMatchObject({ relin: true, seeded: true })
    expect(parseWorkspace({ ...SMALL, keys: { galois: 'powerOfTwo', relin: true } }).keys).toMatchObject({
      relin: true,
      galois: 'powerOfTwo',
    })
    expect(parseWorkspace({ ...SMALL, keys: { galois: { steps: [5, 1, 1, 0] } } }).keys.galois).toEqual({
      steps: [0, 1, 5],
    })
  })

  it('refuses bad workspaces before any SEAL work, with coded errors', async () => {
    await expectCode({ ...SMALL, version: 2 }, 'INVALID_INPUT', /^version: /)
    await expectCode(
      { ...SMALL, params: { scheme: 'bfv', polyModulusDegree: 3000 } },
      'INVALID_PARAMS',
      /polyModulusDegree/,
    )
    await expectCode(
      { ...SMALL, variables: [...(SMALL.variables ?? []), { name: 'x', kind: 'plaintext', values: [1] }] },
      'INVALID_INPUT',
      "variables.2: variable 'x' is defined twice",
    )
    await expectCode(
      {
        ...SMALL,
        variables: [
          { name: 'x', kind: 'ciphertext', values: [1.5] },
          { name: 'p', kind: 'plaintext', values: [1] },
        ],
      },
      'INVALID_INPUT',
      'variables.0.values.0: 1.5 is not an integer (BFV)',
    )
    await expectCode(
      { ...EXAMPLE_WORKSPACES.ckks, variables: [{ name: 'x', kind: 'ciphertext', values: [1n] }] },
      'INVALID_INPUT',
      'variables.0.values.0: 1 is not a finite real number (CKKS)',
    )
    await expectCode(
      { ...SMALL, variables: [{ name: 'x', kind: 'ciphertext', values: new Array(4097).fill(1) }] },
      'VALUE_OUT_OF_RANGE',
      "variables.0: 'x' has 4097 values; BFV at n=4096 has 4096 slots",
    )
    await expectCode(
      { ...SMALL, variables: [{ name: 'x', kind: 'ciphertext', values: [1], scaleBits: 30 }] },
      'INVALID_INPUT',
      'variables.0.scaleBits: BFV has no scale; remove it',
    )
    await expectCode(
      { ...SMALL, keys: { galois: 'none' } },
      'MISSING_KEY',
      /^step 2 \(rotateRows\): no Galois keys were given/,
    )
    await expectCode(
      { ...SMALL, keys: { galois: { steps: [2] } } },
      'MISSING_KEY',
      /^step 2 \(rotateRows\): the Galois keys given have no key for rotation by 1/,
    )
    await expectCode(
      { ...SMALL, steps: [{ op: 'relinearize', a: 'x', out: 'r' }], keys: { relin: false } },
      'MISSING_KEY',
      'step 1 (relinearize): needs relinearization keys; none were given',
    )
    await expectCode(
      { ...SMALL, keys: { galois: { steps: [4096] } } },
      'INVALID_INPUT',
      /^keys\.galois\.steps: rotation step 4096/,
    )
    await expectCode(
      { ...SMALL, print: ['nothing'] },
      'INVALID_PROGRAM',
      "outputs[0]: 'nothing' is not defined by any input or step",
    )
  })

  it('refuses values that do not fit the plain modulus (SEAL would wrap them)', async () => {
    await expectCode(
      {
        ...SMALL,
        variables: [
          { name: 'x', kind: 'ciphertext', values: [1, 600000] },
          { name: 'p', kind: 'plaintext', values: [1] },
        ],
      },
      'VALUE_OUT_OF_RANGE',
      /^value\[1\] = 600000 is outside \[-516096, 516096\]/,
    )
  })

  it('leaves no SEAL object and no heap growth, on success and on failure', async () => {
    const outOfRange = {
      ...SMALL,
      variables: [
        { name: 'x', kind: 'ciphertext', values: [1] },
        { name: 'p', kind: 'plaintext', values: [1e9] },
      ],
    }
    const once = async () => {
      await runWorkspace(SMALL)
      const error = await runWorkspace(outOfRange).catch((e: unknown) => e)
      if (!(error instanceof HeError && error.code === 'VALUE_OUT_OF_RANGE'))
        expect.unreachable('expected VALUE_OUT_OF_RANGE')
    }
    // measureHeap is synchronous; runWorkspace awaits its (cached) context, so loop here.
    const before = liveSealHandles()
    for (let i = 0; i < 5; i++) await once()
    const heapAfterWarmup = wasmHeapBytes()
    for (let i = 0; i < 100; i++) await once()
    expect(liveSealHandles()).toBe(before)
    expect(wasmHeapBytes()).toBe(heapAfterWarmup)
  })
})
