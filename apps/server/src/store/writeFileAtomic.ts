import { randomBytes } from 'node:crypto'
import { open, rename, unlink } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'

/** Options for `writeFileAtomic`. */
export interface WriteFileAtomicOptions {
  mode?: number
}

/**
 * Replaces `path` with `data` so that after a crash at any point the file holds
 * either the old bytes or the new ones, never a mix: write a temporary file in the
 * same directory, fsync it, rename it over the target, then fsync the directory so
 * the rename itself is durable.
 */
export async function writeFileAtomic(
  path: string,
  data: Uint8Array,
  options: WriteFileAtomicOptions = {},
): Promise<void> {
  const dir = dirname(path)
  const temp = join(dir, `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`)
  const handle = await open(temp, 'wx', options.mode ?? 0o644)
  try {
    let offset = 0
    while (offset < data.length) {
      const { bytesWritten } = await handle.write(data, offset, data.length - offset)
      offset += bytesWritten
    }
    await handle.sync()
  } catch (error) {
    await handle.close().catch(() => undefined)
    await unlink(temp).catch(() => undefined)
    throw error
  }
  await handle.close()
  try {
    await rename(temp, path)
  } catch (error) {
    await unlink(temp).catch(() => undefined)
    throw error
  }
  await syncDirectory(dir)
}

/** fsyncs a directory (makes a rename or unlink in it durable). */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}
