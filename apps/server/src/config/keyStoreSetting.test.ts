import { describe, expect, it } from 'vitest'
import { describeKeyStore, inferKeyStore, postgresConnection } from './keyStoreSetting.ts'

describe('KEY_STORE as the operator writes it', () => {
  it('infers PostgreSQL from PGHOST or PGDATABASE when KEY_STORE is unset, and says so', () => {
    expect(inferKeyStore({ PATH: '/bin' })).toEqual({ env: { PATH: '/bin' } })
    expect(inferKeyStore({ KEY_STORE: 'file', PGHOST: 'db' }).env.KEY_STORE).toBe('file')
    const inferred = inferKeyStore({
      PGHOST: 'db.internal',
      PGUSER: 'sealbox',
      PGPASSWORD: 'secret',
      PGDATABASE: 'keys',
    })
    expect(inferred.env.KEY_STORE).toBe('postgres')
    expect(inferred.note).toBe(
      'KEY_STORE is not set but PGHOST and PGDATABASE are: using PostgreSQL from the PG* variables (PostgreSQL sealbox@db.internal:5432/keys); set KEY_STORE=file for the file store',
    )
    expect(inferred.note).not.toContain('secret')
  })

  it('names a store without its password, and connects `postgres` through the PG* variables', () => {
    expect(describeKeyStore('postgres://sealbox:p%40ss@10.0.0.5:6432/sealbox?sslmode=verify-full')).toBe(
      'PostgreSQL sealbox@10.0.0.5:6432/sealbox',
    )
    expect(describeKeyStore('file')).toBe('file (DATA_DIR/keysets)')
    expect(postgresConnection('postgres')).toEqual({})
    expect(postgresConnection('postgres://a@b/c')).toEqual({ connectionString: 'postgres://a@b/c' })
  })
})
