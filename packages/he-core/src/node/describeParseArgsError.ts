/**
 * Rewords an error thrown by `node:util`'s `parseArgs` for a person: it names the flag
 * and says what to write instead. `isSwitch(name)` tells whether `--name` takes no value.
 * One wording for every sealbox command line: `sealbox-search`, the server's and the benchmarks'.
 */
export function describeParseArgsError(error: unknown, isSwitch: (name: string) => boolean): string {
  const code = (error as { code?: string }).code
  const message = error instanceof Error ? error.message : String(error)
  const quoted = /'([^']*)'/.exec(message)?.[1] ?? ''
  // parseArgs quotes an option as '--name', '--name <value>' or '-h, --help'.
  const flag = /--[^\s,]+/.exec(quoted)?.[0] ?? quoted
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown flag ${flag}; --help lists the flags`
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument "${quoted}"; flags are --name value or --name=value`
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return isSwitch(flag.replace(/^--/, ''))
        ? `${flag} takes no value`
        : `${flag} needs a value (--name value or --name=value; a value starting with - only as --name=value)`
    default:
      return message
  }
}
