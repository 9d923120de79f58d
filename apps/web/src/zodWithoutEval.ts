import { z } from 'zod'

/*
 * The server's Content-Security-Policy allows no `eval` (only 'wasm-unsafe-eval' for
 * SEAL). zod 4 probes `new Function('')` on its first object parse to decide whether to
 * compile parsers; under the CSP that probe fails safely but is reported as a violation.
 * Telling zod up front not to compile keeps the console clean and changes no result.
 * Imported first by both entry points (the page and the SEAL worker).
 */
z.config({ jitless: true })
