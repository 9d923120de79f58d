import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { HeError } from '@sealbox/he-core'
import { assertStoreName } from './assertStoreName.ts'
import { fileStoreError } from './fileStoreErrors.ts'
import type { KeyBlobReader, KeyBlobRef } from './KeyStore.ts'
import { assertKernelFormName } from './kernelFormBlob.ts'

const SHA256 = /^[0-9a-f]{64}$/

/**
 * Reads key-set bytes straight from a FileKeyStore directory. Workers open one of
 * these, so key bytes go from disk to the thread that uses them, not through the
 * main event loop.
 */
export class FileKeyBlobReader implements KeyBlobReader {
  readonly #root: string

  constructor(dir: string) {
    this.#root = join(dir, 'keysets')
  }

  async read(ref: KeyBlobRef): Promise<Uint8Array> {
    assertStoreName(ref.tenant, 'tenant')
    if (!SHA256.test(ref.sha256)) throw new HeError('INVALID_INPUT', 'bad key-set version')
    try {
      const buffer = await readFile(join(this.#root, ref.tenant, 'blobs', `${ref.sha256}.sbx`))
      return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new HeError('NOT_FOUND', `key set "${ref.id}" was deleted or replaced while this request waited`)
      }
      throw fileStoreError(error, `read key set "${ref.id}"`)
    }
  }

  async readKernelForm(ref: KeyBlobRef, form: string): Promise<Uint8Array | undefined> {
    assertStoreName(ref.tenant, 'tenant')
    if (!SHA256.test(ref.sha256)) throw new HeError('INVALID_INPUT', 'bad key-set version')
    assertKernelFormName(form)
    try {
      const buffer = await readFile(kernelFormPath(this.#root, ref.tenant, ref.sha256, form))
      return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
      throw fileStoreError(error, `read the kernel form of key set "${ref.id}"`)
    }
  }
}

/** Where a FileKeyStore keeps a kernel form: beside its key set's blob, named by both. */
export function kernelFormPath(root: string, tenant: string, sha256: string, form: string): string {
  return join(root, tenant, 'blobs', `${sha256}.${form}.sbkf`)
}
