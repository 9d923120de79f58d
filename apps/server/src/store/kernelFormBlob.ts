import { createHash } from 'node:crypto'
import { HeError } from '@sealbox/he-core'

/** 'SBKF' read as a little-endian u32: the first word of a stored kernel form. */
const MAGIC = 0x464b4253
const DIGEST_BYTES = 32
/** Magic, then the SHA-256 of the payload. */
export const KERNEL_FORM_BLOB_OVERHEAD = 4 + DIGEST_BYTES

/**
 * The name of a search's kernel form beside a stored key set: the params fingerprint
 * and the Galois elements the search rotates by, so nodes under other search configs
 * (other elements, other params) never read each other's words.
 */
export function kernelFormName(fingerprint: string, galoisElements: readonly number[]): string {
  return `kernel-${fingerprint}-${[...galoisElements].sort((a, b) => a - b).join('.')}`
}

/** What `kernelFormName` makes (the stores refuse any other name: it becomes a file name). */
export const KERNEL_FORM_NAME = /^kernel-[0-9a-f]{32}-[0-9]{1,9}(\.[0-9]{1,9}){0,63}$/

/** Refuses a form name `kernelFormName` would not make (INTERNAL: only the server names forms). */
export function assertKernelFormName(form: string): void {
  if (!KERNEL_FORM_NAME.test(form)) throw new HeError('INTERNAL', `"${form}" is not a kernel-form name`)
}

/**
 * The bytes a store keeps for a kernel form: a magic word and the SHA-256 of the
 * kernel form, then the form itself. The kernel form's own checks (layout, each
 * residue below its prime) cannot see a flipped bit that leaves a residue reduced;
 * the digest can, so a damaged entry is never served as keys.
 */
export function sealKernelFormBlob(kernelForm: Uint8Array): Uint8Array {
  const blob = new Uint8Array(KERNEL_FORM_BLOB_OVERHEAD + kernelForm.byteLength)
  new DataView(blob.buffer).setUint32(0, MAGIC, true)
  blob.set(createHash('sha256').update(kernelForm).digest(), 4)
  blob.set(kernelForm, KERNEL_FORM_BLOB_OVERHEAD)
  return blob
}

/**
 * The kernel form inside a stored blob (a view, no copy), after checking its magic and
 * digest: INTERNAL when either is wrong (stored data the server wrote is damaged).
 */
export function openKernelFormBlob(blob: Uint8Array): Uint8Array {
  if (blob.byteLength < KERNEL_FORM_BLOB_OVERHEAD) {
    throw new HeError('INTERNAL', `stored kernel form of ${blob.byteLength} bytes is truncated`)
  }
  if (new DataView(blob.buffer, blob.byteOffset, 4).getUint32(0, true) !== MAGIC) {
    throw new HeError('INTERNAL', 'stored kernel form does not start with its magic word')
  }
  const kernelForm = blob.subarray(KERNEL_FORM_BLOB_OVERHEAD)
  const digest = createHash('sha256').update(kernelForm).digest()
  if (!digest.equals(blob.subarray(4, KERNEL_FORM_BLOB_OVERHEAD))) {
    throw new HeError('INTERNAL', 'stored kernel form does not match its digest')
  }
  return kernelForm
}
