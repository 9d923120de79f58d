import { describe, expect, it } from 'vitest'
import { benchErrorOf, parseFlags } from '../core/cliTestKit.ts'
import { KEYS_BENCH_CLI, KeysBenchFlagsSchema } from './keysBenchFlags.ts'
import { keysBenchCommand as commandOf } from './keysBenchSettings.ts'

const keysBenchCommand = (argv: string[]) => commandOf(parseFlags(KEYS_BENCH_CLI, argv))
const failure = (argv: string[]) => benchErrorOf(() => KEYS_BENCH_CLI.parse(argv))

describe('benchmark:keys flags', () => {
  it('resolves defaults (full and --quick) under the explicit flags', () => {
    const full = keysBenchCommand([])
    expect(full.kind === 'run' && full.settings).toMatchObject({
      users: [10, 100, 1000],
      stores: ['file', 'postgres'],
      bytesTier: true,
      warmSweep: false,
      workers: 2,
      requests: 400,
      zipfS: 1,
    })
    const quick = keysBenchCommand([
      '--',
      '--quick',
      '--users=5,50',
      '--bytes-tier',
      'off',
      '--zipf',
      '0.8',
      '--warm-sweep',
      'on',
    ])
    expect(quick.kind === 'run' && quick.settings).toMatchObject({
      users: [5, 50],
      bytesTier: false,
      warmSweep: true,
      requests: 120,
      coldSamples: 3,
      zipfS: 0.8,
    })
    expect(keysBenchCommand(['--render', 'results/keys/keys-benchmark.json'])).toEqual({
      kind: 'render',
      file: 'results/keys/keys-benchmark.json',
    })
    expect(KEYS_BENCH_CLI.parse(['-h'])).toBe('help')
  })

  it.each([
    [['--workers', 'two'], /--workers: workers must be a number \(got "two"\)/],
    [['--workers', '17'], /--workers: workers must be at most 16/],
    [['--users', '10,many'], /--users: users must be a number/],
    [['--stores', 'redis'], /--stores: stores are file, postgres/],
    [['--bytes-tier', 'maybe'], /--bytes-tier: bytes-tier is on or off/],
    [['--warm-sweep', 'yes'], /--warm-sweep: warm-sweep is on or off/],
    [['--nope'], /unknown flag --nope/],
    [['--render'], /--render needs a value/],
  ])('rejects %j naming the flag', (argv, message) => {
    const error = failure(argv)
    expect(error.code).toBe('INVALID_FLAGS')
    expect(error.message).toMatch(message)
    expect(error.message).toContain('usage: npm run benchmark:keys -- [flags]')
  })

  it('--help lists every flag with its description and default', () => {
    const help = KEYS_BENCH_CLI.help()
    for (const [name, schema] of Object.entries(KeysBenchFlagsSchema.shape)) {
      expect(help, name).toMatch(new RegExp(`^  --${name}\\b`, 'm'))
      expect(help, name).toContain(schema.description)
    }
    expect(help).toMatch(/^ {2}--stores <list> +.*\(default file,postgres\)/m)
  })
})
