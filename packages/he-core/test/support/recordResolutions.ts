// Preloaded with `node --import` in a child process: records the URL of every module the
// process resolves and writes them as JSON to $SEALBOX_RESOLUTIONS_FILE when it exits.
import { writeFileSync } from 'node:fs'
import { registerHooks } from 'node:module'

const out = process.env.SEALBOX_RESOLUTIONS_FILE
// No error class here: whatever this preload imports is recorded as the probed program's own
// resolution. A missing output file is said on stderr, and the child exits.
if (!out) {
  process.stderr.write('recordResolutions: set SEALBOX_RESOLUTIONS_FILE\n')
  process.exit(2)
}
const resolved = new Set<string>()
registerHooks({
  resolve(specifier, context, nextResolve) {
    const result = nextResolve(specifier, context)
    resolved.add(result.url)
    return result
  },
})
process.on('exit', () => writeFileSync(out, JSON.stringify([...resolved])))
