import { chmod, mkdir, writeFile } from 'node:fs/promises'
import { request as httpRequest } from 'node:http'
import { connect as http2Connect, type IncomingHttpHeaders } from 'node:http2'
import { join } from 'node:path'
import { HeError } from '@sealbox/he-core'
import { postgresBinDir, runCommand } from '@sealbox/testkit'

/*
 * What deployDoc.test.ts needs to follow deploy/README.md as its reader would: the marked
 * blocks read from the docs, substitutions that fail when the doc no longer says what they
 * replace, a root shell in a directory only root can read, and the host around it — the
 * commands a loopback test cannot hand to the real system (`apt-get`, `systemctl`,
 * `journalctl`, `ssh`, the operator's `editor`) are small scripts that record what they
 * were asked and act like the host the issue describes: NodeSource's `nodejs` already
 * provides npm, and Debian's `npm` conflicts with it.
 */

/** The name the doc's nginx step serves. */
export const SERVER_NAME = 'sealbox.example.com'

/** The fenced block after `<!-- deploy-test: name -->` in `doc`, dedented. */
export function docBlock(doc: string, name: string): string {
  const marker = doc.indexOf(`<!-- deploy-test: ${name} -->`)
  if (marker < 0) throw new HeError('INTERNAL', `the deploy docs have no "deploy-test: ${name}" block`)
  const match = /\n( *)```\w*\n([\s\S]*?)\n *```/.exec(doc.slice(marker))
  if (!match) throw new HeError('INTERNAL', `the "${name}" marker is not followed by a fenced block`)
  const indent = match[1] as string
  return (match[2] as string)
    .split('\n')
    .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line))
    .join('\n')
}

/** The names of the marked blocks of `doc`, in the doc's order. */
export function docBlockOrder(doc: string): string[] {
  return [...doc.matchAll(/<!-- deploy-test: ([\w-]+) -->/g)].map((match) => match[1] as string)
}

/** `text` with each `[from, to]` replaced; a `from` the doc no longer says fails the test (never run it on /etc). */
export function substitute(text: string, pairs: ReadonlyArray<readonly [string, string]>): string {
  let out = text
  for (const [from, to] of pairs) {
    if (!out.includes(from)) throw new HeError('INTERNAL', `the deploy docs no longer say "${from}"`)
    out = out.replaceAll(from, to)
  }
  return out
}

/** The environment a build runs in: the test runner's own variables (NODE_ENV=test, VITEST…) left out. */
export function buildEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([name]) => name !== 'NODE_ENV' && !name.startsWith('VITEST')),
  )
}

/** The host around the reader's shell: its stand-in commands and their records. */
export interface ReaderHost {
  /** A directory only root can read (0700), where the reader works. */
  home: string
  /** PATH for the reader's shell: the stand-ins first, PostgreSQL's client binaries, then ours. */
  path: string
  /** What `apt-get` was asked, one line per call. */
  aptLog: string
  /** What `systemctl` was asked, one line per call, each with the settings file as it was then. */
  systemctlLog: string
  /** The file `editor` writes into whatever path it is given (the operator's edit). */
  editedSettings: string
}

/** Writes the stand-in commands into `home/bin` and returns the reader's host. */
export async function readerHost(home: string, settingsFile: string): Promise<ReaderHost> {
  const bin = join(home, 'bin')
  await mkdir(bin)
  const host: ReaderHost = {
    home,
    path: `${bin}:${postgresBinDir()}:${process.env.PATH}`,
    aptLog: join(home, 'apt.log'),
    systemctlLog: join(home, 'systemctl.log'),
    editedSettings: join(home, 'settings.edited'),
  }
  const scripts: Record<string, string> = {
    // apt-get as on Debian 12 with NodeSource's nodejs: `npm` conflicts (exit 100, as apt
    // answers); anything else installs only when it is installed already (this test host
    // has every package the doc names), else exits 100 like a package apt cannot find.
    'apt-get': `#!/bin/sh
echo "$*" >> ${JSON.stringify(host.aptLog)}
[ "$1" = install ] || exit 0
shift
for pkg in "$@"; do
  case "$pkg" in -*) continue ;; esac
  if [ "$pkg" = npm ] && command -v npm >/dev/null; then
    echo "The following packages have unmet dependencies: npm : Depends: nodejs:any but it is not going to be installed" >&2
    echo "E: Unable to correct problems, you have held broken packages." >&2
    exit 100
  fi
  dpkg -s "$pkg" >/dev/null 2>&1 || { echo "E: Unable to locate package $pkg (test host)" >&2; exit 100; }
done
`,
    // systemctl records each call with the settings file as the node would read it then.
    systemctl: `#!/bin/sh
echo "systemctl $* | $(tr '\\n' ' ' < ${JSON.stringify(settingsFile)} 2>/dev/null)" >> ${JSON.stringify(host.systemctlLog)}
`,
    journalctl: '#!/bin/sh\nexit 0\n',
    // The operator's edit: the settings the test wants, written where the doc says.
    editor: `#!/bin/sh\ncat ${JSON.stringify(host.editedSettings)} > "$1"\n`,
  }
  for (const [name, text] of Object.entries(scripts)) {
    await writeFile(join(bin, name), text)
    await chmod(join(bin, name), 0o755)
  }
  return host
}

/** Runs `script` as the reader does: bash, stop at the first failure, in `cwd` (default: their home). */
export function runAsReader(
  host: ReaderHost,
  script: string,
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
) {
  const cd = `cd ${JSON.stringify(options.cwd ?? host.home)}\n`
  return runCommand('/bin/bash', ['-euo', 'pipefail', '-c', `${cd}${script}`], {
    env: { ...buildEnv(), ...options.env, PATH: host.path },
    timeoutMs: options.timeoutMs ?? 120_000,
  })
}

/** An answer from nginx's TLS site over HTTP/2, trusting `ca` for `SERVER_NAME`. */
export async function http2Get(
  port: number,
  ca: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ headers: IncomingHttpHeaders; body: string }> {
  const session = http2Connect(`https://127.0.0.1:${port}`, { ca, servername: SERVER_NAME })
  try {
    return await new Promise((resolve, reject) => {
      session.once('error', reject)
      const stream = session.request({ ':path': path, ':authority': SERVER_NAME, ...headers })
      let body = ''
      let answer: IncomingHttpHeaders = {}
      stream.on('response', (received) => {
        answer = received
      })
      stream.setEncoding('utf8')
      stream.on('data', (chunk: string) => {
        body += chunk
      })
      stream.once('end', () => resolve({ headers: answer, body }))
      stream.once('error', reject)
    })
  } finally {
    session.close()
  }
}

/** The status and Location of a plain-HTTP request to nginx's port-80 server, as a browser sends it. */
export function httpRedirect(port: number, path: string): Promise<{ status: number; location: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers: { host: SERVER_NAME } }, (response) => {
      response.resume()
      response.once('end', () => resolve({ status: response.statusCode ?? 0, location: response.headers.location }))
    })
    req.once('error', reject)
    req.end()
  })
}
