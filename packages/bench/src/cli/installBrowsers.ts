import { spawnSync } from 'node:child_process'
import { missingDebianPackages } from '@sealbox/testkit'
import { BenchError } from '../BenchError.ts'

/**
 * `--install-browsers`: apt-get installs the missing Debian browsers (as root, or
 * through passwordless sudo), from the table CI and `npm test` use too
 * (scripts/debianTools.json). Returns the packages it installed.
 */
export function installBrowsers(log: (line: string) => void): string[] {
  const missing = missingDebianPackages(['browsers'])
  if (missing.length === 0) {
    log('all browsers are installed')
    return []
  }
  const root = typeof process.getuid === 'function' && process.getuid() === 0
  if (!root && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status !== 0) {
    throw new BenchError(
      'INSTALL_FAILED',
      `not root and no passwordless sudo: run  sudo apt-get install -y ${missing.join(' ')}`,
    )
  }
  const apt = (args: string[]) =>
    spawnSync(root ? 'apt-get' : 'sudo', root ? args : ['apt-get', ...args], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    }).status
  log(`installing ${missing.join(' ')}`)
  const install = ['install', '-y', '--no-install-recommends', ...missing]
  if (apt(install) !== 0 && (apt(['update']) !== 0 || apt(install) !== 0)) {
    throw new BenchError('INSTALL_FAILED', `apt-get install ${missing.join(' ')} failed (see the output above)`)
  }
  return missing
}
