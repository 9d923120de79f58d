import type pg from 'pg'

/*
 * The PostgreSQL schema of the key store, as ordered migrations. Several server
 * nodes may start at once against an empty database: they take one advisory lock
 * (transaction-scoped) so exactly one applies the migrations and the others see
 * them done.
 */

/** Arbitrary constant: the advisory-lock id sealbox migrations serialize on. */
const MIGRATION_LOCK_ID = 0x5ea1b0c5

const MIGRATIONS: readonly string[] = [
  // 1: tenants (the row every write of a tenant locks) and key sets with their bytes.
  `CREATE TABLE sealbox_tenants (
     tenant     text PRIMARY KEY,
     created_at timestamptz NOT NULL DEFAULT now()
   );
   CREATE TABLE sealbox_key_sets (
     tenant     text        NOT NULL REFERENCES sealbox_tenants (tenant),
     id         text        NOT NULL,
     sha256     char(64)    NOT NULL,
     bytes      bigint      NOT NULL CHECK (bytes >= 0),
     facts      jsonb       NOT NULL,
     created_at timestamptz NOT NULL,
     updated_at timestamptz NOT NULL,
     -- The uploaded envelope. Stored out of line (TOAST); never compressed again: it is
     -- zstd inside already, and pglz would only burn CPU on every read.
     data       bytea       NOT NULL,
     PRIMARY KEY (tenant, id)
   );
   ALTER TABLE sealbox_key_sets ALTER COLUMN data SET STORAGE EXTERNAL;`,
  // 2: kernel forms beside key sets (a search's Galois keys in the kernel's words), by
  // content hash: derived from the upload, dropped with the last key set of that hash.
  // Key sets stored before have none; they gain one on their first store-tier miss.
  `CREATE TABLE sealbox_key_forms (
     tenant     text        NOT NULL REFERENCES sealbox_tenants (tenant),
     key_sha256 char(64)    NOT NULL,
     form       text        NOT NULL,
     bytes      bigint      NOT NULL CHECK (bytes >= 0),
     created_at timestamptz NOT NULL DEFAULT now(),
     -- Magic, SHA-256, then the u32 words: random-looking, so never compressed either.
     data       bytea       NOT NULL,
     PRIMARY KEY (tenant, key_sha256, form)
   );
   ALTER TABLE sealbox_key_forms ALTER COLUMN data SET STORAGE EXTERNAL;`,
]

/** The schema version this code writes and reads. */
export const POSTGRES_SCHEMA_VERSION = MIGRATIONS.length

/**
 * Brings the database to `POSTGRES_SCHEMA_VERSION` (or `upTo`: a test making a store
 * of an older sealbox); refuses a database from a newer sealbox.
 */
export async function migratePostgres(
  client: pg.PoolClient | pg.Client,
  upTo: number = POSTGRES_SCHEMA_VERSION,
): Promise<void> {
  await client.query('BEGIN')
  try {
    // Not the request limits of the connection: nodes starting together wait here for the
    // one that migrates, and a migration may take a while on a large table.
    await client.query("SET LOCAL lock_timeout = '60s'")
    await client.query("SET LOCAL statement_timeout = '600s'")
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_ID])
    await client.query(
      `CREATE TABLE IF NOT EXISTS sealbox_schema_version (
         version    integer PRIMARY KEY,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    )
    const { rows } = await client.query<{ version: number | null }>(
      'SELECT max(version) AS version FROM sealbox_schema_version',
    )
    const current = rows[0]?.version ?? 0
    if (current > MIGRATIONS.length) {
      throw new Error(
        `the key-store database has schema version ${current}; this sealbox knows up to ${MIGRATIONS.length} (upgrade sealbox)`,
      )
    }
    for (let version = current + 1; version <= Math.min(upTo, MIGRATIONS.length); version++) {
      await client.query(MIGRATIONS[version - 1] as string)
      await client.query('INSERT INTO sealbox_schema_version (version) VALUES ($1)', [version])
    }
    await client.query('COMMIT')
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined)
    throw error
  }
}
