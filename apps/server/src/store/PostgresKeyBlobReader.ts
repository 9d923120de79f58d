import { HeError } from '@sealbox/he-core'
import pg from 'pg'
import { postgresConnection } from '../config/keyStoreSetting.ts'
import { assertStoreName } from './assertStoreName.ts'
import type { KeyBlobReader, KeyBlobRef } from './KeyStore.ts'
import { assertKernelFormName } from './kernelFormBlob.ts'
import { postgresError } from './postgresErrors.ts'
import { POSTGRES_TIMEOUT_DEFAULTS, type PostgresTimeouts, poolTimeoutOptions } from './postgresTimeouts.ts'

const SHA256 = /^[0-9a-f]{64}$/

/*
 * Key bytes travel as base64 text: node-postgres decodes every result field as a
 * UTF-8 string, so PostgreSQL's binary result format cannot carry bytea through it,
 * and its default hex text is twice the bytes. Measured here for a 2 MiB key set:
 * hex 51 ms, base64 27 ms (median of 15, busy 2-core machine).
 */

/**
 * Reads the bytes of one key-set version with a pool's connection. A key set replaced
 * or deleted since the reference was taken is NOT_FOUND, as in the file store.
 */
export async function readKeyBlob(pool: pg.Pool, ref: KeyBlobRef, timeouts?: PostgresTimeouts): Promise<Uint8Array> {
  assertStoreName(ref.tenant, 'tenant')
  if (!SHA256.test(ref.sha256)) throw new HeError('INVALID_INPUT', 'bad key-set version')
  let rows: Array<{ data: string }>
  try {
    const result = await pool.query<{ data: string }>(
      "SELECT encode(data, 'base64') AS data FROM sealbox_key_sets WHERE tenant = $1 AND id = $2 AND sha256 = $3",
      [ref.tenant, ref.id, ref.sha256],
    )
    rows = result.rows
  } catch (error) {
    throw postgresError(error, `read key set "${ref.id}"`, timeouts)
  }
  const text = rows[0]?.data
  if (text === undefined) {
    throw new HeError('NOT_FOUND', `key set "${ref.id}" was deleted or replaced while this request waited`)
  }
  // PostgreSQL wraps base64 every 76 characters; Node's decoder skips the newlines.
  const data = Buffer.from(text, 'base64')
  if (data.byteLength !== ref.bytes) {
    throw new HeError('INTERNAL', `key set "${ref.id}" read back ${data.byteLength} bytes, ${ref.bytes} were stored`)
  }
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
}

/**
 * The stored blob of a kernel form of one key-set version (`sealKernelFormBlob`), or
 * undefined when the store keeps none (a key set stored before kernel forms were kept).
 */
export async function readKernelFormBlob(
  pool: pg.Pool,
  ref: KeyBlobRef,
  form: string,
  timeouts?: PostgresTimeouts,
): Promise<Uint8Array | undefined> {
  assertStoreName(ref.tenant, 'tenant')
  if (!SHA256.test(ref.sha256)) throw new HeError('INVALID_INPUT', 'bad key-set version')
  assertKernelFormName(form)
  let rows: Array<{ data: string }>
  try {
    const result = await pool.query<{ data: string }>(
      "SELECT encode(data, 'base64') AS data FROM sealbox_key_forms WHERE tenant = $1 AND key_sha256 = $2 AND form = $3",
      [ref.tenant, ref.sha256, form],
    )
    rows = result.rows
  } catch (error) {
    throw postgresError(error, `read the kernel form of key set "${ref.id}"`, timeouts)
  }
  const text = rows[0]?.data
  if (text === undefined) return undefined
  const data = Buffer.from(text, 'base64')
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
}

/** Options of a reader's own connection pool. */
export interface PostgresReaderOptions {
  /** Connections of this reader (one worker reads one key set at a time). */
  maxConnections?: number
  /** The same limits as the server's store (defaults: POSTGRES_TIMEOUT_DEFAULTS). */
  timeouts?: Partial<PostgresTimeouts>
}

/**
 * Reads key bytes straight from PostgreSQL. Each worker thread or child process opens
 * one, so key bytes go from the database to the thread that deserializes them, not
 * through the main event loop.
 */
export class PostgresKeyBlobReader implements KeyBlobReader {
  readonly #pool: pg.Pool
  readonly #timeouts: PostgresTimeouts

  constructor(url: string, options: PostgresReaderOptions = {}) {
    this.#timeouts = { ...POSTGRES_TIMEOUT_DEFAULTS, ...options.timeouts }
    this.#pool = new pg.Pool({
      ...postgresConnection(url),
      max: options.maxConnections ?? 1,
      idleTimeoutMillis: 30_000,
      // An idle reader must not keep a worker (or a test) alive.
      allowExitOnIdle: true,
      ...poolTimeoutOptions(this.#timeouts),
    })
    // A connection dropped while idle (database restart) is discarded by the pool; the
    // next read reconnects. Without a listener the 'error' event would crash the worker.
    this.#pool.on('error', () => undefined)
  }

  read(ref: KeyBlobRef): Promise<Uint8Array> {
    return readKeyBlob(this.#pool, ref, this.#timeouts)
  }

  readKernelForm(ref: KeyBlobRef, form: string): Promise<Uint8Array | undefined> {
    return readKernelFormBlob(this.#pool, ref, form, this.#timeouts)
  }

  /** Closes the pool's connections. */
  close(): Promise<void> {
    return this.#pool.end()
  }
}
