/*
 * What checking a key upload costs a worker, in the units of the program cost model
 * (`programCost`): reading the envelopes, inflating the payload within its exact bound,
 * checking every key's structure and — for keys under the server's search parameters —
 * loading them into SEAL (expanding the seeds), which costs about twice as much per
 * byte. All of it is proportional to the bytes, which a genuine key set cannot compress
 * below a fixed share of its inflated size (its coefficients are uniform modulo the
 * primes; a payload that claims more is refused before it is inflated), so the
 * compressed size the server sees prices it. Packed Galois keys cost about the same per
 * byte (unpacking in JavaScript replaces inflating), and a packed payload's length follows
 * from its header, so it cannot claim more keys than its bytes hold.
 *
 * Measured by the calibration benchmark's key-upload cells
 * (`pnpm --filter @sealbox/bench benchmark:calibrate`, worker CPU time per upload):
 * 7–9 ms for 1.5–1.7 MiB checked (n = 4096), 34–63 ms for 8.6–14.5 MiB (n = 8192), and
 * 3.4 ms for the search's 0.2 MiB of Galois keys loaded into SEAL.
 */

/** Units of one upload besides its bytes (envelopes, hashing set-up). */
export const KEY_UPLOAD_UNITS_PER_OBJECT = 8
/** Units per MiB of an uploaded (compressed) key set whose structure is checked without SEAL (other parameters). */
export const KEY_UPLOAD_UNITS_PER_MIB = 18
/** Units per MiB of an uploaded key set loaded into SEAL to check it (the server's search parameters). */
export const KEY_LOAD_UNITS_PER_MIB = 40

/**
 * Cost units of checking an uploaded key set of `bytes` bytes; `loaded`: it is also loaded
 * into SEAL (keys under the server's search parameters; when unknown, price it so).
 */
export function keyUploadCost(bytes: number, options: { loaded: boolean } = { loaded: true }): number {
  const perMiB = options.loaded ? KEY_LOAD_UNITS_PER_MIB : KEY_UPLOAD_UNITS_PER_MIB
  return KEY_UPLOAD_UNITS_PER_OBJECT + (perMiB * bytes) / 2 ** 20
}
