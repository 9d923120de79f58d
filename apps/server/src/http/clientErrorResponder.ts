import { randomUUID } from 'node:crypto'
import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import { HE_ERROR_HTTP_STATUS, HeError } from '@sealbox/he-core'
import type { FastifyBaseLogger } from 'fastify'
import { errorBody } from './sendError.ts'

/** Node's `clientError`: what went wrong on the connection before (or while) Fastify had a request. */
type ClientError = Error & { code?: string }

/**
 * Answers Node's connection-level errors in our error shape, on the raw socket, then
 * closes it: a request (headers and body) not received within REQUEST_TIMEOUT_MS
 * (`requestTimeout` — a dripped body is cut here, at the deadline), a request line and
 * headers past Node's `maxHeaderSize`, and unparseable HTTP. Each answer carries a fresh
 * request id, logged with the reason.
 */
export function clientErrorResponder(options: {
  requestTimeoutMs: number
}): (this: { log: FastifyBaseLogger }, error: ClientError, socket: Socket) => void {
  return function respond(error, socket) {
    // A reset connection has nobody left to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return
    const heError = describe(error, options.requestTimeoutMs)
    const requestId = randomUUID()
    this.log.info({ reqId: requestId, code: error.code, err: error }, `connection refused: ${heError.code}`)
    // A response already under way on this socket cannot be replaced by another one.
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage
    if (!socket.writable || inFlight?.headersSent) {
      socket.destroy()
      return
    }
    const status = HE_ERROR_HTTP_STATUS[heError.code]
    const body = JSON.stringify(errorBody(heError))
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
        'content-type: application/json; charset=utf-8\r\n' +
        `content-length: ${Buffer.byteLength(body)}\r\n` +
        `x-request-id: ${requestId}\r\n` +
        'connection: close\r\n\r\n' +
        body,
      // Whatever the client still sends is not read: the connection goes once the answer is out.
      () => socket.destroy(),
    )
  }
}

function describe(error: ClientError, requestTimeoutMs: number): HeError {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new HeError(
        'REQUEST_TIMEOUT',
        `the request (headers and body) did not arrive within ${requestTimeoutMs} ms (REQUEST_TIMEOUT_MS)`,
        { details: { limitMs: requestTimeoutMs } },
      )
    case 'HPE_HEADER_OVERFLOW':
      return new HeError('HEADERS_TOO_LARGE', 'the request line and headers are larger than this server accepts')
    default:
      return new HeError('INVALID_INPUT', 'the request is not valid HTTP/1.1')
  }
}
