import { execFile, execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { beforeAll, describe, expect, it } from 'vitest'
import type { SchemeName } from '../../params/ParamsSpec.ts'
import { EXAMPLE_WORKSPACES } from '../../workspace/exampleWorkspaces.ts'
import { runWorkspace } from '../../workspace/runWorkspace.ts'
import { generatePython, PYTHON_FILE_NAME } from './generatePython.ts'

const run = promisify(execFile)

const TMP = fileURLToPath(new URL('../../../.codegen-tmp/', import.meta.url))
// The venv the bench's Native column uses (packages/bench/src/engines/native/NativeEngine.ts).
const VENV = fileURLToPath(new URL('../../../../bench/.venv/', import.meta.url))
const VENV_PYTHON = `${VENV}bin/python`
const REQUIREMENTS = fileURLToPath(new URL('../../../../bench/src/engines/native/requirements.txt', import.meta.url))
const SCHEMES: SchemeName[] = ['bfv', 'bgv', 'ckks']

function hasPython3(): boolean {
  try {
    execFileSync('python3', ['--version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}
const PYTHON3 = hasPython3()

function write(name: string, source: string): string {
  mkdirSync(TMP, { recursive: true })
  const path = `${TMP}${name}`
  writeFileSync(path, source)
  return path
}

function parseLine(line: string) {
  const match = /^(\w+) = \[(.*?)(, \.\.\.)?\]$/.exec(line)
  if (!match) expect.unreachable(`not an output line: ${line}`)
  return { name: match[1], values: (match[2] ?? '').split(', ').map(Number), more: match[3] !== undefined }
}

/** BFV/BGV print exactly the same; CKKS within the scheme's precision (fresh noise differs per run). */
function expectSameOutput(scheme: SchemeName, actual: string[], expected: string[]) {
  if (scheme !== 'ckks') {
    expect(actual).toEqual(expected)
    return
  }
  expect(actual).toHaveLength(expected.length)
  actual.forEach((line, i) => {
    const got = parseLine(line)
    const want = parseLine(expected[i] ?? '')
    expect({ name: got.name, more: got.more, count: got.values.length }).toEqual({
      name: want.name,
      more: want.more,
      count: want.values.length,
    })
    got.values.forEach((value, j) => {
      expect(Math.abs(value - (want.values[j] ?? Number.NaN))).toBeLessThan(2e-3)
    })
  })
}

describe.skipIf(!PYTHON3)('generated Python (seal-python wheel; skipped only when python3 is missing)', () => {
  beforeAll(async () => {
    // Created like the bench creates it, on first use.
    if (!existsSync(VENV_PYTHON)) {
      await run('python3', ['-m', 'venv', VENV], { timeout: 120_000 })
      await run(`${VENV}bin/pip`, ['install', '-r', REQUIREMENTS], { timeout: 600_000 })
    }
  }, 720_000)

  it.each(SCHEMES)('%s: runs natively and prints what runWorkspace prints', async (scheme) => {
    const expected = (await runWorkspace(EXAMPLE_WORKSPACES[scheme])).lines
    const source = generatePython(EXAMPLE_WORKSPACES[scheme])
    expect(source).not.toMatch(/sealbox import|import sealbox/)
    const file = write(`${scheme}-${PYTHON_FILE_NAME}`, source)
    const { stdout } = await run(VENV_PYTHON, [file], { cwd: TMP, timeout: 120_000 })
    expectSameOutput(scheme, stdout.trimEnd().split('\n'), expected)
  })

  it("stops where runWorkspace stops when the noise budget runs out: its sentence in the menu's words, exit 1, nothing printed", async () => {
    const steps = [1, 2, 3].flatMap((i) => [
      { op: 'square', a: i === 1 ? 'x' : `r${i - 1}`, out: `s${i}` },
      { op: 'relinearize', a: `s${i}`, out: `r${i}` },
    ])
    const exhausted = {
      version: 1,
      params: { scheme: 'bfv', polyModulusDegree: 4096 },
      variables: [{ name: 'x', kind: 'ciphertext', values: [1, 2, 3] }],
      steps,
      print: ['r3'],
    }
    const stopped = await runWorkspace(exhausted).then(
      () => undefined,
      (error: Error) => error.message,
    )
    expect(stopped).toMatch(/^step 3 \(square\): 's2' has no noise budget left/)
    const file = write('exhausted.py', generatePython(exhausted))
    const failed = await run(VENV_PYTHON, [file], { cwd: TMP, timeout: 120_000 }).then(
      () => undefined,
      (error: { code: number; stdout: string; stderr: string }) => error,
    )
    expect(failed?.code).toBe(1)
    expect(failed?.stdout).toBe('')
    // The evaluator's sentence with the step named as the step menu names it.
    expect(failed?.stderr).toContain(`${stopped?.replace(/^step 3 \(square\)/, 'Step 3 (Square)')}`)
  })
})

describe('generatePython', () => {
  it('renames program names that clash with Python words or its own names', () => {
    const source = generatePython({
      version: 1,
      params: { scheme: 'bfv', polyModulusDegree: 4096 },
      variables: [
        { name: 'lambda', kind: 'ciphertext', values: [1, 2] },
        { name: 'product', kind: 'ciphertext', values: [3, 4] },
      ],
      steps: [{ op: 'innerProduct', a: 'lambda', b: 'product', out: 'print' }],
      print: ['print'],
    })
    expect(source).toContain('lambda_ = encrypt(encode([1, 2]))')
    expect(source).toContain('product = evaluator.relinearize(evaluator.multiply(lambda_, product_), relin_keys)')
    expect(source).toContain('print(format_line("print", decode(decrypt(print_))))')
  })

  it('refuses what runWorkspace refuses, with the same errors', () => {
    const bad = { ...EXAMPLE_WORKSPACES.bfv, steps: [{ op: 'rotateVector', a: 'x', steps: 1, out: 'r' }], print: ['r'] }
    expect(() => generatePython(bad)).toThrow(/step 1 \(rotateVector\): rotateVector needs CKKS/)
  })
})
