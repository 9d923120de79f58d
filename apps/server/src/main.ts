import { SighupRelay } from './process/SighupRelay.ts'

/*
 * `node dist/main.js [--flag value …]` built, or `node --conditions=@sealbox/source src/main.ts`
 * from source (`--help` lists the flags). SIGHUP's listener goes in first, before the
 * server's modules load and before the key store connects: SIGHUP's default would end the
 * node (see SighupRelay). Everything else is `runServer`.
 */

const sighup = SighupRelay.install()
const { runServer } = await import('./runServer.ts')
await runServer({ sighup })
