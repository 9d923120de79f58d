// Public surface of @sealbox/server: the app factory and its configuration, for
// tests, the benchmark and embedding. Every export is named here by hand.

export { type BuildServerOptions, buildServer } from './app/buildServer.ts'
export type { SealboxServices } from './app/SealboxServices.ts'
export type { SearchSummary } from './app/SearchSummary.ts'
export { CONFIG_KEYS, configFor, type LoadConfigOptions, loadConfig, parseFlags } from './config/loadConfig.ts'
export {
  EXECUTOR_MODES,
  type ExecutorMode,
  SERVER_MODES,
  type ServerConfig,
  type ServerConfigInput,
  ServerConfigSchema,
  type ServerMode,
} from './config/ServerConfig.ts'
export type { Executor, ExecutorStatus } from './executor/Executor.ts'
export type { KeySetRecord, KeyStore } from './store/KeyStore.ts'
