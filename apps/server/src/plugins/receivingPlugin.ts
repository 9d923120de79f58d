import { HeError } from '@sealbox/he-core'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { ReceivedBodyStream } from '../http/ReceivedBodyStream.ts'
import { ReceivingBudget } from '../http/ReceivingBudget.ts'

/**
 * Bounds the request bodies being received (`ReceivingBudget`): a `preParsing` hook, so it
 * runs after authentication (the API's `onRequest`, which names the tenant) and before a
 * byte of the body is read. A refused body is answered at once with `Connection: close`,
 * so its bytes are never read; an admitted one holds its reservation until its answer is
 * sent or its connection ends.
 */
async function receiving(app: FastifyInstance): Promise<void> {
  const { config, metrics } = app.sealbox
  const budget = new ReceivingBudget({
    nodeBytes: config.RECEIVING_BYTES,
    addressBytes: config.ADDRESS_RECEIVING_BYTES,
    tenantBytes: config.TENANT_RECEIVING_BYTES,
    requestTimeoutMs: config.REQUEST_TIMEOUT_MS,
  })
  metrics.watchReceiving(budget)
  app.addHook('preParsing', async (request, reply, payload) => {
    const declared = request.headers['content-length']
    const streamed = declared === undefined && request.headers['transfer-encoding'] !== undefined
    const length = Number(declared ?? 0)
    if (!streamed && !(length > 0)) return payload
    // Past the route's body limit Fastify answers 413 without reading it: nothing to reserve.
    if (!streamed && length > request.routeOptions.bodyLimit) return payload
    // request.tenant is decorated by the API plugin only, and null on its anonymous routes.
    const tenant = (request.tenant as { id?: string } | null | undefined)?.id
    let reservation: ReturnType<ReceivingBudget['reserve']>
    try {
      reservation = budget.reserve({ address: request.ip, ...(tenant ? { tenant } : {}) }, streamed ? 0 : length)
    } catch (error) {
      metrics.receivingRefused()
      reply.header('connection', 'close')
      throw error
    }
    // 'close' comes once the answer is sent or the connection is gone (abort, timeout).
    reply.raw.once('close', reservation.release)
    const counted = new ReceivedBodyStream(reservation, streamed)
    counted.once('error', (error) => {
      if (!(error instanceof HeError)) return
      // Refused mid-body: the answer goes out and the connection closes, the rest is never read.
      metrics.receivingRefused()
      reply.header('connection', 'close')
    })
    // Not pipeline(): it would destroy the socket on a refusal, before the 429 could be sent.
    payload.once('error', (error) => counted.destroy(error))
    return payload.pipe(counted)
  })
}

/** After the edge: its preParsing hook answers 404/405 before anything is reserved. */
export const receivingPlugin = fp(receiving, {
  name: 'sealbox-receiving',
  fastify: '5.x',
  dependencies: ['sealbox-services', 'sealbox-edge'],
})
