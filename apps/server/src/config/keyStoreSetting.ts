/*
 * KEY_STORE as an operator writes it: `file`, a postgres:// URL, or `postgres` (the
 * connection from libpq's PG* variables: PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE).
 * With no KEY_STORE but PGHOST or PGDATABASE set, the node uses PostgreSQL and says so:
 * a node that silently kept its keys in local files while its peers shared a database
 * would look healthy and serve other tenants' 404s.
 */

/** Variables whose presence, without KEY_STORE, means the operator meant PostgreSQL. */
const PG_SELECTORS = ['PGHOST', 'PGDATABASE', 'PGSERVICE'] as const

/** The environment with KEY_STORE decided, and the line to log when it was inferred. */
export function inferKeyStore(env: Record<string, string | undefined>): {
  env: Record<string, string | undefined>
  note?: string
} {
  if (env.KEY_STORE !== undefined && env.KEY_STORE !== '') return { env }
  const given = PG_SELECTORS.filter((name) => env[name] !== undefined && env[name] !== '')
  if (given.length === 0) return { env }
  return {
    env: { ...env, KEY_STORE: 'postgres' },
    note: `KEY_STORE is not set but ${given.join(' and ')} ${given.length === 1 ? 'is' : 'are'}: using PostgreSQL from the PG* variables (${describeKeyStore('postgres', env)}); set KEY_STORE=file for the file store`,
  }
}

/** The pg connection options of a KEY_STORE value (`postgres` alone: libpq's PG* variables). */
export function postgresConnection(keyStore: string): { connectionString?: string } {
  return keyStore === 'postgres' ? {} : { connectionString: keyStore }
}

/** A KEY_STORE value for logs and the start-up line: the kind and address, never the password. */
export function describeKeyStore(keyStore: string, env: Record<string, string | undefined> = process.env): string {
  if (keyStore === 'file') return 'file (DATA_DIR/keysets)'
  if (keyStore === 'postgres') {
    const host = env.PGHOST || 'localhost'
    const user = env.PGUSER || env.USER || ''
    return `PostgreSQL ${user ? `${user}@` : ''}${host}:${env.PGPORT || '5432'}/${env.PGDATABASE || user}`
  }
  try {
    const url = new URL(keyStore)
    const user = url.username ? `${decodeURIComponent(url.username)}@` : ''
    return `PostgreSQL ${user}${url.hostname}:${url.port || '5432'}${url.pathname}`
  } catch {
    return 'PostgreSQL (unparsable URL)'
  }
}
