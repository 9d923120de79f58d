import { HeError } from '@sealbox/he-core'

const KIND_WORDS: Record<string, string> = {
  secretKey: 'a secret key',
  publicKey: 'a public key',
  relinKeys: 'relinearization keys',
  galoisKeys: 'Galois keys',
  plaintext: 'a plaintext',
  ciphertext: 'a ciphertext',
  params: 'encryption parameters',
  bundle: 'a bundle of several objects',
}

function words(kind: unknown): string {
  return typeof kind === 'string' ? (KIND_WORDS[kind] ?? kind) : 'something else'
}

/** The file problems `explainUploadError` restates with what to do: their code's hint would say it again. */
const RESTATED = new Set([
  'ENVELOPE_KIND_MISMATCH',
  'PARAMS_MISMATCH',
  'KEY_SET_MISMATCH',
  'INVALID_ENVELOPE',
  'ENVELOPE_INTEGRITY',
])

/** Whether `error` is an upload failure already restated for people (shown without a second, repeating line). */
export function explainsItself(error: HeError): boolean {
  return RESTATED.has(error.code) && error.cause instanceof HeError
}

/**
 * Restates an upload failure for people: which file problem it is and what to do.
 * The he-core error (code, details) decides; its own message stays as the detail.
 */
export function explainUploadError(error: HeError, expected: string): HeError {
  const details = error.details ?? {}
  switch (error.code) {
    case 'ENVELOPE_KIND_MISMATCH':
      return new HeError(
        error.code,
        `This file holds ${words(details.found)}, not ${expected}. Pick the matching upload button, or another file.`,
        { cause: error, details },
      )
    case 'PARAMS_MISMATCH':
      return new HeError(
        error.code,
        `This file was made under other encryption parameters than the ones in use, so it cannot be loaded. Switch to its parameters first, or use a file made under these.`,
        { cause: error, details },
      )
    case 'KEY_SET_MISMATCH':
      return new HeError(
        error.code,
        'This file belongs to another secret key than the one in this workspace; it would decrypt to garbage, so it was refused.',
        { cause: error, details },
      )
    case 'INVALID_ENVELOPE':
    case 'ENVELOPE_INTEGRITY':
      return new HeError(error.code, `This is not a sealbox file, or it is damaged: ${error.message}`, {
        cause: error,
        details,
      })
    default:
      return error
  }
}
