import { HeError } from '@sealbox/he-core'
import type { FastifyError } from 'fastify'

/** Longest URL (path and query) the server reads: no route needs more than a few hundred characters. */
export const MAX_URL_CHARS = 4096

/**
 * The router's limit on one path parameter, above any URL Node lets through (its
 * `maxHeaderSize`, 16 KiB): long URLs reach `urlTooLong`, long ids the routes' own checks.
 */
export const MAX_PARAM_CHARS = 16 * 1024

/** URI_TOO_LONG for a URL past MAX_URL_CHARS (the URL itself is never echoed). */
export function urlTooLong(length: number): HeError {
  return new HeError(
    'URI_TOO_LONG',
    `the URL is ${length} characters long; this server reads at most ${MAX_URL_CHARS}`,
    {
      details: { limit: MAX_URL_CHARS },
    },
  )
}

/**
 * Errors Fastify's router raises before any route runs (`frameworkErrors`), in our
 * shape and words. Fastify's own messages quote the URL back; ours never do, since
 * a URL can be anything a client chose to send.
 */
export function frameworkError(error: FastifyError): HeError {
  switch (error.code) {
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new HeError('URI_TOO_LONG', `a path segment is longer than ${MAX_PARAM_CHARS} characters`, {
        details: { limit: MAX_PARAM_CHARS },
      })
    case 'FST_ERR_BAD_URL':
      return new HeError('INVALID_INPUT', 'the URL is not valid (malformed percent-encoding)')
    default:
      return new HeError('INTERNAL', 'routing failed', { cause: error })
  }
}
