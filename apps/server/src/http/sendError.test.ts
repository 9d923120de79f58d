import { randomUUID } from 'node:crypto'
import { Writable } from 'node:stream'
import { HeError } from '@sealbox/he-core'
import Fastify from 'fastify'
import { describe, expect, it } from 'vitest'
import { sendError } from './sendError.ts'

/** A Fastify app whose routes fail as a worker's I/O or our own code might, and its log lines. */
function appWithLog() {
  const lines: Array<Record<string, unknown>> = []
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>)
      done()
    },
  })
  const app = Fastify({ logger: { level: 'info', stream }, genReqId: () => randomUUID() })
  app.setErrorHandler((error, request, reply) => sendError(request, reply, error))
  app.get('/io', async () => {
    // What a worker's failed read looks like once it crossed the thread boundary.
    throw HeError.fromJSON({
      code: 'INTERNAL',
      message: "EACCES: permission denied, open '/srv/sealbox/keysets/t/blobs/ab.sbx'",
      cause: 'Error: EACCES',
    })
  })
  app.get('/bug', async () => {
    throw new TypeError("Cannot read properties of undefined (reading 'x') at /srv/app/src/thing.ts")
  })
  app.get('/client', async () => {
    throw new HeError('INVALID_ENVELOPE', 'SEAL could not load the data', {
      cause: new Error('loaded SEALHeader is invalid'),
    })
  })
  return { app, lines }
}

describe('sendError', () => {
  it('answers INTERNAL with the request id only; the log has the original at error level', async () => {
    const { app, lines } = appWithLog()
    for (const url of ['/io', '/bug']) {
      const response = await app.inject({ method: 'GET', url })
      const body = response.json() as { error: { code: string; message: string; details: { requestId: string } } }
      expect(response.statusCode).toBe(500)
      expect(body.error.code).toBe('INTERNAL')
      expect(body.error.message).toBe(
        `internal error: the server log has the details under request id ${body.error.details.requestId}`,
      )
      expect(response.body).not.toContain('/srv/')
      const logged = lines.filter((line) => line.reqId === body.error.details.requestId && line.level === 50)
      expect(JSON.stringify(logged)).toContain('/srv/')
    }
    await app.close()
  })

  it('keeps a client error as it is, without a request id in its details; its cause goes to the info log', async () => {
    const { app, lines } = appWithLog()
    const response = await app.inject({ method: 'GET', url: '/client' })
    expect(response.statusCode).toBe(400)
    expect(response.json()).toEqual({
      error: {
        code: 'INVALID_ENVELOPE',
        message: 'SEAL could not load the data',
        hint: 'The bytes are not a sealbox envelope, or it is truncated.',
      },
    })
    expect(JSON.stringify(lines.filter((line) => line.level === 30))).toContain('loaded SEALHeader is invalid')
    await app.close()
  })
})
