import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex } from '@noble/hashes/utils.js'

/** A config's id: 32 hex chars of the SHA-256 of the JSON of the fields client and server must agree on. */
export function configIdOf(fields: Record<string, unknown>): string {
  return bytesToHex(sha256(new TextEncoder().encode(JSON.stringify(fields)))).slice(0, 32)
}
