import { HeError } from '@sealbox/he-core'
import type { FastifyReply, FastifyRequest } from 'fastify'

// JSON params, query strings and bodies are validated by the routes' contract schemas
// (routeFromContract); what is left here is the binary body and the request's plumbing.

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

/** Aborts when the client disconnects before the response is sent (cancels waiting work). */
export function clientGoneSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController()
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort()
  })
  return controller.signal
}
