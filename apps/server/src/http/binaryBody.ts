import { HeError } from '@sealbox/he-core'
import type { FastifyRequest } from 'fastify'

// JSON params, query strings and bodies are validated by the routes' contract schemas
// (routeFromContract); an envelope body is binary, so it is checked here.

/** The media type of a request without parameters, lower case ('' when absent). */
export function mediaType(request: FastifyRequest): string {
  return (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? ''
}

/**
 * A binary (envelope) body as a plain Uint8Array over the same memory: node-seal's
 * loaders refuse Node Buffers. Wrong media type and empty bodies are refused here.
 */
export function binaryBody(request: FastifyRequest): Uint8Array {
  if (mediaType(request) !== 'application/octet-stream') {
    throw new HeError(
      'UNSUPPORTED_MEDIA_TYPE',
      `send the envelope bytes as application/octet-stream (got ${mediaType(request) || 'no content type'})`,
    )
  }
  const body = request.body
  if (!(body instanceof Uint8Array) || body.byteLength === 0) {
    throw new HeError('INVALID_INPUT', 'empty body: expected sealbox envelope bytes')
  }
  return new Uint8Array(body.buffer, body.byteOffset, body.byteLength)
}
