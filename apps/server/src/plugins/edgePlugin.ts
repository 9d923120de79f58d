import type { ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { HeError } from '@sealbox/he-core'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { AllowedMethods } from '../http/AllowedMethods.ts'
import { MAX_URL_CHARS, urlTooLong } from '../http/frameworkError.ts'
import { sendError } from '../http/sendError.ts'

/**
 * A body up to this size that was answered before it arrived is still read (and
 * discarded) by Node, keeping the connection usable: cheap, and every client sees the
 * answer. A larger or unsized one closes the connection instead.
 */
export const EARLY_ANSWER_DRAIN_BYTES = 1024 * 1024

/** How long a closing connection answered before its body arrived stays open for the client to read the answer. */
export const EARLY_ANSWER_LINGER_MS = 2000

/** Longest path quoted back in a 404 message. */
const MAX_QUOTED_PATH = 120

/**
 * The HTTP edge every response shares (registered before any route): URLs past
 * MAX_URL_CHARS are refused (414) before any other work; every response carries
 * `x-request-id` (Fastify's request id, a random UUID — the id in the log lines of that
 * request); a response sent before the request's body has arrived (a 401, a 413, a 404)
 * closes the connection unless that body is small, or Node would read and discard the
 * rest of a body that may be 60 MiB long; answers finished during shutdown close their
 * connection; and an unknown method on a known path is 405 with `Allow`, an unknown
 * path 404.
 */
async function edge(app: FastifyInstance): Promise<void> {
  const allowed = new AllowedMethods()
  allowed.track(app)
  app.addHook('onRequest', async (request) => {
    if (request.url.length > MAX_URL_CHARS) throw urlTooLong(request.url.length)
  })
  // Decided before Fastify looks at the body (after every onRequest hook, so the answer has
  // the security headers): a QUERY without Content-Type (RFC 10008) or a body of an unknown
  // type would otherwise be a 400 or 415 on a path that does not take that method, or does not exist.
  app.addHook('preParsing', async (request, reply, payload) => {
    if (request.is404) throw notRouted(request, reply, allowed)
    return payload
  })
  let closing = false
  // Node's server.close() closes idle keep-alive connections once, not those that go
  // idle later: answers finished during shutdown close their connection themselves.
  app.addHook('preClose', async () => {
    closing = true
  })
  app.addHook('onSend', async (request, reply, payload) => {
    reply.header('x-request-id', request.id)
    if (closing) reply.header('connection', 'close')
    if (!request.raw.complete && !(Number(request.headers['content-length']) <= EARLY_ANSWER_DRAIN_BYTES)) {
      reply.header('connection', 'close')
      lingerAfterEarlyAnswer(reply.raw, request.raw.socket)
    }
    return payload
  })
  app.setNotFoundHandler((request, reply) => {
    return sendError(request, reply, notRouted(request, reply, allowed))
  })
}

/**
 * The answer to a request no route takes: METHOD_NOT_ALLOWED with `Allow` set on `reply`
 * when its path is known with other methods, else NOT_FOUND.
 */
function notRouted(request: FastifyRequest, reply: FastifyReply, allowed: AllowedMethods): HeError {
  const path = request.url.split('?')[0] ?? ''
  const methods = allowed.for(path)
  if (methods.length > 0) {
    reply.header('allow', methods.join(', '))
    return new HeError('METHOD_NOT_ALLOWED', `${request.method} is not allowed here; use ${methods.join(', ')}`, {
      details: { allow: methods },
    })
  }
  const quoted = path.length > MAX_QUOTED_PATH ? `${path.slice(0, MAX_QUOTED_PATH)}…` : path
  return new HeError('NOT_FOUND', `no route ${request.method} ${quoted}`)
}

export const edgePlugin = fp(edge, { name: 'sealbox-edge', fastify: '5.x' })

/**
 * A response sent before a large body arrived closes the connection, but not at once:
 * Node half-closes the socket when the answer is out and then destroys it, and a client
 * still writing its body gets a reset that can arrive before it has read our answer
 * (EPIPE instead of the 401). So the socket lingers, as Apache's and nginx's lingering
 * close do, but without reading: the rest of the body stays in the kernel's buffers, and
 * the socket is destroyed when the client closes its side or EARLY_ANSWER_LINGER_MS pass.
 * A client that reads only once its upload is done (fetch does) still sees a reset
 * rather than the answer for a large body: the price of not draining it.
 */
function lingerAfterEarlyAnswer(response: ServerResponse, socket: Socket): void {
  response.once('finish', () => {
    if (socket.destroyed) return
    // Node's `destroySoon` (called as the response finished, since it said `connection: close`)
    // destroys the socket when its FIN is out; keep it open for reading instead.
    socket.removeListener('finish', socket.destroy)
    // Node resumes the request to discard its body once the answer is out (`_dump`); reading
    // stops a tick later, at the socket's handle, so the rest stays in the kernel's buffers.
    setImmediate(() => (socket as Socket & { _handle?: { readStop?: () => void } })._handle?.readStop?.())
    const timer = setTimeout(() => socket.destroy(), EARLY_ANSWER_LINGER_MS)
    timer.unref()
    socket.once('end', () => socket.destroy())
    socket.once('close', () => clearTimeout(timer))
  })
}
