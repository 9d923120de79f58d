import type { KeyKind } from '@sealbox/he-core'

/** Each key inside a sentence, in the Keys panel's words ("Galois" keeps its capital). */
export const KEY_NOUNS: Record<KeyKind, string> = {
  secretKey: 'secret key',
  publicKey: 'public key',
  relinKeys: 'relinearization keys',
  galoisKeys: 'Galois keys',
}
