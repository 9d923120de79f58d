import { describe, expect, it } from 'vitest'
import { benchErrorOf, parseFlags } from '../core/cliTestKit.ts'
import { resolveServerBenchSettings, SERVER_BENCH_CLI, ServerBenchFlagsSchema } from './serverBenchFlags.ts'

const parse = (argv: string[]) => parseFlags(SERVER_BENCH_CLI, argv)

const failure = (argv: string[]) => benchErrorOf(() => parse(argv))

describe('benchmark:server flags', () => {
  it('parses lists, numbers and switches in both spellings, with --quick defaults under them', () => {
    const settings = resolveServerBenchSettings(
      parse(['--', '--rows', 'direct,pool-2', '--concurrency=4,1', '--duration', '0.5', '--quick']),
    )
    expect(settings.rows.map((row) => row.id)).toEqual(['direct', 'pool-2'])
    expect(settings).toMatchObject({ concurrency: [1, 4], durationSeconds: 0.5, requests: 10, quick: true })
  })

  it.each([
    [['--nope'], /unknown flag --nope/],
    [['--requests', 'lots'], /--requests: requests must be a number \(got "lots"\)/],
    [['--probe-hz=fast'], /--probe-hz: probe-hz must be a number/],
    [['--rows', 'pool-99'], /--rows: rows are direct, inline, pool-N or process-N/],
    [['--out'], /--out needs a value/],
    [['--quick=yes'], /--quick takes no value/],
    [['stray'], /unexpected argument "stray"/],
  ])('rejects %j naming the flag, with the usage', (argv, message) => {
    const error = failure(argv)
    expect(error.code).toBe('INVALID_FLAGS')
    expect(error.message).toMatch(message)
    expect(error.message).toContain('usage: npm run benchmark:server -- [flags]')
  })

  it('--help lists every flag with its description', () => {
    expect(SERVER_BENCH_CLI.parse(['--help'])).toBe('help')
    const help = SERVER_BENCH_CLI.help()
    for (const [name, schema] of Object.entries(ServerBenchFlagsSchema.shape)) {
      expect(help, name).toMatch(new RegExp(`^  --${name}\\b`, 'm'))
      expect(help, name).toContain(schema.description)
    }
    expect(help).toMatch(/^ {2}--cost-flood <seconds> +another tenant/m)
  })
})
