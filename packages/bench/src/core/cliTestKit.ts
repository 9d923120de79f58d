// Test helpers for the benchmarks' command lines (imported by *Flags.test.ts only).
import { BenchError } from '../BenchError.ts'
import type { Cli, FlagsSchema } from './defineCli.ts'

/** The flags `argv` parses to; `--help` is a test failure here. */
export function parseFlags<S extends FlagsSchema>(cli: Cli<S>, argv: string[]) {
  const flags = cli.parse(argv)
  if (flags === 'help') throw new BenchError('INTERNAL', 'unexpected --help')
  return flags
}

/** The BenchError `fn` throws (anything else, or no error, fails the test). */
export function benchErrorOf(fn: () => unknown): BenchError {
  try {
    fn()
  } catch (error) {
    if (error instanceof BenchError) return error
    throw error
  }
  throw new BenchError('INTERNAL', 'expected a BenchError')
}
