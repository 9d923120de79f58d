// Node-only surface of @sealbox/he-core (`@sealbox/he-core/node`): file system helpers, and the
// private search behind the `sealbox-search` command (src/node/sealboxSearchMain.ts, the package's bin).
// Everything else lives in the browser-safe entries (the core, ./client, ./search, ./codegen).

export { compileSealModule } from './compileSealModule.ts'
export { loadSearchDatabaseFile } from './loadSearchDatabaseFile.ts'
export { type SealboxSearchOptions, type SealboxSearchResult, sealboxSearch } from './sealboxSearch.ts'
