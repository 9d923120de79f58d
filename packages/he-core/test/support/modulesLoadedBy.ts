import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)
const RECORDER = new URL('./recordResolutions.ts', import.meta.url).pathname

/** Options of `modulesLoadedBy`. */
export interface ModulesLoadedByOptions {
  /** Where the child runs, i.e. where the specifier is resolved from. */
  cwd: string
  /** Extra Node flags, e.g. `--conditions=@sealbox/source`. */
  nodeArgs?: string[]
}

/**
 * Imports `specifier` in a fresh Node process and returns the URL of every module that
 * process resolved (the importing script's own imports included). A fresh process, because
 * this one (vitest) has loaded half the repository already.
 */
export async function modulesLoadedBy(specifier: string, options: ModulesLoadedByOptions): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'sealbox-resolutions-'))
  try {
    const file = join(dir, 'resolved.json')
    await run(
      process.execPath,
      [
        ...(options.nodeArgs ?? []),
        '--import',
        RECORDER,
        '--input-type=module',
        '--eval',
        `await import(${JSON.stringify(specifier)})`,
      ],
      { cwd: options.cwd, env: { ...process.env, SEALBOX_RESOLUTIONS_FILE: file } },
    )
    return JSON.parse(await readFile(file, 'utf8')) as string[]
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}
