import { describe, expect, it } from 'vitest'
import type { HarnessCommand, HarnessEvent } from '../protocol/benchProtocol.ts'
import { HarnessConnection } from './HarnessConnection.ts'

/**
 * A harness at the far end of a real MessageChannel: it answers each command with a `phase`
 * event then its `ack`, except the commands `silent` names, which it never answers.
 */
function channelHarness(silent: ReadonlySet<HarnessCommand['type']> = new Set()) {
  const { port1, port2 } = new MessageChannel()
  const events: HarnessEvent[] = []
  const sent: HarnessCommand[] = []
  const connection = new HarnessConnection(
    'test',
    (event) => events.push(event),
    (command) => {
      sent.push(command)
      port1.postMessage(command)
    },
  )
  port2.onmessage = (message: MessageEvent<HarnessCommand>) => {
    const command = message.data
    if (silent.has(command.type)) return
    port2.postMessage({ type: 'phase', n: command.seq, label: command.type })
    port2.postMessage({ type: 'ack', seq: command.seq })
  }
  port1.onmessage = (message: MessageEvent<unknown>) => connection.accept(message.data)
  const close = () => {
    port1.close()
    port2.close()
  }
  return { connection, events, sent, close }
}

describe('HarnessConnection', () => {
  it('numbers commands from 0 and resolves each on its ack, after its events', async () => {
    const { connection, events, sent, close } = channelHarness()
    try {
      await connection.request({ type: 'warmup' }, 60_000)
      await connection.request({ type: 'cell', op: 'add' }, 60_000)
      expect(sent.map((command) => command.seq)).toEqual([0, 1])
      expect(events).toEqual([
        { type: 'phase', n: 0, label: 'warmup' },
        { type: 'phase', n: 1, label: 'cell' },
      ])
    } finally {
      close()
    }
  })

  it('gives the engine up when a command goes unanswered: every pending and later command fails', async () => {
    const { connection, close } = channelHarness(new Set(['cell', 'close']))
    try {
      const waiting = connection.request({ type: 'close' }, 60_000)
      const timed = connection.request({ type: 'cell', op: 'multiply' }, 20)
      await expect(timed).rejects.toMatchObject({
        code: 'TIMEOUT',
        message: 'test: no answer to "cell multiply" after 0 s',
      })
      await expect(waiting).rejects.toMatchObject({ code: 'TIMEOUT' })
      await expect(connection.request({ type: 'warmup' }, 60_000)).rejects.toMatchObject({ code: 'TIMEOUT' })
    } finally {
      close()
    }
  })

  it('fails the engine on a malformed event or an error event', async () => {
    const malformed = channelHarness(new Set(['warmup']))
    try {
      const pending = malformed.connection.request({ type: 'warmup' }, 60_000)
      malformed.connection.accept({ type: 'ack', seq: 'zero' })
      await expect(pending).rejects.toMatchObject({ code: 'ENGINE_FAILED' })
    } finally {
      malformed.close()
    }
    const crashed = channelHarness(new Set(['warmup']))
    try {
      const pending = crashed.connection.request({ type: 'warmup' }, 60_000)
      crashed.connection.accept({ type: 'error', message: 'SEAL threw' })
      await expect(pending).rejects.toMatchObject({ code: 'ENGINE_FAILED', message: 'test: SEAL threw' })
    } finally {
      crashed.close()
    }
  })
})
