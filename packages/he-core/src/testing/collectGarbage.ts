import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

let gc: (() => void) | undefined

/**
 * Runs V8's full garbage collection now (Node only), so a reading of
 * `process.memoryUsage().arrayBuffers` before and after an allocation counts that
 * allocation and not garbage from earlier tests collected in between. Tests run without
 * `--expose-gc`; the flag is set at run time and the `gc` function taken from a fresh context.
 */
export function collectGarbage(): void {
  if (gc === undefined) {
    setFlagsFromString('--expose-gc')
    gc = runInNewContext('gc') as () => void
  }
  gc()
}
