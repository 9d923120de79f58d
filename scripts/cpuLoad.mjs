#!/usr/bin/env node
// CPU-bound load on every core, the way an unlucky user's machine is busy: one plain
// busy process per core, at normal priority, each ending by itself after `seconds`
// (so a runner killed outright leaves nothing spinning for long), stopped by PID as
// soon as the work under load is done.
//
//   node scripts/cpuLoad.mjs [--seconds N] -- <command> [args…]
//
// runs the command under the load and exits with its status. Plain JavaScript with no
// dependencies (it runs on the system Node, before the bootstrap). CI (.ci/run) and
// the flake hunt (scripts/flakeHunt.mjs) both load the machine through it.
import { spawn } from 'node:child_process'
import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'

/** The longest a load runs by default: past the whole suite under load, bounded all the same. */
export const DEFAULT_LOAD_SECONDS = 1800

/**
 * Starts one busy process per core for at most `seconds`; returns their PIDs and
 * `stop()`, which kills exactly those PIDs.
 */
export function startCpuLoad({ seconds = DEFAULT_LOAD_SECONDS, processes = availableParallelism() } = {}) {
  const spin = `const end = Date.now() + ${Math.round(seconds * 1000)}; while (Date.now() < end) {}`
  const children = Array.from({ length: processes }, () => spawn(process.execPath, ['-e', spin], { stdio: 'ignore' }))
  return {
    pids: children.map((child) => child.pid),
    stop() {
      for (const child of children) {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
      }
    },
  }
}

function main() {
  const argv = process.argv.slice(2)
  const split = argv.indexOf('--')
  const flags = split === -1 ? [] : argv.slice(0, split)
  const command = split === -1 ? argv : argv.slice(split + 1)
  const at = flags.indexOf('--seconds')
  const seconds =
    at === -1 ? Number(process.env.SEALBOX_CPU_LOAD_SECONDS ?? DEFAULT_LOAD_SECONDS) : Number(flags[at + 1])
  if (command.length === 0 || !(seconds > 0)) {
    process.stderr.write('usage: node scripts/cpuLoad.mjs [--seconds N] -- <command> [args…]\n')
    process.exit(2)
  }
  const load = startCpuLoad({ seconds })
  process.stderr.write(
    `[cpu load] ${load.pids.length} busy processes (PIDs ${load.pids.join(' ')}) for at most ${seconds} s\n`,
  )
  const child = spawn(command[0], command.slice(1), { stdio: 'inherit' })
  const forward = (signal) => () => {
    load.stop()
    child.kill(signal)
  }
  process.on('SIGINT', forward('SIGINT'))
  process.on('SIGTERM', forward('SIGTERM'))
  child.on('exit', (code, signal) => {
    load.stop()
    process.stderr.write(`[cpu load] stopped PIDs ${load.pids.join(' ')}\n`)
    process.exit(code ?? (signal ? 1 : 0))
  })
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main()
