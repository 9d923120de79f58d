/** Where the stamp of the checkout at `root` lives. */
export function installStampPath(root: string): string
/** The hash of `root`'s pnpm-lock.yaml and package.json that the stamp holds once they are installed. */
export function lockHash(root: string): string
/** True when `root`'s stamp says its dependencies are installed for its lockfile as it is now. */
export function isInstalled(root: string): boolean
/** Records that `root`'s dependencies are installed for its lockfile as it is now. */
export function writeInstallStamp(root: string): void
