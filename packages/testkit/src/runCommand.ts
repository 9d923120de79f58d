import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { HeError } from '@sealbox/he-core'
import { isRoot } from './debianTools.ts'

// util-linux installs it in /usr/sbin, which a minimal PATH (CI, cron) may lack.
const RUNUSER = ['/usr/sbin/runuser', '/sbin/runuser'].find((path) => existsSync(path)) ?? 'runuser'

/** Output of a finished command. */
export interface CommandResult {
  stdout: string
  stderr: string
}

/**
 * Runs a command to completion; as root, `asUser` runs it through `runuser -u` (Debian's
 * util-linux). A failure throws with the command's stderr in the message.
 */
export function runCommand(
  file: string,
  args: readonly string[],
  options: { asUser?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<CommandResult> {
  const [cmd, argv] =
    options.asUser !== undefined && isRoot() ? [RUNUSER, ['-u', options.asUser, '--', file, ...args]] : [file, args]
  return new Promise((resolve, reject) => {
    execFile(
      cmd,
      argv,
      { timeout: options.timeoutMs ?? 60_000, env: options.env ?? process.env, maxBuffer: 16 * 2 ** 20 },
      (error, stdout, stderr) => {
        if (error) {
          reject(
            new HeError('INTERNAL', `${[cmd, ...argv].join(' ')} failed: ${stderr.trim() || error.message}`, {
              cause: error,
            }),
          )
        } else resolve({ stdout, stderr })
      },
    )
  })
}
