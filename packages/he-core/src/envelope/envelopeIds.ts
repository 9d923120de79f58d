import { HeError } from '../errors/HeError.ts'
import { ID_BYTES } from './envelopeLayout.ts'

const ID_PATTERN = /^[0-9a-f]{32}$/

/** True for a 16-byte id written as 32 lowercase hex characters (a params fingerprint, a key-set id). */
export function isEnvelopeId(value: unknown): value is string {
  return typeof value === 'string' && ID_PATTERN.test(value)
}

/** Throws `INVALID_INPUT` unless `value` is a 32-char lowercase hex id; `what` names the field. */
export function assertEnvelopeId(value: unknown, what: string): asserts value is string {
  if (!isEnvelopeId(value)) {
    const shown = typeof value === 'string' ? JSON.stringify(value.slice(0, 40)) : typeof value
    throw new HeError('INVALID_INPUT', `${what} must be 32 lowercase hex characters (16 bytes), got ${shown}`)
  }
}

/** Writes a validated hex id into `target` at `offset`. */
export function writeEnvelopeId(target: Uint8Array, offset: number, id: string): void {
  for (let i = 0; i < ID_BYTES; i++) target[offset + i] = Number.parseInt(id.slice(2 * i, 2 * i + 2), 16)
}

const HEX_DIGITS = '0123456789abcdef'

/** Reads 16 bytes at `offset` as lowercase hex. */
export function readEnvelopeId(source: Uint8Array, offset: number): string {
  let hex = ''
  for (let i = 0; i < ID_BYTES; i++) {
    const byte = source[offset + i] ?? 0
    hex += HEX_DIGITS[byte >>> 4]
    hex += HEX_DIGITS[byte & 0x0f]
  }
  return hex
}

/** The all-zero id: "no key set" on the wire. */
export const NO_KEY_SET_ID = '0'.repeat(2 * ID_BYTES)
