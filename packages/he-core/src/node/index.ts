// Node-only surface of @sealbox/he-core (`@sealbox/he-core/node`): file system helpers.
// Everything else lives in the browser-safe main entry.

export { loadSearchDatabaseFile } from './loadSearchDatabaseFile.ts'
