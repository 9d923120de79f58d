// `@sealbox/server/testing`: real services for tests and benchmarks — a throwaway
// PostgreSQL cluster, nginx with the deployed site config, server-node processes, and
// the Debian packages and browser flags they rely on.

export {
  chromiumFlags,
  DEBIAN_PACKAGES,
  type DebianPackage,
  debianToolPath,
  freePort,
  missingDebianPackages,
  nginxBinary,
  postgresBinDir,
  waitFor,
} from './debianTools.ts'
export { type MainRun, ServerNode, type ServerNodeOptions, serverEnv } from './ServerNode.ts'
export { DEPLOY_NGINX_DIR, TempNginx, type TempNginxOptions } from './TempNginx.ts'
export { TempPostgres, type TempPostgresOptions } from './TempPostgres.ts'
