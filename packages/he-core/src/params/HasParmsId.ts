import type { ParmsIdType } from 'node-seal/throws'

/** Anything that lives at a level of the modulus chain (ciphertexts, plaintexts). */
export interface HasParmsId {
  parmsId(): ParmsIdType
}
