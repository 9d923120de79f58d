// Node-only surface of @sealbox/he-core (`@sealbox/he-core/node`): file system helpers. It never loads
// node-seal: the `sealbox-search` command (sealboxSearchMain.ts, the package's bin) is a file of its own.
// Everything else lives in the browser-safe entries (the core, ./client, ./search, ./codegen).

export { compileSealModule } from './compileSealModule.ts'
export { describeParseArgsError } from './describeParseArgsError.ts'
export { loadSearchDatabaseFile } from './loadSearchDatabaseFile.ts'
