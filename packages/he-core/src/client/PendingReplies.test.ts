import { describe, expect, it } from 'vitest'
import { HeError } from '../errors/HeError.ts'
import { PendingReplies } from './PendingReplies.ts'

/** A peer over a real MessageChannel that answers each request with its id and `value * 2`. */
function doublingPeer() {
  const { port1, port2 } = new MessageChannel()
  port2.onmessage = (event: MessageEvent<{ id: number; value: number }>) => {
    if (event.data.value >= 0) port2.postMessage({ id: event.data.id, doubled: event.data.value * 2 })
    // A negative value is never answered: the request waits for its timeout or its peer's death.
  }
  const replies = new PendingReplies<number>()
  port1.onmessage = (event: MessageEvent<{ id: number; doubled: number }>) =>
    replies.resolve(event.data.id, event.data.doubled)
  const ask = (value: number, timeoutMs?: number) =>
    replies.request((id) => port1.postMessage({ id, value }), timeoutMs === undefined ? {} : { timeoutMs })
  const close = () => {
    port1.close()
    port2.close()
  }
  return { replies, ask, close }
}

describe('PendingReplies', () => {
  it('pairs every reply with its request, whatever order the replies come in', async () => {
    const { replies, ask, close } = doublingPeer()
    try {
      const values = [3, 1, 4, 1, 5, 9, 2, 6]
      const answers = await Promise.all(values.map((value) => ask(value)))
      expect(answers).toEqual(values.map((value) => value * 2))
      expect(replies.size).toBe(0)
    } finally {
      close()
    }
  })

  it('numbers requests from firstId and ignores a reply to no pending request', async () => {
    const replies = new PendingReplies<string, { label: string }>({ firstId: 0 })
    const sent: number[] = []
    const first = replies.request((id) => sent.push(id), { context: { label: 'first' } })
    const second = replies.request((id) => sent.push(id))
    expect(sent).toEqual([0, 1])
    expect(replies.contextOf(0)).toEqual({ label: 'first' })
    expect(replies.resolve(7, 'stranger')).toBe(false)
    expect(replies.resolve(1, 'b')).toBe(true)
    expect(replies.resolve(1, 'again')).toBe(false)
    expect(replies.resolve(0, 'a')).toBe(true)
    expect(await Promise.all([first, second])).toEqual(['a', 'b'])
    expect(replies.contextOf(0)).toBeUndefined()
  })

  it('fails a request the peer never answers with TIMEOUT, and only that one', async () => {
    const { replies, ask, close } = doublingPeer()
    try {
      const unanswered = ask(-1, 20)
      const answered = ask(21)
      await expect(unanswered).rejects.toMatchObject({ code: 'TIMEOUT' })
      expect(await answered).toBe(42)
      expect(replies.size).toBe(0)
    } finally {
      close()
    }
  })

  it('hands a timeout to onTimeout when the caller gives up on the peer instead', async () => {
    const replies = new PendingReplies<number>()
    const gone = new HeError('WORKER_FAILED', 'the peer stopped answering')
    const other = replies.request(() => undefined)
    const timed = replies.request(() => undefined, { timeoutMs: 10, onTimeout: () => replies.fail(gone) })
    await expect(timed).rejects.toBe(gone)
    await expect(other).rejects.toBe(gone)
    await expect(replies.request(() => undefined)).rejects.toBe(gone)
  })

  it('rejects everything pending when the peer dies, and keeps serving a restarted peer', async () => {
    const replies = new PendingReplies<number>()
    const crashed = new HeError('WORKER_FAILED', 'the worker died')
    const pending = [replies.request(() => undefined), replies.request(() => undefined)]
    replies.rejectAll(crashed)
    for (const request of pending) await expect(request).rejects.toBe(crashed)
    const next = replies.request((id) => queueMicrotask(() => replies.resolve(id, 5)))
    expect(await next).toBe(5)
  })

  it('fails a request whose send throws with what it threw', async () => {
    const replies = new PendingReplies<number>()
    const closed = new HeError('WORKER_FAILED', 'the channel is closed')
    await expect(
      replies.request(() => {
        throw closed
      }),
    ).rejects.toBe(closed)
    expect(replies.size).toBe(0)
  })
})
