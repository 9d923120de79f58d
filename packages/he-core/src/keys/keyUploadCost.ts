import type { KeyUploadSize } from './keyUploadSize.ts'

/*
 * What checking a key upload costs a worker, in the units of the program cost model
 * (`programCost`), priced by what the check handles, as `keyUploadSize` knows it from
 * the headers and the meta before anything is inflated — never by the compressed bytes
 * alone, which a payload of zero keys padded up to the entropy floor makes about a
 * tenth of what it inflates to.
 *
 * - Keys under the server's search parameters are inflated (or unpacked), every residue
 *   checked against its prime and loaded into SEAL, seeds expanded: the work follows the
 *   keys' full size, exact from the parameters and the Galois elements listed.
 * - Keys under other parameters are inflated within a multiple of their compressed size
 *   and walked field by field without SEAL: priced by that bound.
 *
 * The constants come from the calibration benchmark's key-upload cells (`pnpm --filter
 * @sealbox/bench benchmark:calibrate`): a MiB loaded into SEAL costs about five times a MiB
 * checked without it. The measurements: NODE-SEAL-FACTS.md §9.
 */

/** Units of one upload besides its bytes (envelopes, hashing set-up, the SEAL call). */
export const KEY_UPLOAD_UNITS_PER_OBJECT = 6
/** Units per MiB of the inflate bound of keys checked without SEAL (other parameters). */
export const KEY_UPLOAD_UNITS_PER_MIB = 3
/** Units per MiB of keys loaded into SEAL to check them (the server's search parameters), at their full size. */
export const KEY_LOAD_UNITS_PER_MIB = 15

const MiB = 2 ** 20

/** Cost units of checking an upload of keys of `size` (`keyUploadSize`). */
export function keyUploadCost(size: KeyUploadSize): number {
  const bytes = size.loaded ? size.loadedBytes : size.inflatedBytes
  const perMiB = size.loaded ? KEY_LOAD_UNITS_PER_MIB : KEY_UPLOAD_UNITS_PER_MIB
  return KEY_UPLOAD_UNITS_PER_OBJECT + (perMiB * bytes) / MiB
}

/**
 * The most memory checking an upload of `size` takes at once: keys loaded into SEAL are
 * copied into the WASM heap inflated, and SEAL builds the keys beside that copy (measured:
 * the heap grows by the sum); keys checked without SEAL take their inflated payloads.
 */
export function keyUploadPeakHeapBytes(size: KeyUploadSize): number {
  return size.loaded ? size.inflatedBytes + size.loadedBytes : size.inflatedBytes
}
