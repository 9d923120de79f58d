// `@sealbox/server/testing`: real services for tests and benchmarks — a throwaway
// PostgreSQL cluster, nginx with the deployed site config, and server-node processes.

export { freePort, nginxBinary, postgresBinDir, waitFor } from './debianTools.ts'
export { ServerNode, type ServerNodeOptions } from './ServerNode.ts'
export { DEPLOY_NGINX_DIR, TempNginx, type TempNginxOptions } from './TempNginx.ts'
export { TempPostgres, type TempPostgresOptions } from './TempPostgres.ts'
