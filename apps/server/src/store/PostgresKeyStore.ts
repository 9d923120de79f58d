import { createHash } from 'node:crypto'
import { HeError } from '@sealbox/he-core'
import pg from 'pg'
import { postgresConnection } from '../config/keyStoreSetting.ts'
import { TENANT_ID } from '../config/ServerConfig.ts'
import { assertStoreName } from './assertStoreName.ts'
import { checkKeyStoreQuota } from './checkKeyStoreQuota.ts'
import {
  type KernelFormWrite,
  type KeyBlobRef,
  type KeySetFacts,
  KeySetFactsSchema,
  type KeySetPutResult,
  type KeySetRecord,
  KeySetRecordSchema,
  type KeyStore,
  type KeyStoreLimits,
  type StoreLog,
} from './KeyStore.ts'
import { assertKernelFormName, sealKernelFormBlob } from './kernelFormBlob.ts'
import { readKernelFormBlob, readKeyBlob } from './PostgresKeyBlobReader.ts'
import { postgresError } from './postgresErrors.ts'
import { dropUnusedKernelForms, keepKernelFormsWithin, STORED_BYTES, upsertKernelForm } from './postgresKernelForms.ts'
import { migratePostgres } from './postgresSchema.ts'
import { POSTGRES_TIMEOUT_DEFAULTS, type PostgresTimeouts, poolTimeoutOptions } from './postgresTimeouts.ts'

/**
 * PostgreSQL's hard limit for one bytea value is 1 GiB including its 4-byte header;
 * keep clear of it so a refusal is ours (LIMIT_EXCEEDED), not a driver error.
 */
export const POSTGRES_MAX_KEYSET_BYTES = 2 ** 30 - 2 ** 20

/** Where workers find a PostgreSQL store, and the limits their readers apply (plain data). */
export type PostgresKeyStoreLocation = { type: 'postgres'; url: string; timeouts: PostgresTimeouts }

/** Options of `PostgresKeyStore.open`. */
export interface PostgresKeyStoreOptions {
  /** Connections of this server process's pool (workers open their own readers). */
  maxConnections?: number
  /** Largest key set accepted (defaults to PostgreSQL's bytea limit, minus headroom). */
  maxKeySetBytes?: number
  /** Statement, lock and pool-acquire limits (defaults: POSTGRES_TIMEOUT_DEFAULTS). */
  timeouts?: Partial<PostgresTimeouts>
  /** Where database failures are logged (the client only sees STORE_UNAVAILABLE). */
  log?: StoreLog
}

const SHA256 = /^[0-9a-f]{64}$/

interface Row {
  tenant: string
  id: string
  sha256: string
  bytes: number
  facts: unknown
  created_at: Date
  updated_at: Date
}

const RECORD_COLUMNS = 'tenant, id, sha256, bytes::float8 AS bytes, facts, created_at, updated_at'

/**
 * The networked key store: every server node of a deployment opens the same
 * PostgreSQL database, so a key set uploaded through one node is usable on all.
 * Same contract as the embedded FileKeyStore: tenants only see their own key sets;
 * quota and key-set limits are checked in the same transaction as the write, under a
 * lock on the tenant's row, so two nodes writing for one tenant at once cannot both
 * pass the check; a replace is one upsert (readers see the old or the new version,
 * never a mix, and a crash mid-upload leaves the old one); timestamps come from the
 * database clock, one clock for every node.
 */
export class PostgresKeyStore implements KeyStore {
  readonly location: PostgresKeyStoreLocation
  readonly #pool: pg.Pool
  readonly #limits: KeyStoreLimits
  readonly #maxKeySetBytes: number
  readonly #timeouts: PostgresTimeouts
  readonly #log: StoreLog | undefined
  readonly #writes = new Set<Promise<unknown>>()

  private constructor(
    url: string,
    pool: pg.Pool,
    limits: KeyStoreLimits,
    options: { maxKeySetBytes: number; timeouts: PostgresTimeouts; log: StoreLog | undefined },
  ) {
    this.location = { type: 'postgres', url, timeouts: options.timeouts }
    this.#pool = pool
    this.#limits = limits
    this.#maxKeySetBytes = options.maxKeySetBytes
    this.#timeouts = options.timeouts
    this.#log = options.log
  }

  /** Connects, creates or upgrades the schema, and returns the store. */
  static async open(
    url: string,
    limits: KeyStoreLimits,
    options: PostgresKeyStoreOptions = {},
  ): Promise<PostgresKeyStore> {
    const timeouts = { ...POSTGRES_TIMEOUT_DEFAULTS, ...options.timeouts }
    const pool = new pg.Pool({
      ...postgresConnection(url),
      max: options.maxConnections ?? 8,
      idleTimeoutMillis: 30_000,
      allowExitOnIdle: true,
      // Every statement, lock wait and connection wait is bounded: a stuck row or a
      // busy pool turns into STORE_UNAVAILABLE for the caller, never a hang or a 500.
      ...poolTimeoutOptions(timeouts),
    })
    // Idle connections dropped by a database restart are replaced on the next query.
    pool.on('error', () => undefined)
    try {
      const client = await pool.connect()
      try {
        await migratePostgres(client)
      } finally {
        client.release()
      }
    } catch (error) {
      await pool.end().catch(() => undefined)
      throw postgresError(error, 'open the key-store database', timeouts)
    }
    const maxKeySetBytes = Math.min(options.maxKeySetBytes ?? POSTGRES_MAX_KEYSET_BYTES, POSTGRES_MAX_KEYSET_BYTES)
    return new PostgresKeyStore(url, pool, limits, { maxKeySetBytes, timeouts, log: options.log })
  }

  async put(
    tenant: string,
    id: string,
    facts: KeySetFacts,
    bytes: Uint8Array,
    knownSha256?: string,
    kernelForm?: KernelFormWrite,
  ): Promise<KeySetPutResult> {
    assertStoreName(tenant, 'tenant')
    assertStoreName(id, 'key-set id')
    if (kernelForm) assertKernelFormName(kernelForm.form)
    if (bytes.length > this.#maxKeySetBytes) {
      throw new HeError(
        'LIMIT_EXCEEDED',
        `a key set of ${bytes.length} bytes is larger than this store takes (${this.#maxKeySetBytes} bytes)`,
        { details: { limit: this.#maxKeySetBytes } },
      )
    }
    const sha256 = knownSha256 ?? createHash('sha256').update(bytes).digest('hex')
    if (!SHA256.test(sha256)) throw new HeError('INTERNAL', 'bad key-set digest')
    const checkedFacts = KeySetFactsSchema.parse(facts)
    return this.#tracked(
      this.#transaction(`store key set "${id}"`, (client) =>
        this.#put(client, tenant, id, checkedFacts, bytes, sha256, kernelForm),
      ),
    )
  }

  async putKernelForm(tenant: string, sha256: string, kernelForm: KernelFormWrite): Promise<boolean> {
    assertStoreName(tenant, 'tenant')
    if (!SHA256.test(sha256)) throw new HeError('INTERNAL', 'bad key-set digest')
    assertKernelFormName(kernelForm.form)
    const blob = sealKernelFormBlob(kernelForm.bytes)
    return this.#tracked(
      this.#transaction(`store a kernel form of tenant "${tenant}"`, async (client) => {
        await client.query('SELECT 1 FROM sealbox_tenants WHERE tenant = $1 FOR UPDATE', [tenant])
        const { rows } = await client.query<{ used: number; present: boolean; replaced: number }>(
          `SELECT ${STORED_BYTES} AS used,
                  EXISTS (SELECT 1 FROM sealbox_key_sets WHERE tenant = $1 AND sha256 = $2) AS present,
                  coalesce((SELECT bytes FROM sealbox_key_forms
                             WHERE tenant = $1 AND key_sha256 = $2 AND form = $3), 0)::float8 AS replaced`,
          [tenant, sha256, kernelForm.form],
        )
        const state = rows[0] as { used: number; present: boolean; replaced: number }
        if (!state.present || state.used - state.replaced + blob.byteLength > this.#limits.quotaBytes) return false
        await upsertKernelForm(client, tenant, sha256, kernelForm.form, blob)
        return true
      }),
    )
  }

  async #put(
    client: pg.PoolClient,
    tenant: string,
    id: string,
    facts: KeySetFacts,
    bytes: Uint8Array,
    sha256: string,
    kernelForm: KernelFormWrite | undefined,
  ): Promise<KeySetPutResult> {
    // One writer per tenant across every node: the quota check and the write below see
    // the same key sets.
    await client.query('INSERT INTO sealbox_tenants (tenant) VALUES ($1) ON CONFLICT (tenant) DO NOTHING', [tenant])
    await client.query('SELECT 1 FROM sealbox_tenants WHERE tenant = $1 FOR UPDATE', [tenant])
    const { rows } = await client.query<{
      used: number
      count: number
      previous: number | null
      previous_sha256: string | null
    }>(
      `SELECT coalesce(sum(bytes), 0)::float8 AS used, count(*)::int AS count,
              (SELECT bytes::float8 FROM sealbox_key_sets WHERE tenant = $1 AND id = $2) AS previous,
              (SELECT sha256 FROM sealbox_key_sets WHERE tenant = $1 AND id = $2) AS previous_sha256
         FROM sealbox_key_sets WHERE tenant = $1`,
      [tenant, id],
    )
    // The quota is checked on uploads alone: kernel forms never refuse one (`keepKernelForms`).
    const usage = rows[0] as { used: number; count: number; previous: number | null; previous_sha256: string | null }
    checkKeyStoreQuota(
      this.#limits,
      tenant,
      { usedBytes: usage.used - (usage.previous ?? 0), keySets: usage.count, replaces: usage.previous !== null },
      bytes.length,
    )
    const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    const written = await client.query<Row>(
      `INSERT INTO sealbox_key_sets (tenant, id, sha256, bytes, facts, created_at, updated_at, data)
            VALUES ($1, $2, $3, $4, $5, now(), now(), $6)
       ON CONFLICT (tenant, id) DO UPDATE
             SET sha256 = excluded.sha256, bytes = excluded.bytes, facts = excluded.facts,
                 updated_at = excluded.updated_at, data = excluded.data
       RETURNING ${RECORD_COLUMNS}`,
      [tenant, id, sha256, bytes.length, JSON.stringify(facts), data],
    )
    await dropUnusedKernelForms(client, tenant, usage.previous_sha256)
    const room = this.#limits.quotaBytes - (usage.used - (usage.previous ?? 0) + bytes.length)
    const kernelFormKept = await keepKernelFormsWithin(client, { tenant, sha256, kernelForm, room })
    // `previous` was read under the tenant's lock, so of concurrent writes of a new id
    // exactly one sees none and reports it created.
    return { record: toRecord(written.rows[0] as Row), created: usage.previous === null, kernelFormKept }
  }

  async get(tenant: string, id: string): Promise<KeySetRecord | undefined> {
    assertStoreName(tenant, 'tenant')
    if (!TENANT_ID.test(id)) return undefined
    const rows = await this.#query<Row>(
      `read key set "${id}"`,
      `SELECT ${RECORD_COLUMNS} FROM sealbox_key_sets WHERE tenant = $1 AND id = $2`,
      [tenant, id],
    )
    return rows[0] ? toRecord(rows[0]) : undefined
  }

  async list(tenant: string): Promise<KeySetRecord[]> {
    assertStoreName(tenant, 'tenant')
    const rows = await this.#query<Row>(
      'list key sets',
      `SELECT ${RECORD_COLUMNS} FROM sealbox_key_sets WHERE tenant = $1`,
      [tenant],
    )
    // Sorted like the file store (the database's collation may differ from JavaScript's).
    return rows.map(toRecord).sort((a, b) => a.id.localeCompare(b.id))
  }

  async delete(tenant: string, id: string): Promise<boolean> {
    assertStoreName(tenant, 'tenant')
    if (!TENANT_ID.test(id)) return false
    return this.#tracked(
      this.#transaction(`delete key set "${id}"`, async (client) => {
        const { rows } = await client.query<{ sha256: string }>(
          'DELETE FROM sealbox_key_sets WHERE tenant = $1 AND id = $2 RETURNING sha256',
          [tenant, id],
        )
        await dropUnusedKernelForms(client, tenant, rows[0]?.sha256 ?? null)
        return rows.length > 0
      }),
    )
  }

  async usage(tenant: string): Promise<number> {
    assertStoreName(tenant, 'tenant')
    const rows = await this.#query<{ used: number }>('read the tenant usage', `SELECT ${STORED_BYTES} AS used`, [
      tenant,
    ])
    return rows[0]?.used ?? 0
  }

  async read(ref: KeyBlobRef): Promise<Uint8Array> {
    try {
      return await readKeyBlob(this.#pool, ref, this.#timeouts)
    } catch (error) {
      throw this.#failed(error, `read key set "${ref.id}"`)
    }
  }

  async readKernelForm(ref: KeyBlobRef, form: string): Promise<Uint8Array | undefined> {
    try {
      return await readKernelFormBlob(this.#pool, ref, form, this.#timeouts)
    } catch (error) {
      throw this.#failed(error, `read the kernel form of key set "${ref.id}"`)
    }
  }

  async flush(): Promise<void> {
    // A write is durable when its transaction commits; wait for those in flight.
    await Promise.allSettled([...this.#writes])
  }

  /** Waits for writes in flight, then closes the pool. */
  async close(): Promise<void> {
    await this.flush()
    await this.#pool.end()
  }

  #tracked<T>(write: Promise<T>): Promise<T> {
    this.#writes.add(write)
    const forget = () => this.#writes.delete(write)
    write.then(forget, forget)
    return write
  }

  async #query<R extends pg.QueryResultRow>(action: string, text: string, values: unknown[]): Promise<R[]> {
    try {
      return (await this.#pool.query<R>(text, values)).rows
    } catch (error) {
      throw this.#failed(error, action)
    }
  }

  /** The caller's HeError for a failure; the database's own error goes to the log. */
  #failed(error: unknown, action: string): HeError {
    const failure = postgresError(error, action, this.#timeouts)
    if (failure.code === 'STORE_UNAVAILABLE' && failure !== error) {
      const reason = failure.details?.reason
      const level = reason === 'failed' ? 'error' : 'warn'
      this.#log?.[level]({ err: error, action, reason }, `key store (PostgreSQL): ${failure.message}`)
    }
    return failure
  }

  async #transaction<T>(action: string, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient
    try {
      client = await this.#pool.connect()
    } catch (error) {
      throw this.#failed(error, action)
    }
    // A checked-out client reports a dropped connection as an 'error' event (the pool
    // listens only while it is idle); the query in flight rejects as well, handled below.
    const onError = () => undefined
    client.on('error', onError)
    let broken: unknown
    try {
      await client.query('BEGIN')
      const result = await fn(client)
      await client.query('COMMIT')
      return result
    } catch (error) {
      try {
        await client.query('ROLLBACK')
      } catch (rollbackError) {
        broken = rollbackError
      }
      throw this.#failed(error, action)
    } finally {
      client.off('error', onError)
      // A connection that failed to roll back is destroyed, not reused.
      client.release(broken instanceof Error ? broken : undefined)
    }
  }
}

function toRecord(row: Row): KeySetRecord {
  const facts = KeySetFactsSchema.safeParse(row.facts)
  if (!facts.success) {
    // Never hand out a key set whose stored facts do not validate.
    throw new HeError('INTERNAL', `stored facts of key set "${row.id}" are unreadable`, { cause: facts.error })
  }
  return KeySetRecordSchema.parse({
    ...facts.data,
    tenant: row.tenant,
    id: row.id,
    bytes: row.bytes,
    sha256: row.sha256,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  })
}
