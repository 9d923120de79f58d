import { execFile } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import ts from 'typescript'
import { beforeAll, describe, expect, it } from 'vitest'
import type { SchemeName } from '../params/ParamsSpec.ts'
import { EXAMPLE_WORKSPACES } from '../workspace/exampleWorkspaces.ts'
import { runWorkspace, type WorkspaceRun } from '../workspace/runWorkspace.ts'
import { type CodegenOptions, codeFileName, generateCode } from './generateCode.ts'
import { noiseBudgetStopMessage } from './noiseBudgetStopMessage.ts'

const run = promisify(execFile)

// Inside the package, so the generated `import 'node-seal'` resolves from its node_modules.
const TMP = fileURLToPath(new URL('../../.codegen-tmp/', import.meta.url))
const SCHEMES: SchemeName[] = ['bfv', 'bgv', 'ckks']

function write(name: string, source: string): string {
  mkdirSync(TMP, { recursive: true })
  const path = `${TMP}${name}`
  writeFileSync(path, source)
  return path
}

/** Runs a script with this very Node binary and returns its printed lines. */
async function execute(args: string[]): Promise<string[]> {
  const env = { ...process.env }
  delete env.NODE_OPTIONS
  const { stdout } = await run(process.execPath, args, { cwd: TMP, env, timeout: 120_000 })
  return stdout.trimEnd().split('\n')
}

/** `name = [a, b, ...]` → name, values and whether it was cut. */
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

const runs = new Map<SchemeName, WorkspaceRun>()

beforeAll(async () => {
  for (const scheme of SCHEMES) runs.set(scheme, await runWorkspace(EXAMPLE_WORKSPACES[scheme]))
})

describe.each(SCHEMES)('generated %s code', (scheme) => {
  it('runs under Node (JS and TS flavours) and prints what runWorkspace prints', async () => {
    const expected = runs.get(scheme)?.lines ?? []
    expect(expected.length).toBeGreaterThan(0)
    const flavours: CodegenOptions[] = [
      { flavour: 'node', language: 'js' },
      { flavour: 'node', language: 'ts' },
    ]
    // Both at once: two processes use both cores.
    const outputs = await Promise.all(
      flavours.map((options) => {
        const source = generateCode(EXAMPLE_WORKSPACES[scheme], options)
        expect(source).not.toMatch(/@sealbox|from 'sealbox/)
        return execute([write(`${scheme}-${codeFileName(options)}`, source)])
      }),
    )
    for (const lines of outputs) expectSameOutput(scheme, lines, expected)
  })

  it('browser flavour parses, and its main(print) runs (node-seal loads the same way in Node)', async () => {
    const source = generateCode(EXAMPLE_WORKSPACES[scheme], { flavour: 'browser', language: 'js' })
    expect(source).toMatch(/export async function main\(print = \(line\) => console\.log\(line\)\)/)
    expect(source).toMatch(/SEAL\(\{ locateFile: undefined \}\)/)
    const file = write(`${scheme}-browser.js`, source)
    await execute(['--check', file])
    if (scheme !== 'ckks') return
    // One full run of a browser module is enough: the body is shared with the Node flavour.
    const lines = await execute([
      '--input-type=module',
      '-e',
      `const { main } = await import(${JSON.stringify(`file://${file}`)}); await main((line) => console.log(line))`,
    ])
    expectSameOutput(scheme, lines, runs.get(scheme)?.lines ?? [])
  })
})

describe('generated TypeScript', () => {
  it('typechecks under strict settings against node-seal 7 types (both flavours, every scheme)', () => {
    const files = SCHEMES.flatMap((scheme) =>
      (['node', 'browser'] as const).map((flavour) =>
        write(
          `typecheck-${scheme}-${flavour}.${flavour === 'node' ? 'mts' : 'ts'}`,
          generateCode(EXAMPLE_WORKSPACES[scheme], { flavour, language: 'ts' }),
        ),
      ),
    )
    const program = ts.createProgram(files, {
      strict: true,
      noUncheckedIndexedAccess: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      types: [],
      skipLibCheck: true,
    })
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => {
      const where = d.file
        ? `${d.file.fileName.split('/').pop()}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}`
        : ''
      return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`
    })
    expect(diagnostics).toEqual([])
  })
})

describe('generateCode', () => {
  it('renames program names that clash with its own identifiers or JavaScript words', () => {
    const source = generateCode(EXAMPLE_WORKSPACES.bgv, { flavour: 'node', language: 'js' })
    expect(source).toMatch(/const context_ = encrypt\(encode\(/)
    expect(source).toMatch(/const product_ = own\(new seal\.Ciphertext\(\)\)/)
    // The printed name stays the program's name.
    expect(source).toMatch(/print\(formatLine\('product', decode\(decrypt\(product_\)\)\)\)/)
  })

  it('emits only the keys and helpers the pipeline needs', () => {
    const source = generateCode(
      {
        version: 1,
        params: { scheme: 'bfv', polyModulusDegree: 4096 },
        variables: [{ name: 'x', kind: 'ciphertext', values: [1, 2] }],
        steps: [{ op: 'rotateRows', a: 'x', steps: -3, out: 'r' }],
        print: ['r'],
      },
      { flavour: 'node', language: 'js' },
    )
    expect(source).toMatch(/createGaloisKeysWithSteps\(Int32Array\.from\(\[-3\]\)\)/)
    expect(source).not.toMatch(/relinKeys|sumElements|alignCiphertexts/)
    expect(source).toContain(
      '// step 1 (rotateRows): x with both batching rows rotated left by -3 (negative: right) → r',
    )
  })

  it('refuses what runWorkspace refuses, with the same errors', async () => {
    const bad = { ...EXAMPLE_WORKSPACES.bfv, steps: [{ op: 'rotateVector', a: 'x', steps: 1, out: 'r' }], print: ['r'] }
    expect(() => generateCode(bad, { flavour: 'node', language: 'js' })).toThrow(
      /step 1 \(rotateVector\): rotateVector needs CKKS/,
    )
    await expect(runWorkspace(bad)).rejects.toThrow(/step 1 \(rotateVector\): rotateVector needs CKKS/)
  })

  it('stops where runWorkspace stops when the noise budget runs out: its sentence alone on stderr, exit 1, nothing printed', async () => {
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
    const env = { ...process.env }
    delete env.NODE_OPTIONS
    for (const language of ['js', 'ts'] as const) {
      const options = { flavour: 'node', language } as const
      const file = write(`exhausted-${codeFileName(options)}`, generateCode(exhausted, options))
      const failed = await run(process.execPath, [file], { cwd: TMP, env, timeout: 120_000 }).then(
        () => undefined,
        (error: { code: number; stdout: string; stderr: string }) => error,
      )
      expect(failed?.code).toBe(1)
      expect(failed?.stdout).toBe('')
      // The evaluator's sentence with the step named as the step menu names it ("Step 3 (Square): …"), no stack trace.
      expect(failed?.stderr).toBe(`${noiseBudgetStopMessage({ op: 'square', out: 's2' }, 2)}\n`)
      expect(failed?.stderr).toBe(`${stopped?.replace(/^step 3 \(square\)/, 'Step 3 (Square)')}\n`)
    }
  })

  it('names the file for its flavour', () => {
    expect(codeFileName({ flavour: 'node', language: 'js' })).toBe('sealbox-workspace.mjs')
    expect(codeFileName({ flavour: 'node', language: 'ts' })).toBe('sealbox-workspace.mts')
    expect(codeFileName({ flavour: 'browser', language: 'ts' })).toBe('sealbox-workspace.ts')
  })
})
