import { z } from 'zod'
import type { HeError } from '../../errors/HeError.ts'
import { HE_ERROR_CODES } from '../../errors/heErrorCodes.ts'

/** What went wrong, in every error reply: a code from he-core's closed set, the reason, what to do, plain facts. */
export const HeErrorBodySchema = z
  .object({
    code: z.enum(HE_ERROR_CODES),
    message: z.string(),
    /** What a person can do about it (he-core's hint for the code). */
    hint: z.string(),
    /** Plain values only (numbers, strings, lists of them): limits, the request id, Retry-After seconds. */
    details: z.record(z.string(), z.unknown()).optional(),
  })
  .strict()
export type HeErrorBody = z.infer<typeof HeErrorBodySchema>

/** The JSON body of every error reply: `{ error: { code, message, hint, details? } }`. */
export const ErrorReplySchema = z.object({ error: HeErrorBodySchema }).strict()
export type ErrorReply = z.infer<typeof ErrorReplySchema>

/**
 * An `HeError` as the `error` of a reply: no stack and no cause (those are for logs).
 * `details` replaces the error's own when the sender filters what may leave it.
 */
export function heErrorBody(error: HeError, details: Record<string, unknown> | undefined = error.details): HeErrorBody {
  return {
    code: error.code,
    message: error.message,
    hint: error.hint,
    ...(details === undefined ? {} : { details }),
  }
}
