import { open, unlink } from 'node:fs/promises'

/** The file-system errors that mean "no space left". */
export function isDiskFull(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code
  return code === 'ENOSPC' || code === 'EDQUOT'
}

/**
 * A few blocks of the store's disk kept aside in one file, so that a deletion can still
 * write its (small) new index when the disk is full: every write here is a new file
 * renamed into place, which needs free blocks, and without them a tenant could never
 * delete a key set to free space. Deleting the blob first would free it, but a crash in
 * between would leave an index pointing at nothing; giving up the spare keeps the order
 * (index first, then the blob) and so the crash guarantees. The spare is made again
 * once the deletion has freed its blob; making it is best effort and never throws.
 */
export class SpareSpace {
  readonly path: string
  readonly #bytes: number

  constructor(path: string, bytes: number) {
    this.path = path
    this.#bytes = bytes
  }

  /** Creates the spare when it is missing (on a full disk it stays missing until space frees). */
  async ensure(): Promise<void> {
    let handle: Awaited<ReturnType<typeof open>> | undefined
    try {
      handle = await open(this.path, 'wx', 0o600)
    } catch {
      return
    }
    try {
      // Written, not truncated to size: a sparse file would hold no blocks to give back.
      const chunk = new Uint8Array(Math.min(this.#bytes, 64 * 1024))
      for (let written = 0; written < this.#bytes; ) {
        const { bytesWritten } = await handle.write(chunk, 0, Math.min(chunk.length, this.#bytes - written))
        written += bytesWritten
      }
      await handle.sync()
      await handle.close()
    } catch {
      await handle.close().catch(() => undefined)
      await unlink(this.path).catch(() => undefined)
    }
  }

  /** Gives the spare's blocks back to the file system; false when there was none. */
  async release(): Promise<boolean> {
    try {
      await unlink(this.path)
      return true
    } catch {
      return false
    }
  }
}
