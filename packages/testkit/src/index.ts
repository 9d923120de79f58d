// `@sealbox/testkit`: real services for tests and benchmarks — a throwaway PostgreSQL
// cluster, nginx with the deployed site config, server-node processes, Debian's
// browsers and the Debian packages they come from, free ports and `waitFor`.
// Every export is named here by hand.

export { type BrowserLaunchOptions, chromiumLaunchOptions, firefoxLaunchOptions } from './browserLaunchOptions.ts'
export {
  chromiumFlags,
  DEBIAN_PACKAGES,
  type DebianPackage,
  debianToolPath,
  isRoot,
  missingDebianPackages,
  nginxBinary,
  postgresBinDir,
} from './debianTools.ts'
export { freePort } from './freePort.ts'
export { type CommandResult, runCommand } from './runCommand.ts'
export { type MainRun, ServerNode, type ServerNodeOptions, serverEnv } from './ServerNode.ts'
export { BUILT_MAIN, SERVER_APP_DIR, SERVER_SETTING_NAMES, SOURCE_MAIN } from './serverApp.ts'
export { startWebKitDriver, type WebKitDriver, type WebKitDriverOptions } from './startWebKitDriver.ts'
export { DEPLOY_NGINX_DIR, TempNginx, type TempNginxOptions } from './TempNginx.ts'
export { TempPostgres, type TempPostgresOptions } from './TempPostgres.ts'
export { waitFor } from './waitFor.ts'
