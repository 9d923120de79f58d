// Node-only surface of @sealbox/he-core (`@sealbox/he-core/node`): file system helpers.
// Everything else lives in the browser-safe entries (the core, ./client, ./search, ./codegen).

export { compileSealModule } from './compileSealModule.ts'
export { loadSearchDatabaseFile } from './loadSearchDatabaseFile.ts'
