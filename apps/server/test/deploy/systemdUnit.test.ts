import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

/*
 * deploy/systemd/sealbox.service as shipped, checked by systemd's own `systemd-analyze
 * verify` (Debian package `systemd`; `npm test` installs it with the other services).
 * Only the install root /opt/sealbox is moved to a temporary directory holding the one
 * file verify looks for, the Node at .tools/bin/node.
 */

const run = promisify(execFile)
const UNIT = fileURLToPath(new URL('../../../../deploy/systemd/sealbox.service', import.meta.url))
const SYSTEMD_ANALYZE = ['/usr/bin/systemd-analyze', '/bin/systemd-analyze'].find((path) => existsSync(path))

/** `key=value` settings of the unit (comments and sections dropped). */
function settings(text: string): Map<string, string> {
  const map = new Map<string, string>()
  for (const line of text.split('\n')) {
    const match = /^([A-Za-z]+)=(.*)$/.exec(line.trim())
    if (match) map.set(match[1] as string, match[2] as string)
  }
  return map
}

describe('the systemd unit', () => {
  it('restarts on failure, reads a settings file, runs as a non-root user and reloads tokens on SIGHUP', async () => {
    const unit = settings(await readFile(UNIT, 'utf8'))
    expect(unit.get('Restart')).toBe('on-failure')
    expect(unit.get('EnvironmentFile')).toBe('/etc/sealbox/sealbox.env')
    expect(unit.get('User')).toBe('sealbox')
    expect(unit.get('ExecStart')).toBe('/opt/sealbox/.tools/bin/node apps/server/dist/main.js')
    expect(unit.get('ExecReload')).toBe('/bin/kill -HUP $MAINPID')
    // Longer than the server's default SHUTDOWN_TIMEOUT_MS (30 s), so a drain is not cut short.
    expect(Number.parseInt(unit.get('TimeoutStopSec') ?? '0', 10)).toBeGreaterThan(30)
  })

  it.skipIf(SYSTEMD_ANALYZE === undefined)(
    'passes systemd-analyze verify with no warning (skipped only when systemd is not installed: apt-get install systemd)',
    async () => {
      const root = await mkdtemp(join(tmpdir(), 'sealbox-unit-'))
      try {
        await mkdir(join(root, '.tools', 'bin'), { recursive: true })
        await symlink(process.execPath, join(root, '.tools', 'bin', 'node'))
        const text = (await readFile(UNIT, 'utf8')).replaceAll('/opt/sealbox', root)
        const file = join(root, 'sealbox.service')
        await writeFile(file, text)
        const result = await run(SYSTEMD_ANALYZE as string, ['verify', '--man=no', file])
        // verify exits 0 on many problems (an unknown key, a bad value): they are warnings on stderr.
        expect(result.stderr.trim()).toBe('')
      } finally {
        await rm(root, { recursive: true, force: true })
      }
    },
  )
})
