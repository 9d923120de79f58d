import { Worker } from 'node:worker_threads'
import { describe, expect, it } from 'vitest'
import { DiagonalMemory } from './DiagonalMemory.ts'
import { RingError } from './RingError.ts'
import { RnsKernel } from './RnsKernel.ts'

const encoder = new TextEncoder()

// A worker that attaches to a shared diagonal memory, waits for it to settle and reports
// its metadata and the sum of the words it names (plain JavaScript: no loader needed).
const ATTACHER = `
const { parentPort, workerData } = require('node:worker_threads')
const header = new Int32Array(workerData.memory.buffer, 0, 8)
parentPort.postMessage({ type: 'waiting', state: Atomics.load(header, 0) })
;(async () => {
  // A pending waitAsync alone lets the thread exit.
  const keepAlive = setInterval(() => {}, 60000)
  while (Atomics.load(header, 0) === 1) {
    const wait = Atomics.waitAsync(header, 0, 1)
    if (wait.async) await wait.value
  }
  const u32 = new Uint32Array(workerData.memory.buffer)
  const meta = JSON.parse(new TextDecoder().decode(new Uint8Array(workerData.memory.buffer, u32[3], u32[4]).slice()))
  let sum = 0
  for (let i = 0; i < meta.words; i++) sum += u32[meta.at / 4 + i]
  clearInterval(keepAlive)
  parentPort.postMessage({ type: 'done', state: Atomics.load(header, 0), meta, sum })
})()
`

describe('DiagonalMemory', () => {
  it('elects one builder, publishes its metadata and can be given up and claimed again', () => {
    const memory = DiagonalMemory.create({ shared: true })
    expect(memory.state).toBe('empty')
    expect(memory.claim(7)).toBe(true)
    expect(memory.claim(8)).toBe(false)
    expect(memory.builder).toBe(7)
    const at = memory.alloc(1000)
    expect(at % 16).toBe(0)
    memory.words(at, 1000).fill(3)
    expect(memory.release(8)).toBe(false)
    expect(memory.release(7)).toBe(true)
    expect(memory.state).toBe('empty')
    expect(memory.claim(8)).toBe(true)
    // The region is handed out again from the start after a release.
    expect(memory.alloc(10)).toBe(at)
    memory.publish(encoder.encode('{"x":1}'))
    expect(memory.state).toBe('ready')
    expect(new TextDecoder().decode(memory.metadata())).toBe('{"x":1}')
    expect(() => memory.publishUnused()).toThrow(RingError)
  })

  it('grows past a page and refuses what is not a shared memory to attach', () => {
    const memory = DiagonalMemory.create()
    memory.claim(1)
    const at = memory.alloc(3 * 65536)
    memory.words(at, 3 * 65536).fill(9)
    expect(memory.memoryBytes).toBeGreaterThanOrEqual(at + 12 * 65536)
    expect(memory.words(at + 4 * (3 * 65536 - 1), 1)[0]).toBe(9)
    expect(() => DiagonalMemory.attach(memory.memory)).toThrow(RingError)
    expect(() => DiagonalMemory.attach({})).toThrow(RingError)
  })

  it('hands what one thread built to another thread that waited for it, without a copy', async () => {
    const memory = DiagonalMemory.create({ shared: true })
    expect(memory.claim(1)).toBe(true)
    const worker = new Worker(ATTACHER, { eval: true, workerData: { memory: memory.memory } })
    const messages: { type: string; state: number; meta?: { at: number; words: number }; sum?: number }[] = []
    const done = new Promise<void>((resolve, reject) => {
      worker.on('message', (message) => {
        messages.push(message)
        if (message.type === 'waiting') {
          // Built only once the other thread is waiting: it must be woken, not find it ready.
          const words = 70_000
          const at = memory.alloc(words)
          memory.words(at, words).fill(2)
          memory.publish(encoder.encode(JSON.stringify({ at, words })))
        }
        if (message.type === 'done') resolve()
      })
      worker.on('error', reject)
    })
    await done
    await worker.terminate()
    expect(messages[0]).toEqual({ type: 'waiting', state: 1 })
    expect(messages[1]?.state).toBe(2)
    expect(messages[1]?.sum).toBe(140_000)
  })

  it('backs a kernel in another memory than its heap: the kernel heap holds no diagonal', () => {
    const shape = { polyModulusDegree: 16, keyPrimes: [2147483489n, 2147483137n], plainModulus: 65537n }
    const own = new RnsKernel({ ...shape, galoisElements: [] })
    const diagonals = DiagonalMemory.create({ shared: true })
    diagonals.claim(1)
    const kernel = new RnsKernel({ ...shape, galoisElements: [] }, { diagonals })
    expect(kernel.diagonals).toBe(diagonals)
    expect(kernel.heapBytes).toBe(own.heapBytes)
    diagonals.alloc(1 << 20)
    expect(kernel.heapBytes).toBe(own.heapBytes)
  })
})
