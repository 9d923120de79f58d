import { HeError } from '../errors/HeError.ts'

/** INVALID_PARAMS for a search config's `field`, the field named in the message and the details. */
export function invalidSearchParam(field: string, message: string, details: Record<string, unknown> = {}): HeError {
  return new HeError('INVALID_PARAMS', `${field}: ${message}`, { details: { field, ...details } })
}
