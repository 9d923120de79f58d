import { randomBytes } from 'node:crypto'
import { afterEach, describe, expect, it } from 'vitest'
import type { KeyBlobRef, KeySetRecord } from './KeyStore.ts'
import { KERNEL_FORM_BLOB_OVERHEAD, kernelFormName, openKernelFormBlob } from './kernelFormBlob.ts'
import { type ContractStore, freshTenant, type KeyStoreHarness, testFacts } from './keyStoreTestKit.ts'

/*
 * The kernel forms every KeyStore keeps beside key sets, as one suite run against each
 * store (embedded files, PostgreSQL): stored with an upload or later, read back exactly,
 * counted in the tenant's bytes, never refusing an upload, and gone with their key set.
 */

const FORM = kernelFormName('ab'.repeat(16), [3, 9])
const OTHER_FORM = kernelFormName('cd'.repeat(16), [3, 9])

function refOf(record: KeySetRecord): KeyBlobRef {
  return { tenant: record.tenant, id: record.id, sha256: record.sha256, bytes: record.bytes }
}

async function formOf(store: ContractStore, record: KeySetRecord, form = FORM): Promise<Uint8Array | undefined> {
  const blob = await store.readKernelForm(refOf(record), form)
  return blob && openKernelFormBlob(blob)
}

/** Registers the kernel-form suite for one store implementation. */
export function describeKernelFormContract(name: string, harness: () => KeyStoreHarness): void {
  describe(`KeyStore kernel forms: ${name}`, () => {
    const opened: ContractStore[] = []
    const open = async (quotaBytes = 1 << 30) => {
      const store = await harness().open({ quotaBytes, maxKeySets: 64 })
      opened.push(store)
      return store
    }
    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close?.()
    })

    it('keeps a kernel form with an upload, reads it back exactly, and counts it in the usage', async () => {
      const store = await open()
      const tenant = freshTenant()
      const kernel = randomBytes(3000)
      const { record } = await store.put(tenant, 'main', testFacts(), randomBytes(1000), undefined, {
        form: FORM,
        bytes: kernel,
      })
      expect(record.bytes).toBe(1000)
      expect(await formOf(store, record)).toEqual(new Uint8Array(kernel))
      expect(await formOf(store, record, OTHER_FORM)).toBeUndefined()
      expect(await store.usage(tenant)).toBe(1000 + KERNEL_FORM_BLOB_OVERHEAD + 3000)
      // Another tenant never reads it, whatever version it names.
      expect(await store.readKernelForm({ ...refOf(record), tenant: freshTenant() }, FORM)).toBeUndefined()
      // Durable: a store opened again on the same data reads the same.
      const again = await open()
      expect(await formOf(again, record)).toEqual(new Uint8Array(kernel))
      expect(await again.usage(tenant)).toBe(1000 + KERNEL_FORM_BLOB_OVERHEAD + 3000)
    })

    it('adds a kernel form to a stored key set, only while that version is stored', async () => {
      const store = await open()
      const tenant = freshTenant()
      const { record, kernelFormKept } = await store.put(tenant, 'main', testFacts(), randomBytes(1000))
      expect(kernelFormKept).toBe(false)
      expect(await formOf(store, record)).toBeUndefined()
      const kernel = randomBytes(2000)
      expect(await store.putKernelForm(tenant, record.sha256, { form: FORM, bytes: kernel })).toBe(true)
      expect(await formOf(store, record)).toEqual(new Uint8Array(kernel))
      // Written again (a damaged one repaired): replaced, counted once.
      const repaired = randomBytes(2000)
      expect(await store.putKernelForm(tenant, record.sha256, { form: FORM, bytes: repaired })).toBe(true)
      expect(await formOf(store, record)).toEqual(new Uint8Array(repaired))
      expect(await store.usage(tenant)).toBe(1000 + KERNEL_FORM_BLOB_OVERHEAD + 2000)
      // A version no key set holds (deleted or replaced meanwhile) gains nothing.
      expect(await store.putKernelForm(tenant, 'f'.repeat(64), { form: FORM, bytes: kernel })).toBe(false)
      expect(await store.putKernelForm(freshTenant(), record.sha256, { form: FORM, bytes: kernel })).toBe(false)
    })

    it('drops kernel forms with the last key set of their version', async () => {
      const store = await open()
      const tenant = freshTenant()
      const bytes = randomBytes(1000)
      const kernelForm = { form: FORM, bytes: randomBytes(500) }
      const { record } = await store.put(tenant, 'main', testFacts(), bytes, undefined, kernelForm)
      // The same upload under a second name shares the version and its form.
      await store.put(tenant, 'copy', testFacts(), bytes, undefined, kernelForm)
      expect(await store.usage(tenant)).toBe(2000 + KERNEL_FORM_BLOB_OVERHEAD + 500)
      expect(await store.delete(tenant, 'copy')).toBe(true)
      expect(await formOf(store, record)).toBeDefined()
      // Replaced by another version: the old version's form goes with it.
      const { record: replaced } = await store.put(tenant, 'main', testFacts(), randomBytes(1000))
      expect(await formOf(store, record)).toBeUndefined()
      expect(await store.usage(tenant)).toBe(1000)
      expect(await store.putKernelForm(tenant, replaced.sha256, kernelForm)).toBe(true)
      expect(await store.delete(tenant, 'main')).toBe(true)
      expect(await formOf(store, replaced)).toBeUndefined()
      expect(await store.usage(tenant)).toBe(0)
    })

    it('never refuses an upload for kernel forms: they are dropped or not kept to fit the quota', async () => {
      const blob = (bytes: number) => KERNEL_FORM_BLOB_OVERHEAD + bytes
      const store = await open(10_000)
      const tenant = freshTenant()
      const { record: first, kernelFormKept } = await store.put(
        tenant,
        'a',
        testFacts(),
        randomBytes(3000),
        undefined,
        {
          form: FORM,
          bytes: randomBytes(2000),
        },
      )
      expect(kernelFormKept).toBe(true)
      expect(await store.usage(tenant)).toBe(3000 + blob(2000))
      // The upload fits with its form only if the first form goes: the fresh one is kept.
      const { record: second } = await store.put(tenant, 'b', testFacts(), randomBytes(3000), undefined, {
        form: FORM,
        bytes: randomBytes(3000),
      })
      expect(await formOf(store, first)).toBeUndefined()
      expect(await formOf(store, second)).toBeDefined()
      expect(await store.usage(tenant)).toBe(6000 + blob(3000))
      // An upload that fits alone but not with its form: stored without it, the other form dropped.
      const thirdPut = await store.put(tenant, 'c', testFacts(), randomBytes(3900), undefined, {
        form: FORM,
        bytes: randomBytes(200),
      })
      const third = thirdPut.record
      expect(thirdPut.kernelFormKept).toBe(false)
      expect(await formOf(store, third)).toBeUndefined()
      expect(await formOf(store, second)).toBeUndefined()
      expect(await store.usage(tenant)).toBe(9900)
      // A form made later is kept only when it fits.
      expect(await store.putKernelForm(tenant, first.sha256, { form: FORM, bytes: randomBytes(200) })).toBe(false)
      expect(await store.putKernelForm(tenant, first.sha256, { form: FORM, bytes: randomBytes(10) })).toBe(true)
      expect(await store.usage(tenant)).toBe(9900 + blob(10))
    })
  })
}
