// The bootstrap's record that a checkout's dependencies are installed for its lockfile
// (scripts/sealbox.mjs installs them when it is missing or stale). Plain JavaScript with no
// dependencies: it runs on the system Node of a fresh machine.
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** Where the stamp of the checkout at `root` lives. */
export function installStampPath(root) {
  return join(root, 'node_modules', '.sealbox-install-stamp')
}

/** The hash of `root`'s pnpm-lock.yaml and package.json that the stamp holds once they are installed. */
export function lockHash(root) {
  const hash = createHash('sha256')
  for (const file of ['pnpm-lock.yaml', 'package.json']) {
    if (existsSync(join(root, file))) hash.update(readFileSync(join(root, file)))
  }
  return hash.digest('hex')
}

/** True when `root`'s stamp says its dependencies are installed for its lockfile as it is now. */
export function isInstalled(root) {
  const stamp = installStampPath(root)
  return existsSync(stamp) && readFileSync(stamp, 'utf8') === lockHash(root)
}

/** Records that `root`'s dependencies are installed for its lockfile as it is now. */
export function writeInstallStamp(root) {
  writeFileSync(installStampPath(root), lockHash(root))
}
