import type { ResolvedParams } from '@sealbox/he-core'

/*
 * What a job makes a SEAL instance do before its own work when that instance has not
 * done it yet: build the context of the job's parameters, load the job's key set. The
 * program cost model prices a job as if both were at hand (a worker keeps them between
 * jobs), but the first job at new parameters pays for the build, and it can take far
 * longer than the job: a 56-unit program at n = 16384 ran 3–6 s, nearly all of it
 * building the context, and a one-rotation program with a large key set spends seconds
 * loading the keys. On the event loop (the inline executor) both block everything; on a
 * worker they hold that worker, so the hub charges a build to the tenant and weighs it in
 * the fair queue (ExecutorHub). In cost units
 * (COST_UNIT_MS each), measured on this project's VM with node-seal 7 (thread CPU time):
 *
 * - a context: 75–118 ms at n = 4096 (3 primes), 230–440 ms at n = 8192 (4–5 primes),
 *   0.5 s at n = 16384 with 4 primes, 2.0–2.2 s with 9 and 6.2 s with 16; SEAL builds NTT
 *   tables and base converters for every prime at every level, and n × primes(primes+1)/2
 *   follows all of them within 1.35× (about 3.3 µs per prime-level coefficient);
 * - a key set read from the store (inflate, expand the seeds, load into SEAL, save the full
 *   form for the node's bytes cache): 13–27 ms per MiB stored;
 * - a key set from the node's bytes cache (full form, loaded as it is): 2–4 ms per MiB;
 *   a search's kernel form from there (a copy and one pass checking each residue, no
 *   SEAL call) is priced by its own bytes at the same rate, an upper bound: the keys
 *   benchmark measured 0.2–0.7 ms for a default user's 0.38 MiB.
 */

/** Cost units of building a context, per (prime, level) pair per coefficient. */
export const CONTEXT_UNITS_PER_PRIME_LEVEL_COEFFICIENT = 0.015
/** Cost units per MiB of a stored (seeded, compressed) key set loaded from the store. */
export const STORED_KEY_UNITS_PER_MIB = 90
/** Cost units per MiB of a full-form key set loaded from the node's bytes cache. */
export const FULL_FORM_KEY_UNITS_PER_MIB = 12

const MiB = 2 ** 20

/** Cost units of building the context of `params` (every level of its modulus chain). */
export function contextBuildUnits(params: Pick<ResolvedParams, 'polyModulusDegree' | 'coeffModulusBits'>): number {
  const primes = params.coeffModulusBits.length
  const primeLevels = (primes * (primes + 1)) / 2
  return params.polyModulusDegree * primeLevels * CONTEXT_UNITS_PER_PRIME_LEVEL_COEFFICIENT
}

/**
 * Cost units of loading a key set: from the node's bytes cache when it holds the full form
 * (`fullFormBytes`), else from the store (`storedBytes`, as uploaded).
 */
export function keyLoadUnits(key: { storedBytes: number; fullFormBytes?: number | undefined }): number {
  return key.fullFormBytes === undefined
    ? (STORED_KEY_UNITS_PER_MIB * key.storedBytes) / MiB
    : (FULL_FORM_KEY_UNITS_PER_MIB * key.fullFormBytes) / MiB
}
