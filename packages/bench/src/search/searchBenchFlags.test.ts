import { describe, expect, it } from 'vitest'
import { benchErrorOf, parseFlags } from '../core/cliTestKit.ts'
import { SEARCH_BENCH_CLI, SearchBenchFlagsSchema } from './searchBenchFlags.ts'

const parse = (argv: string[]) => parseFlags(SEARCH_BENCH_CLI, argv)

const failure = (argv: string[]) => benchErrorOf(() => parse(argv))

describe('benchmark:search flags', () => {
  it('has defaults, and reads numbers and switches in both spellings', () => {
    expect(parse([])).toMatchObject({ warmup: 5, rows: 10_000, dimension: 16, large: 100_000 })
    expect(parse(['--', '--rows', '4096', '--dimension=128', '--no-threads', '--quick'])).toMatchObject({
      rows: 4096,
      dimension: 128,
      'no-threads': true,
      quick: true,
    })
    expect(parse(['--throughput-only', '--quick'])).toMatchObject({ 'throughput-only': true, quick: true })
    expect(parse(['--no-throughput'])).toMatchObject({ 'no-throughput': true })
    expect(parse(['--end-to-end-only', '--no-browser'])).toMatchObject({ 'end-to-end-only': true, 'no-browser': true })
    expect(parse(['--million'])).toMatchObject({
      million: true,
      'million-rows': '1000000',
      'million-cases': 'exact,cluster-private',
    })
    expect(parse(['--million', '--million-rows', '20000', '--million-cases', 'exact'])).toMatchObject({
      'million-rows': '20000',
      'million-cases': 'exact',
    })
    expect(parse(['--million', '--million-rows', '10000,100000,1000000'])).toMatchObject({
      'million-rows': '10000,100000,1000000',
    })
    expect(failure(['--million-rows', '10000,2000000']).message).toMatch(/each row count from 1 to 1,000,000/)
    expect(failure(['--million-rows', '10k']).message).toMatch(/a row count, or a comma-separated list/)
    expect(failure(['--million-cases', 'exact,fast']).message).toMatch(/million-cases: exact, cluster-private or both/)
    expect(parse(['--million'])).toMatchObject({ 'million-links': 'broadband,mobile' })
    expect(parse(['--million', '--million-links', 'none', '--million-subjects', '0'])).toMatchObject({
      'million-links': 'none',
      'million-subjects': 0,
    })
    expect(parse(['--million-links', 'mobile'])).toMatchObject({ 'million-links': 'mobile' })
    expect(failure(['--million-links', 'broadband,dialup']).message).toMatch(/million-links: broadband, mobile/)
    expect(failure(['--million-subjects', '-1']).message).toMatch(/--million-subjects/)
    expect(parse(['--sentences'])).toMatchObject({ sentences: true, 'sentence-settings': '0,auto,32' })
    expect(parse(['--sentences', '--sentence-settings', 'auto,16', '--samples', '50'])).toMatchObject({
      'sentence-settings': 'auto,16',
      samples: 50,
    })
    expect(failure(['--sentence-settings', '0,many']).message).toMatch(/sentence-settings must be a comma-separated/)
  })

  it.each([
    [['--samples', 'ten'], /--samples: samples must be a number \(got "ten"\)/],
    [['--rows=1e3.5'], /--rows: rows must be a number/],
    [['--dimension', '0'], /--dimension: dimension must be at least 1/],
    [['--nope'], /unknown flag --nope/],
    [['--out'], /--out needs a value/],
    [['--throughput-only=yes'], /--throughput-only takes no value/],
  ])('rejects %j naming the flag (a bad number is never NaN)', (argv, message) => {
    const error = failure(argv)
    expect(error.code).toBe('INVALID_FLAGS')
    expect(error.message).toMatch(message)
    expect(error.message).toContain('usage: npm run benchmark:search -- [flags]')
  })

  it('--help lists every flag with its description and default', () => {
    expect(SEARCH_BENCH_CLI.parse(['--help'])).toBe('help')
    const help = SEARCH_BENCH_CLI.help()
    for (const [name, schema] of Object.entries(SearchBenchFlagsSchema.shape)) {
      expect(help, name).toMatch(new RegExp(`^  --${name}\\b`, 'm'))
      expect(help, name).toContain(schema.description)
    }
    expect(help).toMatch(/^ {2}--warmup <N> +warm-up queries per config \(default 5\)/m)
  })
})
