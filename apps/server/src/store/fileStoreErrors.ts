import { HeError } from '@sealbox/he-core'
import { STORE_RETRY_AFTER_SECONDS } from './KeyStore.ts'
import { isDiskFull } from './SpareSpace.ts'

/**
 * Maps a file-system failure of the embedded store (disk full, I/O error, permissions)
 * to STORE_UNAVAILABLE (503 + Retry-After): the write did not happen, the client may
 * retry, and the operator finds the cause in the log. HeErrors pass through.
 */
export function fileStoreError(error: unknown, action: string): HeError {
  if (error instanceof HeError) return error
  const code = (error as NodeJS.ErrnoException | null)?.code
  const why = isDiskFull(error) ? 'the disk is full' : `the file system failed (${code ?? 'error'})`
  return new HeError('STORE_UNAVAILABLE', `the key store could not ${action}: ${why}; retry later`, {
    cause: error,
    details: { retryAfterSeconds: STORE_RETRY_AFTER_SECONDS, reason: 'failed' },
  })
}
