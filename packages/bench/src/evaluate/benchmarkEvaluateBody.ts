/**
 * `pnpm --filter @sealbox/bench benchmark:evaluate-body`: what the evaluate request's
 * body costs — bytes on the wire, the route's event-loop time, the worker's deserialize
 * phase — per case (n × number of ciphertext inputs). Each run fills one labelled
 * column of results/evaluate-body/evaluate-body.{md,json}; earlier columns are kept,
 * and `before` is compared with the others. `--help` lists the flags.
 */
import { execFileSync } from 'node:child_process'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import process from 'node:process'
import { fileURLToPath } from 'node:url'
import { SealboxClient } from '@sealbox/he-core/client'
import { ServerNode } from '@sealbox/testkit'
import { loadAverage, machineInfo } from '../report/machineInfo.ts'
import { prepareEvaluateBodyCase } from './evaluateBodyCase.ts'
import { EVALUATE_BODY_CLI, type EvaluateBodySettings } from './evaluateBodyFlags.ts'
import { measureEvaluateBody } from './measureEvaluateBody.ts'
import {
  type EvaluateBodyCaseRecord,
  type EvaluateBodyReport,
  type EvaluateBodyRun,
  renderEvaluateBodyMarkdown,
} from './renderEvaluateBodyReport.ts'
import { wireCounter } from './wireCounter.ts'

const OUT = fileURLToPath(new URL('../../results/evaluate-body/', import.meta.url))
const REPO = fileURLToPath(new URL('../../../../', import.meta.url))
const COMMAND = 'pnpm --filter @sealbox/bench benchmark:evaluate-body'

function log(line: string): void {
  process.stderr.write(`${line}\n`)
}

function commit(): string {
  const git = (args: string[]) => execFileSync('git', ['-C', REPO, ...args], { encoding: 'utf8' }).trim()
  try {
    const dirty = git(['status', '--porcelain', '--', 'apps/server', 'packages/he-core']) !== ''
    return `${git(['rev-parse', '--short', 'HEAD'])}${dirty ? '+dirty' : ''}`
  } catch {
    return 'unknown'
  }
}

async function run(settings: EvaluateBodySettings): Promise<EvaluateBodyRun> {
  const node = await ServerNode.start({ name: 'evaluate-body', env: { WORKERS: '2', EXECUTOR: 'pool' } })
  const cases: EvaluateBodyCaseRecord[] = []
  try {
    const wire = wireCounter()
    const { session } = await new SealboxClient({ baseUrl: node.url }).createSession()
    const client = new SealboxClient({ baseUrl: node.url, token: session.token, fetch: wire.fetch })
    for (const degree of settings.degrees) {
      for (const inputCount of settings.inputs) {
        using testCase = await prepareEvaluateBodyCase(degree, inputCount)
        const keySet = `n${degree}-k${inputCount}`
        await client.putKeySet(keySet, testCase.keyBytes)
        log(`[evaluate-body] ${testCase.name}: ${settings.warmup} warm-up + ${settings.requests} requests`)
        const samples = await measureEvaluateBody(client, wire, testCase, keySet, settings)
        cases.push({
          name: testCase.name,
          degree,
          inputCount,
          inputEnvelopeBytes: Object.values(testCase.inputs).reduce((sum, bytes) => sum + bytes.byteLength, 0),
          samples,
        })
      }
    }
  } finally {
    await node.stop()
  }
  return {
    label: settings.label,
    date: new Date().toISOString(),
    commit: commit(),
    loadAverage: loadAverage(),
    machine: machineInfo(),
    settings: { requests: settings.requests, warmup: settings.warmup },
    cases,
  }
}

async function readReport(path: string): Promise<EvaluateBodyReport> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as EvaluateBodyReport
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { runs: {} }
    throw error
  }
}

let settings: EvaluateBodySettings
try {
  const parsed = EVALUATE_BODY_CLI.parse(process.argv.slice(2))
  if (parsed === 'help') {
    process.stdout.write(`${EVALUATE_BODY_CLI.help()}\n`)
    process.exit(0)
  }
  settings = parsed
} catch (error) {
  process.stderr.write(`benchmark:evaluate-body: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exit(2)
}

const jsonPath = join(OUT, 'evaluate-body.json')
const report = await readReport(jsonPath)
report.runs[settings.label] = await run(settings)
const markdown = renderEvaluateBodyMarkdown(report, COMMAND)
await mkdir(OUT, { recursive: true })
await writeFile(jsonPath, `${JSON.stringify(report, null, 1)}\n`)
await writeFile(join(OUT, 'evaluate-body.md'), markdown)
process.stdout.write(markdown)
