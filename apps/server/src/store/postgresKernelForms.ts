import type pg from 'pg'
import type { KernelFormWrite } from './KeyStore.ts'
import { keepKernelForms } from './keepKernelForms.ts'
import { sealKernelFormBlob } from './kernelFormBlob.ts'

/*
 * The PostgreSQL store's statements on `sealbox_key_forms` (migration 2), run inside the
 * caller's transaction after it locked the tenant's row.
 */

/** A tenant's stored bytes ($1): its uploads and the kernel forms kept beside them. */
export const STORED_BYTES = `(coalesce((SELECT sum(bytes) FROM sealbox_key_sets WHERE tenant = $1), 0)
  + coalesce((SELECT sum(bytes) FROM sealbox_key_forms WHERE tenant = $1), 0))::float8`

export async function upsertKernelForm(
  client: pg.PoolClient,
  tenant: string,
  sha256: string,
  form: string,
  blob: Uint8Array,
): Promise<void> {
  await client.query(
    `INSERT INTO sealbox_key_forms (tenant, key_sha256, form, bytes, data) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (tenant, key_sha256, form) DO UPDATE
           SET bytes = excluded.bytes, data = excluded.data, created_at = now()`,
    [tenant, sha256, form, blob.byteLength, Buffer.from(blob.buffer, blob.byteOffset, blob.byteLength)],
  )
}

/** Drops the kernel forms of a key-set version no key set of the tenant holds any more. */
export async function dropUnusedKernelForms(
  client: pg.PoolClient,
  tenant: string,
  sha256: string | null,
): Promise<void> {
  if (sha256 === null) return
  await client.query(
    `DELETE FROM sealbox_key_forms f WHERE f.tenant = $1 AND f.key_sha256 = $2
       AND NOT EXISTS (SELECT 1 FROM sealbox_key_sets k WHERE k.tenant = $1 AND k.sha256 = $2)`,
    [tenant, sha256],
  )
}

/**
 * After a key set's write: keeps its kernel form when it fits `room` (the quota less the
 * tenant's uploads) and drops the tenant's other forms that no longer fit
 * (`keepKernelForms`, newest kept first). True when its form was kept.
 */
export async function keepKernelFormsWithin(
  client: pg.PoolClient,
  write: { tenant: string; sha256: string; kernelForm: KernelFormWrite | undefined; room: number },
): Promise<boolean> {
  const { tenant, sha256, kernelForm, room } = write
  const blob = kernelForm ? sealKernelFormBlob(kernelForm.bytes) : undefined
  const { rows: stored } = await client.query<{ key_sha256: string; form: string; bytes: number }>(
    `SELECT key_sha256, form, bytes::float8 AS bytes FROM sealbox_key_forms
      WHERE tenant = $1 AND NOT (key_sha256 = $2 AND form = $3) ORDER BY created_at DESC`,
    [tenant, sha256, kernelForm?.form ?? ''],
  )
  const kept = keepKernelForms(
    room,
    blob?.byteLength,
    stored.map((row) => ({ key: row, bytes: row.bytes })),
  )
  for (const row of kept.drop) {
    await client.query('DELETE FROM sealbox_key_forms WHERE tenant = $1 AND key_sha256 = $2 AND form = $3', [
      tenant,
      row.key_sha256,
      row.form,
    ])
  }
  if (!kernelForm || !blob || !kept.keepFresh) return false
  await upsertKernelForm(client, tenant, sha256, kernelForm.form, blob)
  return true
}
