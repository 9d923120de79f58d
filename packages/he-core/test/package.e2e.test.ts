import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { HeError } from '@sealbox/he-core'
import { chromium } from 'playwright-core'
import { build, preview } from 'vite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { copyCheckout } from '../../../scripts/copyCheckout.mjs'
import { chromiumLaunch } from './support/chromiumLaunch.ts'
import { modulesLoadedBy } from './support/modulesLoadedBy.ts'
import { readmeExample } from './support/readmeExample.ts'

/*
 * he-core as a package people install: `pnpm pack` (which builds dist first), then a fresh
 * project outside the workspace installs the tarball with npm and uses it the way the README
 * says — the README's own example, read from the README, under Node 24, type-checked against
 * the shipped declarations, and bundled by Vite into a page that runs it in Chromium.
 * he-core depends on @sealbox/he-ring (the ring layer, a package of its own, published
 * beside it): it is packed too and installed from its tarball, as npm would fetch it.
 * Both are packed from a copy of this checkout (scripts/copyCheckout.mjs: the same files, the
 * same installed dependencies), because `pnpm pack` empties and rebuilds the package's dist/:
 * in the copy, no other test file's reads of this checkout's dist/ can meet it half-built.
 */

const run = promisify(execFile)
// npm and the example run on the Node that runs the tests (24), not whatever is first on PATH.
const env = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}` }
const example = readmeExample()

let work: string
let project: string
let installed: string
let installedRing: string

// Two builds and an npm install beside five other files on 2 busy cores (the parallel group):
// the deadlines here catch a hang, they do not measure the machine.
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'sealbox-package-'))
  const checkout = copyCheckout({
    into: join(work, 'checkout'),
    workspaces: ['packages/he-ring', 'packages/he-core'],
  })
  const ringDir = join(checkout, 'packages/he-ring')
  const packageDir = join(checkout, 'packages/he-core')
  // The ring first: he-core's build reads its types, its tarball names it by version.
  await run('pnpm', ['pack', '--pack-destination', work], { cwd: ringDir, env })
  await run('pnpm', ['pack', '--pack-destination', work], { cwd: packageDir, env })
  const tarballs = (await readdir(work)).filter((name) => name.endsWith('.tgz'))
  const ringTarball = tarballs.find((name) => name.startsWith('sealbox-he-ring-'))
  const tarball = tarballs.find((name) => name.startsWith('sealbox-he-core-'))
  if (!tarball || !ringTarball)
    throw new HeError('INTERNAL', `pnpm pack wrote ${tarballs.join(', ') || 'no tarball'} into ${work}`)
  project = join(work, 'consumer')
  await mkdir(project)
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }))
  const install = ['install', '--prefer-offline', '--no-audit', '--no-fund']
  await run('npm', [...install, join(work, ringTarball), join(work, tarball)], {
    cwd: project,
    env,
  })
  installed = join(project, 'node_modules', '@sealbox', 'he-core')
  installedRing = join(project, 'node_modules', '@sealbox', 'he-ring')
  await writeFile(join(project, 'example.ts'), example.code)
}, 900_000)

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true })
})

describe('the @sealbox/he-core tarball', { timeout: 600_000 }, () => {
  it('ships built ESM and declarations for every entry, the docs, and registry versions of its dependencies', async () => {
    const manifest = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8')) as {
      exports: Record<string, Record<string, string>>
      dependencies: Record<string, string>
    }
    expect(Object.keys(manifest.exports)).toEqual([
      '.',
      './client',
      './envelope',
      './search',
      './codegen',
      './node',
      './testing',
    ])
    for (const entry of Object.values(manifest.exports)) {
      for (const condition of ['types', 'import'] as const) {
        expect(existsSync(join(installed, entry[condition] ?? '')), `${entry[condition]}`).toBe(true)
      }
    }
    // pnpm pack rewrites the workspace's `catalog:` and `workspace:` ranges to real ones.
    for (const [name, range] of Object.entries(manifest.dependencies)) expect(range, name).toMatch(/^[\^~]?\d/)
    expect(JSON.stringify(manifest)).not.toMatch(/"(catalog|workspace):/)
    for (const doc of ['ENVELOPE.md', 'SEARCH.md', 'NODE-SEAL-FACTS.md'])
      expect(existsSync(join(installed, doc))).toBe(true)
    expect(existsSync(join(installed, 'src/params/parseParams.test.ts'))).toBe(false)
    // The test kits are for this package's own tests: neither built nor shipped.
    for (const kit of ['search/searchTestKit', 'program/programTestKit', 'envelope/sealTestFixture']) {
      expect(existsSync(join(installed, `dist/${kit}.js`)), kit).toBe(false)
      expect(existsSync(join(installed, `src/${kit}.ts`)), kit).toBe(false)
    }
    expect(await readFile(join(installed, 'README.md'), 'utf8')).toContain('## he-core in 20 lines')
  })

  it('installs @sealbox/he-ring, the version he-core names, built, with no dependencies of its own', async () => {
    const core = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>
    }
    const ring = JSON.parse(await readFile(join(installedRing, 'package.json'), 'utf8')) as {
      version: string
      exports: Record<string, Record<string, string>>
      dependencies?: Record<string, string>
    }
    expect(core.dependencies['@sealbox/he-ring']).toBe(ring.version)
    expect(ring.dependencies ?? {}).toEqual({})
    expect(Object.keys(ring.exports)).toEqual(['.'])
    for (const condition of ['types', 'import'] as const) {
      expect(existsSync(join(installedRing, ring.exports['.']?.[condition] ?? '')), condition).toBe(true)
    }
    expect(existsSync(join(installedRing, 'src/RnsKernel.test.ts'))).toBe(false)
    expect(existsSync(join(installedRing, 'README.md'))).toBe(true)
    // The ring's kernels run from the installed build: a SEAL-form NTT table and a prime test.
    const { stdout } = await run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "import { isPrime, RnsKernel } from '@sealbox/he-ring'; const k = new RnsKernel({ polyModulusDegree: 16, keyPrimes: [2147483489n, 2147483137n], plainModulus: 65537n, galoisElements: [3] }); console.log(isPrime(2147483489n), k.L)",
      ],
      { cwd: project, env },
    )
    expect(stdout.trim()).toBe('true 1')
  })

  it("runs the README's example under Node 24 and prints what the README says", async () => {
    const { stdout } = await run(process.execPath, ['example.ts'], { cwd: project, env })
    expect(example.normalize(stdout)).toBe(example.normalize(example.promised))
  })

  it('installs the sealbox-search command, which runs from the built dist', async () => {
    const help = await run(join(project, 'node_modules', '.bin', 'sealbox-search'), ['--help'], { cwd: project, env })
    expect(help.stdout).toMatch(/^usage: sealbox-search --url <base URL>/)
    const refused = await run(join(project, 'node_modules', '.bin', 'sealbox-search'), ['--url', 'ftp://x'], {
      cwd: project,
      env,
    }).catch((error: { code?: number; stderr?: string }) => error)
    expect(refused).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--url must be an http:// or https:// URL'),
    })
  })

  it('imports @sealbox/he-core/client from the built dist without loading node-seal', async () => {
    const loaded = await modulesLoadedBy('@sealbox/he-core/client', { cwd: project })
    expect(loaded).toContain(`file://${installed}/dist/client/index.js`)
    expect(loaded.filter((url) => url.includes('node-seal'))).toEqual([])
  })

  it('type-checks a TypeScript consumer of every entry against the shipped declarations', async () => {
    await writeFile(
      join(project, 'consumer.ts'),
      `import { HeError, KeySet, parseParams } from '@sealbox/he-core'
import { SealboxClient, type ServerSession } from '@sealbox/he-core/client'
import { generateCode } from '@sealbox/he-core/codegen'
import { loadSearchDatabaseFile } from '@sealbox/he-core/node'
import { resolveSearchConfig } from '@sealbox/he-core/search'
import { measureHeap } from '@sealbox/he-core/testing'
import { isPrime } from '@sealbox/he-ring'

export const params = parseParams({ scheme: 'bfv', polyModulusDegree: 4096 })
export const client = new SealboxClient({ baseUrl: 'http://localhost:8080' })
export const session: Promise<{ session: ServerSession }> = client.createSession()
export const used = [HeError, generateCode, loadSearchDatabaseFile, resolveSearchConfig, measureHeap]
export const prime: boolean = isPrime(65537)
// Each line below is an error only if the declarations resolved to real types (not any).
// @ts-expect-error a key set needs a context
KeySet.generate()
// @ts-expect-error the client needs its options
new SealboxClient()
// @ts-expect-error isPrime takes a number or a bigint
isPrime('65537')
`,
    )
    await writeFile(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2023',
          lib: ['ES2023', 'ESNext.Disposable', 'DOM'],
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          types: [],
          allowImportingTsExtensions: true,
        },
        files: ['consumer.ts', 'example.ts'],
      }),
    )
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
    const result = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project, env }).catch(
      (error: { stdout: string }) => ({ stdout: error.stdout }),
    )
    expect(result.stdout).toBe('')
  })

  it('bundles the example with Vite into a page that runs it in Chromium', async () => {
    await writeFile(
      join(project, 'index.html'),
      '<!doctype html><pre id="out"></pre><script type="module" src="/page.ts"></script>\n',
    )
    await writeFile(
      join(project, 'page.ts'),
      `// Shows what the example logs in the page, formatted like Node's console.log of an array.
const out = document.getElementById('out')!
const show = (value: unknown) =>
  Array.isArray(value) ? \`[\${value.map((v) => (typeof v === 'bigint' ? \`\${v}n\` : String(v))).join(', ')}]\` : String(value)
console.log = (...values: unknown[]) => { out.textContent += values.map(show).join(' ') + '\\n' }
try {
  await import('./example.ts')
  out.dataset.done = 'ok'
} catch (error) {
  out.textContent += String(error)
  out.dataset.done = 'error'
}
`,
    )
    await build({ root: project, configFile: false, logLevel: 'warn', build: { target: 'esnext', outDir: 'dist' } })
    const server = await preview({
      root: project,
      configFile: false,
      logLevel: 'warn',
      preview: { host: '127.0.0.1', port: 0 },
    })
    const browser = await chromium.launch(chromiumLaunch())
    try {
      const page = await browser.newPage()
      await page.goto(server.resolvedUrls?.local[0] ?? '')
      const out = page.locator('#out[data-done]')
      await out.waitFor({ timeout: 120_000 })
      expect(await out.getAttribute('data-done'), (await out.textContent()) ?? '').toBe('ok')
      expect(example.normalize((await out.textContent()) ?? '')).toBe(example.normalize(example.promised))
    } finally {
      await browser.close()
      await server.close()
    }
  })
})
