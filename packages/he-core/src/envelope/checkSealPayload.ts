import type { SealObjectKind } from './envelopeKinds.ts'
import { SealPayloadReader } from './SealPayloadReader.ts'
import {
  CIPHERTEXT_SIZE_MAX,
  CIPHERTEXT_SIZE_MIN,
  COEFF_MODULUS_SIZE_MAX,
  dataPrimeCountOf,
  type SealPayloadLimits,
} from './sealPayloadLimits.ts'

/** What the pre-parse learned about a payload. */
export interface SealPayloadShape {
  polyModulusDegree: number
  /** Primes of the object (a ciphertext: at its level; keys: the key level). */
  coeffModulusSize: number
  /** Saved from a `Serializable*` object (seed instead of the random polynomial). */
  seeded: boolean
  /** Galois keys: the elements present, ascending. */
  galoisElements?: number[]
}

/** The first key ciphertext fixes n and the primes for the others when no context does. */
interface KeyShape {
  n: number | undefined
  k: number | undefined
  seeded: boolean | undefined
}

function plural(count: number, what: string): string {
  return `${count} ${what}${count === 1 ? '' : 's'}`
}

function checkDegree(r: SealPayloadReader, n: number, limits: SealPayloadLimits, field: string): void {
  if (!limits.polyModulusDegrees.includes(n)) {
    throw r.fail(
      `${field} has poly_modulus_degree ${n}; ${limits.exact ? 'these parameters have' : 'allowed here:'} ${limits.polyModulusDegrees.join(', ')}`,
      { field: 'poly_modulus_degree', found: n },
    )
  }
}

function readCiphertext(
  r: SealPayloadReader,
  field: string,
  limits: SealPayloadLimits,
  key: KeyShape | undefined,
): SealPayloadShape {
  const end = r.nestedHeader(field)
  r.skip(32, `${field} parms_id`)
  const ntt = r.u8(`${field} is_ntt_form`)
  if (ntt > 1) throw r.fail(`${field} is_ntt_form is ${ntt}, not 0 or 1`)
  const size = r.u64(`${field} size`)
  const maxSize = key ? 2 : (limits.maxCiphertextSize ?? CIPHERTEXT_SIZE_MAX)
  if (size < CIPHERTEXT_SIZE_MIN || size > maxSize) {
    throw r.fail(
      `${field} has ${plural(size, 'polynomial')}; ${key ? 'a key has 2' : maxSize < CIPHERTEXT_SIZE_MAX ? `at most ${maxSize} here` : `SEAL allows ${CIPHERTEXT_SIZE_MIN}…${CIPHERTEXT_SIZE_MAX}`}`,
      { field: 'size', found: size, ...(key ? {} : { max: maxSize }) },
    )
  }
  const n = r.u64(`${field} poly_modulus_degree`)
  checkDegree(r, n, limits, field)
  const k = r.u64(`${field} coeff_modulus_size`)
  const keyLevel = limits.keyPrimeCount
  if (k < 1 || k > keyLevel || (key && limits.exact && k !== keyLevel)) {
    throw r.fail(
      `${field} has ${plural(k, 'prime')}; ${key && limits.exact ? `keys have all ${keyLevel}` : `at most ${keyLevel}`}`,
      { field: 'coeff_modulus_size', found: k },
    )
  }
  if (key) {
    // Without a context the first key fixes the shape of the rest.
    if ((key.n ?? n) !== n || (key.k ?? k) !== k) {
      throw r.fail(`${field} is n=${n} over ${k} primes, unlike the first key (n=${key.n} over ${key.k} primes)`)
    }
    key.n = n
    key.k = k
  }
  r.skip(16, `${field} scale and correction factor`)
  const dataEnd = r.nestedHeader(`${field} data`)
  const count = r.u64(`${field} data size`)
  const full = size * n * k
  const seeded = size === 2 && count === n * k
  if (count !== full && !seeded) {
    throw r.fail(`${field} data holds ${count} coefficients; ${size} × ${n} × ${k} = ${full} expected`, {
      field: 'data',
      found: count,
      expected: full,
    })
  }
  // A key's residues are checked below their primes when the primes are known: SEAL's load
  // would refuse any other, but with an exception (keys are stored and reloaded often).
  if (key && limits.primes && limits.exact && k === limits.primes.length) {
    r.residues(count, n, limits.primes, `${field} data`)
  } else {
    r.skip(count * 8, `${field} data (${count} coefficients)`)
  }
  r.expectAt(dataEnd, `${field} data`)
  if (seeded) {
    const seedEnd = r.nestedHeader(`${field} seed`)
    r.u8(`${field} seed PRNG type`)
    r.skip(64, `${field} seed`)
    r.expectAt(seedEnd, `${field} seed`)
  }
  if (key) {
    if ((key.seeded ?? seeded) !== seeded) throw r.fail(`${field} mixes seeded and full keys`)
    key.seeded = seeded
  }
  r.expectAt(end, field)
  return { polyModulusDegree: n, coeffModulusSize: k, seeded }
}

function readPlaintext(r: SealPayloadReader, field: string, limits: SealPayloadLimits): SealPayloadShape {
  const end = r.nestedHeader(field)
  r.need(32, `${field} parms_id`)
  // A zero parms_id marks a plaintext outside NTT form: at most n coefficients.
  let ntt = false
  for (let i = 0; i < 4; i++) if (r.u64Raw() !== 0n) ntt = true
  const coeffCount = r.u64(`${field} coeff_count`)
  const n = Math.max(...limits.polyModulusDegrees)
  const max = ntt ? n * limits.keyPrimeCount : n
  if (coeffCount > max) {
    throw r.fail(
      `${field} declares ${coeffCount} coefficients; ${ntt ? `n × primes = ${max}` : `n = ${max}`} at most`,
      { field: 'coeff_count', found: coeffCount },
    )
  }
  r.skip(8, `${field} scale`)
  const dataEnd = r.nestedHeader(`${field} data`)
  const count = r.u64(`${field} data size`)
  if (count !== coeffCount) {
    throw r.fail(`${field} data holds ${count} coefficients but coeff_count says ${coeffCount}`)
  }
  r.skip(count * 8, `${field} data (${count} coefficients)`)
  r.expectAt(dataEnd, `${field} data`)
  r.expectAt(end, field)
  return { polyModulusDegree: n, coeffModulusSize: ntt ? Math.ceil(coeffCount / n) : 1, seeded: false }
}

function readKSwitchKeys(
  r: SealPayloadReader,
  kind: 'relinKeys' | 'galoisKeys',
  limits: SealPayloadLimits,
): SealPayloadShape {
  const end = r.nestedHeader(kind)
  r.skip(32, `${kind} parms_id`)
  const lists = r.u64(`${kind} key count`)
  // SEAL keeps one list per Galois element slot (n of them, most empty) and one list for
  // relinearization (power 2): the count alone tells the two apart.
  if (kind === 'relinKeys' && lists !== 1) {
    throw r.fail(
      `relinKeys declare ${plural(lists, 'key list')}; relinearization keys have 1${limits.polyModulusDegrees.includes(lists) ? ' (this looks like Galois keys: send them as galoisKeys)' : ''}`,
      { field: 'keys_dim1', found: lists },
    )
  }
  if (kind === 'galoisKeys') checkDegree(r, lists, limits, 'galoisKeys key count (one slot per n)')
  // Each list needs at least its own 8-byte length: refuse a count the bytes cannot hold.
  r.need(lists * 8, `${plural(lists, 'key list')}`)
  const dataPrimes = limits.exact ? dataPrimeCountOf(limits.keyPrimeCount) : limits.keyPrimeCount - 1
  const key: KeyShape = { n: kind === 'galoisKeys' ? lists : undefined, k: undefined, seeded: undefined }
  const elements: number[] = []
  let decomposition: number | undefined
  for (let index = 0; index < lists; index++) {
    const keys = r.u64(`${kind} list ${index} length`)
    if (keys === 0) continue
    if (keys > dataPrimes || (limits.exact && keys !== dataPrimes) || (decomposition ?? keys) !== keys) {
      throw r.fail(
        `${kind} list ${index} holds ${plural(keys, 'key')}; ${limits.exact ? `these parameters need ${dataPrimes}` : `every list holds the same number, at most ${dataPrimes}`}`,
        { field: 'keys_dim2', found: keys },
      )
    }
    decomposition = keys
    for (let j = 0; j < keys; j++) readCiphertext(r, `${kind} list ${index} key ${j}`, limits, key)
    if (key.k !== undefined && !limits.exact && keys !== dataPrimeCountOf(key.k)) {
      throw r.fail(`${kind} list ${index} holds ${plural(keys, 'key')} over ${key.k} primes; ${key.k - 1} expected`)
    }
    elements.push(2 * index + 1)
  }
  if (elements.length === 0) throw r.fail(`${kind} hold no key`)
  r.expectAt(end, kind)
  return {
    polyModulusDegree: key.n ?? 0,
    coeffModulusSize: key.k ?? 0,
    seeded: key.seeded ?? false,
    ...(kind === 'galoisKeys' ? { galoisElements: elements } : {}),
  }
}

function readParams(r: SealPayloadReader, limits: SealPayloadLimits): SealPayloadShape {
  const end = r.nestedHeader('params')
  const scheme = r.u8('params scheme')
  if (scheme > 3) throw r.fail(`params scheme is ${scheme}; SEAL knows 0…3`)
  const n = r.u64('params poly_modulus_degree')
  checkDegree(r, n, limits, 'params')
  const primes = r.u64('params coeff_modulus_size')
  if (primes > COEFF_MODULUS_SIZE_MAX) {
    throw r.fail(`params declare ${primes} primes; SEAL allows at most ${COEFF_MODULUS_SIZE_MAX}`)
  }
  for (let i = 0; i <= primes; i++) {
    const modulusEnd = r.nestedHeader(i < primes ? `params prime ${i}` : 'params plain modulus')
    r.skip(8, 'modulus value')
    r.expectAt(modulusEnd, 'params modulus')
  }
  r.expectAt(end, 'params')
  return { polyModulusDegree: n, coeffModulusSize: primes, seeded: false }
}

/**
 * Walks an UNCOMPRESSED SEAL 4.1 payload of `kind` field by field, as SEAL's loader
 * would, and checks every count and size against the bytes that remain and against
 * `limits` — before SEAL allocates anything for it (SEAL reserves memory for a key
 * count it has not checked: a 136-byte forged Galois-key payload asks for 4 GiB).
 * Every refusal is INVALID_ENVELOPE. Coefficient values are not read: SEAL's own load
 * checks them against the primes. Layout: ENVELOPE.md, "The SEAL payload".
 */
export function checkSealPayload(
  kind: SealObjectKind,
  payload: Uint8Array,
  limits: SealPayloadLimits,
): SealPayloadShape {
  const r = new SealPayloadReader(payload, `${kind} payload`)
  let shape: SealPayloadShape
  switch (kind) {
    case 'ciphertext':
      shape = readCiphertext(r, 'ciphertext', limits, undefined)
      break
    case 'publicKey':
      shape = readCiphertext(r, 'publicKey', limits, { n: undefined, k: undefined, seeded: undefined })
      break
    case 'plaintext':
    case 'secretKey':
      shape = readPlaintext(r, kind, limits)
      break
    case 'relinKeys':
    case 'galoisKeys':
      shape = readKSwitchKeys(r, kind, limits)
      break
    case 'params':
      shape = readParams(r, limits)
      break
    default: {
      const never: never = kind
      throw r.fail(`unknown kind ${String(never)}`)
    }
  }
  if (r.remaining !== 0) throw r.fail(`${r.remaining} bytes follow the end of the object`)
  return shape
}
