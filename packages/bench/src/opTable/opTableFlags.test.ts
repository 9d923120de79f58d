import { describe, expect, it } from 'vitest'
import { benchErrorOf, parseFlags } from '../core/cliTestKit.ts'
import { ALL_NS } from '../harness/benchParameters.ts'
import { OP_CATALOG } from '../harness/opCatalog.ts'
import { OP_TABLE_CLI, OpTableFlagsSchema, selectOps } from './opTableFlags.ts'
import { QUICK_OPS, resolveOpTableSettings } from './opTableSettings.ts'
import { loadPublishedTimings } from './publishedTimings.ts'

const parse = (argv: string[]) => parseFlags(OP_TABLE_CLI, argv)
const published = new Set([...loadPublishedTimings().values()].map((row) => `${row.group}/${row.op}`))

const failure = benchErrorOf

describe('benchmark flags', () => {
  it('parses lists, numbers and switches in both --flag value and --flag=value forms', () => {
    const flags = parse(['--', '--engines', 'node,chromium', '--n=8192,4096', '--iterations', '20', '--quick'])
    expect(flags).toMatchObject({ engines: ['node', 'chromium'], n: [4096, 8192], iterations: 20, quick: true })
  })

  it.each([
    [['--nope'], /unknown flag --nope/],
    [['--n', '3000'], /--n: n must be among 1024, 2048/],
    [['--engines', 'safari'], /--engines: engines are native, node, chromium, firefox, webkit/],
    [['--iterations', '0'], /--iterations: iterations must be at least 1/],
    [['--repeats', 'many'], /--repeats: repeats must be a number \(got "many"\)/],
    [['--warmup-ms=soon'], /--warmup-ms: warmup-ms must be a number/],
    [['--seed', '1.5'], /--seed: seed must be a whole number/],
    [['--out'], /--out needs a value/],
    [['--quick=yes'], /--quick takes no value/],
    [['stray'], /unexpected argument "stray"/],
    [['--help=yes'], /--help takes no value/],
  ])('rejects %j with a clear message and the usage', (argv, message) => {
    const error = failure(() => parse(argv))
    expect(error.code).toBe('INVALID_FLAGS')
    expect(error.message).toMatch(message)
    expect(error.message).toContain('usage: npm run benchmark -- [flags]')
  })

  it('--help lists every flag with its description', () => {
    expect(OP_TABLE_CLI.parse(['--', '--help'])).toBe('help')
    expect(OP_TABLE_CLI.parse(['-h'])).toBe('help')
    const help = OP_TABLE_CLI.help()
    for (const [name, schema] of Object.entries(OpTableFlagsSchema.shape)) {
      expect(help, name).toMatch(new RegExp(`^  --${name}\\b.* \\S`, 'm'))
      expect(help, name).toContain(schema.description)
    }
    expect(help).toMatch(/^ {2}--iterations <count> +calls per timed sample/m)
    expect(help).toMatch(/^ {2}--quick +n=4096/m)
    expect(help).toMatch(/^ {2}--help, -h +print this help/m)
  })

  it('selects ops by id, group, Group/*, op name, published and all', () => {
    expect(selectOps(['BFV/EvaluateMulCt'], published)).toEqual(['BFV/EvaluateMulCt'])
    expect(selectOps(['KeyGen'], published)).toEqual([
      'KeyGen/Secret',
      'KeyGen/Public',
      'KeyGen/Relin',
      'KeyGen/Galois',
    ])
    expect(selectOps(['EvaluateRotate'], published)).toEqual(['CKKS/EvaluateRotate'])
    expect(selectOps(['EvaluateMulCt'], published)).toEqual([
      'BFV/EvaluateMulCt',
      'CKKS/EvaluateMulCt',
      'BGV/EvaluateMulCt',
    ])
    expect(selectOps(['all'], published)).toHaveLength(OP_CATALOG.length)
    const publishedOnly = selectOps(['published'], published)
    expect(publishedOnly.every((id) => published.has(id))).toBe(true)
    expect(publishedOnly).toHaveLength(published.size)
    expect(failure(() => selectOps(['BFV/Nope'], published)).message).toMatch(/"BFV\/Nope" matches no row/)
  })

  it('defaults to the full table, and --quick to n=4096 and a handful of ops', () => {
    const full = resolveOpTableSettings(parse([]), published)
    expect(full.plan.ns).toEqual(ALL_NS)
    expect(full.plan.ops).toHaveLength(OP_CATALOG.length)
    expect(full.engines).toEqual(['native', 'node', 'chromium', 'firefox', 'webkit'])
    const quick = resolveOpTableSettings(parse(['--quick', '--repeats', '2']), published)
    expect(quick.plan.ns).toEqual([4096])
    expect(quick.plan.ops).toEqual(QUICK_OPS)
    expect(quick.plan.policy.repeats).toBe(2)
    expect(quick.plan.policy.minRepeats).toBe(2)
    expect(quick.outDir).toMatch(/results\/tmp\/quick$/)
  })

  it('every published row has an implementation in the catalog', () => {
    const ids = new Set(OP_CATALOG.map((spec) => spec.id))
    for (const id of published) expect(ids.has(id), id).toBe(true)
  })
})
