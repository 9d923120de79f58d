import { closeSync, fstatSync, fsyncSync, openSync, readSync, renameSync, rmSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { crc32 } from 'node:zlib'
import type { SearchBlock, SearchBlockCache, SearchDiagonalForm } from '@sealbox/he-core/search'

/*
 * The processed database in a file under DATA_DIR, so a restart reads it instead of
 * encoding every diagonal again. Layout (little-endian):
 *   "SBXPDB02" · u32 n · n bytes of header JSON (what the file is for)
 *   per block: u32 block index · u32 plaintexts · u32 payload bytes · u32 CRC-32 of the payload
 *              · payload: per plaintext, u32 length · its bytes in the file's form: SEAL's
 *                uncompressed save (`seal`), or the key-switching kernel's u32 residues (`kernel`)
 *   "SBXPDEND"
 * Every block is checked against its checksum before it is used; a file for another
 * database, config or parameters is never read past its header.
 *
 * Staleness and damage are told apart. What a file is for (the database's content hash,
 * config id, parameters, form) is its header: another database never gets past it. The
 * block checksum only has to catch damage (a torn write, a bad sector, a truncated copy):
 * CRC-32 finds every burst of up to 32 bits and misses random damage with odds of 2⁻³²,
 * and the kernel form's residues are then checked below their primes (a random word
 * passes with odds ≤ 1/16). Format 01 used SHA-256: at 0.5 GB/s on this CPU it was a
 * third of a million-row restart (8 of 31 s for 3.9 GiB), and a content-keyed file under
 * the server's own DATA_DIR has no adversary a cryptographic hash would stop (whoever
 * writes there can replace the database too). A 01 file's header differs: it is
 * rebuilt once. A file is written
 * under a `.writing` name (created exclusively: one writer per node) and renamed when
 * complete, so a crash leaves no file that looks whole.
 */

const MAGIC = Buffer.from('SBXPDB02', 'latin1')
const TRAILER = Buffer.from('SBXPDEND', 'latin1')
const FORMAT_VERSION = 2
const RECORD_HEADER_BYTES = 12 + 4

/** What a cache file is for: a different value anywhere means a different file. */
export interface ProcessedDatabaseKey {
  /** SHA-256 of the database (its file's bytes, or a synthetic database's description). */
  contentHash: string
  configId: string
  /** The encryption parameters' fingerprint. */
  fingerprint: string
  nttForm: boolean
  /** The form of the diagonals: SEAL's saves, or the key-switching kernel's u32 residues (half the bytes). */
  form: SearchDiagonalForm
  /** Block count of the config. */
  blocks: number
  /** An upper bound of one block's payload (diagonals × (plaintext bytes + SEAL's header)). */
  maxBlockBytes: number
}

/** How the cache ended up serving this warm-up (logged and reported). */
export type ProcessedCacheOutcome =
  /** Every block was read from the file. */
  | 'hit'
  /** No file: processed and written. */
  | 'written'
  /** A file was there but damaged (a checksum) or unusable: processed again and rewritten. */
  | 'rebuilt'
  /** Another worker of this node was writing it: processed without writing. */
  | 'busy'
  /** Writing failed (disk full, permissions): processed, nothing kept. */
  | 'unwritable'

export interface ProcessedCacheReport {
  outcome: ProcessedCacheOutcome
  file: string
  /** Why a file was not used as it was (damaged block, header of another database…). */
  reason?: string
}

type Mode = { type: 'read'; fd: number; position: number; dataStart: number; lastRecord: number } | { type: 'process' }

/** File name of a key: content hash prefix, config id, form. */
export function processedCacheFileName(
  key: Pick<ProcessedDatabaseKey, 'contentHash' | 'configId' | 'nttForm' | 'form'>,
): string {
  const form = key.form === 'kernel' ? 'u32' : key.nttForm ? 'ntt' : 'coeff'
  return `${key.contentHash.slice(0, 32)}-${key.configId}-${form}.sbxpdb`
}

/** Removes `.writing` files left by a process that died while writing (call before any worker starts). */
export function removeAbandonedCacheWrites(dir: string, names: readonly string[]): void {
  for (const name of names) if (name.endsWith('.writing')) rmSync(join(dir, name), { force: true })
}

function headerOf(key: ProcessedDatabaseKey): Buffer {
  const json = Buffer.from(
    JSON.stringify({
      v: FORMAT_VERSION,
      contentHash: key.contentHash,
      configId: key.configId,
      fingerprint: key.fingerprint,
      nttForm: key.nttForm,
      form: key.form,
      blocks: key.blocks,
    }),
  )
  const length = Buffer.alloc(4)
  length.writeUInt32LE(json.byteLength)
  return Buffer.concat([MAGIC, length, json])
}

function readExactly(fd: number, length: number, position: number, into?: Buffer): Buffer | undefined {
  const out = into ? into.subarray(0, length) : Buffer.allocUnsafe(length)
  let done = 0
  while (done < length) {
    const read = readSync(fd, out, done, length - done, position + done)
    if (read === 0) return undefined
    done += read
  }
  return out
}

/**
 * One warm-up's use of the cache file of `key` in `dir`: `read` serves checked blocks
 * from an existing file; when there is none, or it turns out damaged, the blocks
 * processing hands to `write` go to a new file (blocks already read and checked are
 * copied over). Call `finish()` after processing, `abort()` when it failed.
 */
export class ProcessedDatabaseCache implements SearchBlockCache {
  readonly file: string
  readonly #key: ProcessedDatabaseKey
  readonly #header: Buffer
  #mode: Mode = { type: 'process' }
  #writer: number | undefined
  #writerPosition = 0
  #outcome: ProcessedCacheOutcome = 'written'
  #reason: string | undefined
  /** One block's payload, reused block after block (a million rows: 245 blocks of 16 MiB). */
  #scratch: Buffer | undefined

  constructor(dir: string, key: ProcessedDatabaseKey) {
    this.#key = key
    this.file = join(dir, processedCacheFileName(key))
    this.#header = headerOf(key)
    let fd: number | undefined
    try {
      fd = openSync(this.file, 'r')
    } catch {
      fd = undefined
    }
    const found = fd === undefined ? undefined : readExactly(fd, this.#header.byteLength, 0)
    if (fd !== undefined && found?.equals(this.#header)) {
      this.#mode = { type: 'read', fd, position: found.byteLength, dataStart: found.byteLength, lastRecord: -1 }
      this.#outcome = 'hit'
      return
    }
    if (fd !== undefined) {
      closeSync(fd)
      this.#outcome = 'rebuilt'
      this.#reason = 'its header names another database, config or format'
    }
    // Claimed now, before processing: a second worker of this node starting at the same time finds it taken.
    this.#openWriter()
  }

  read(block: SearchBlock): readonly Uint8Array[] | undefined {
    const mode = this.#mode
    if (mode.type !== 'read') return undefined
    const head = readExactly(mode.fd, RECORD_HEADER_BYTES, mode.position)
    const index = head?.readUInt32LE(0)
    const count = head?.readUInt32LE(4) ?? 0
    const length = head?.readUInt32LE(8) ?? 0
    if (!head || index !== block.index || count !== block.diagonals || length > this.#key.maxBlockBytes) {
      this.#damaged(`block ${block.index}: its record header is ${head ? 'wrong' : 'missing (file truncated)'}`)
      return undefined
    }
    if ((this.#scratch?.byteLength ?? 0) < length) {
      // 4-byte aligned from its start (not a pooled slice): the kernel's residues are read as u32 views.
      this.#scratch = Buffer.from(new ArrayBuffer(length))
    }
    const payload = readExactly(mode.fd, length, mode.position + RECORD_HEADER_BYTES, this.#scratch)
    if (!payload || crc32(payload) !== head.readUInt32LE(12)) {
      this.#damaged(`block ${block.index}: ${payload ? 'checksum mismatch' : 'file truncated'}`)
      return undefined
    }
    const saves: Uint8Array[] = []
    let offset = 0
    for (let i = 0; i < count; i++) {
      const size = offset + 4 <= payload.byteLength ? payload.readUInt32LE(offset) : Number.POSITIVE_INFINITY
      if (offset + 4 + size > payload.byteLength) {
        this.#damaged(`block ${block.index}: plaintext ${i} overruns its record`)
        return undefined
      }
      // A plain Uint8Array view: node-seal's load refuses a Buffer ("expected Uint8Array").
      saves.push(new Uint8Array(payload.buffer, payload.byteOffset + offset + 4, size))
      offset += 4 + size
    }
    mode.lastRecord = mode.position
    mode.position += RECORD_HEADER_BYTES + length
    return saves
  }

  write(block: SearchBlock, saves: readonly Uint8Array[], fromCache: boolean): void {
    const mode = this.#mode
    if (mode.type === 'read') {
      if (fromCache) return
      // Checksums held but SEAL (or the form check) refused the block: rebuild from the blocks before it.
      mode.position = mode.lastRecord
      this.#damaged(`block ${block.index}: SEAL refused its plaintexts`)
    }
    if (!this.#openWriter()) return
    const lengths = Buffer.alloc(4 * saves.length)
    const payloadLength = saves.reduce((sum, save) => sum + 4 + save.byteLength, 0)
    let checksum = 0
    saves.forEach((save, i) => {
      lengths.writeUInt32LE(save.byteLength, 4 * i)
      checksum = crc32(lengths.subarray(4 * i, 4 * i + 4), checksum)
      checksum = crc32(save, checksum)
    })
    const head = Buffer.alloc(RECORD_HEADER_BYTES)
    head.writeUInt32LE(block.index, 0)
    head.writeUInt32LE(saves.length, 4)
    head.writeUInt32LE(payloadLength, 8)
    head.writeUInt32LE(checksum, 12)
    this.#append(head)
    saves.forEach((save, i) => {
      this.#append(lengths.subarray(4 * i, 4 * i + 4))
      this.#append(save)
    })
  }

  /** Completes the file (renamed into place when written) and says how the cache served. */
  finish(): ProcessedCacheReport {
    if (this.#mode.type === 'read') {
      const mode = this.#mode
      const trailer = readExactly(mode.fd, TRAILER.byteLength, mode.position)
      const size = fstatSync(mode.fd).size
      closeSync(mode.fd)
      this.#mode = { type: 'process' }
      if (!trailer?.equals(TRAILER) || size !== mode.position + TRAILER.byteLength) {
        // Every block was checked and served; only the end is wrong: drop the file, the next start rewrites it.
        rmSync(this.file, { force: true })
        return {
          outcome: 'rebuilt',
          file: this.file,
          reason: 'its end is damaged; removed, rewritten at the next start',
        }
      }
    }
    if (this.#writer !== undefined) {
      this.#append(TRAILER)
    }
    if (this.#writer !== undefined) {
      fsyncSync(this.#writer)
      closeSync(this.#writer)
      this.#writer = undefined
      if (this.#outcome !== 'unwritable') {
        try {
          renameSync(this.#writingPath(), this.file)
        } catch (error) {
          this.#outcome = 'unwritable'
          this.#reason = (error as Error).message
          rmSync(this.#writingPath(), { force: true })
        }
      }
    }
    return { outcome: this.#outcome, file: this.file, ...(this.#reason ? { reason: this.#reason } : {}) }
  }

  /** Processing failed: nothing half-written is left. */
  abort(): void {
    if (this.#mode.type === 'read') closeSync(this.#mode.fd)
    this.#mode = { type: 'process' }
    if (this.#writer !== undefined) {
      closeSync(this.#writer)
      this.#writer = undefined
      rmSync(this.#writingPath(), { force: true })
    }
  }

  #writingPath(): string {
    return `${this.file}.writing`
  }

  #damaged(reason: string): void {
    const mode = this.#mode
    if (mode.type !== 'read') return
    this.#outcome = 'rebuilt'
    this.#reason = reason
    this.#mode = { type: 'process' }
    // The blocks before this one were checked: they move to the new file as they are.
    if (this.#openWriter()) {
      let position = mode.dataStart
      while (position < mode.position) {
        const chunk = readExactly(mode.fd, Math.min(1 << 22, mode.position - position), position)
        if (!chunk) break
        this.#append(chunk)
        position += chunk.byteLength
      }
    }
    closeSync(mode.fd)
  }

  /** Opens the `.writing` file once; false when another worker writes it or the disk refuses. */
  #openWriter(): boolean {
    if (this.#writer !== undefined) return true
    if (this.#outcome === 'busy' || this.#outcome === 'unwritable') return false
    try {
      this.#writer = openSync(this.#writingPath(), 'wx')
      this.#writerPosition = 0
      this.#append(this.#header)
      return this.#writer !== undefined
    } catch (error) {
      this.#outcome = (error as NodeJS.ErrnoException).code === 'EEXIST' ? 'busy' : 'unwritable'
      this.#reason = (error as Error).message
      return false
    }
  }

  #append(bytes: Uint8Array): void {
    const fd = this.#writer
    if (fd === undefined) return
    try {
      let done = 0
      while (done < bytes.byteLength) {
        done += writeSync(fd, bytes, done, bytes.byteLength - done, this.#writerPosition + done)
      }
      this.#writerPosition += bytes.byteLength
    } catch (error) {
      // Disk full or gone: processing goes on, nothing is kept.
      this.#outcome = 'unwritable'
      this.#reason = (error as Error).message
      closeSync(fd)
      this.#writer = undefined
      rmSync(this.#writingPath(), { force: true })
    }
  }
}
