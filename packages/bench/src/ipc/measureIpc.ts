/**
 * `pnpm --filter @sealbox/bench benchmark:ipc`:
 * the round trip of a job message and its reply between the server and a worker
 * process, over the two channels the `process` executor could use — Node's IPC channel
 * (`fork` with `serialization: 'advanced'`, what it uses) and a Unix socket with
 * length-prefixed v8-serialized frames (what it used before) — interleaved in rounds,
 * medians per round. Writes packages/bench/results/ipc/ipc.{md,json}.
 */
import { type ChildProcess, fork } from 'node:child_process'
import { rm } from 'node:fs/promises'
import { createServer, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import process from 'node:process'
import { fileURLToPath } from 'node:url'
import { deserialize, serialize } from 'node:v8'
import { z } from 'zod'
import { defineCli } from '../cli/defineCli.ts'
import { median } from '../harness/stats.ts'
import { loadAverage, machineInfo } from '../report/machineInfo.ts'
import { writeStampedReport } from '../report/writeReportFiles.ts'

const ECHO = fileURLToPath(new URL('./ipcEcho.ts', import.meta.url))
const OUT = fileURLToPath(new URL('../../results/ipc/', import.meta.url))
const ROUNDS = 7
const CALLS = 300
/** A default search query (16 seeded zstd ciphertexts) and its response; a one-ciphertext query. */
const CASES = [
  { label: 'search query 571 KB → response 105 KB', up: 571_066, down: 105_664 },
  { label: 'one ciphertext 35 KB → response 105 KB', up: 35_000, down: 105_664 },
]

type Channel = { call(id: number, bytes: Uint8Array): Promise<void>; close(): void }

async function forkChannel(down: number): Promise<Channel> {
  const child = fork(ECHO, [], { serialization: 'advanced', env: { ...process.env, IPC_REPLY_BYTES: String(down) } })
  return {
    call: (id, bytes) =>
      new Promise((resolve) => {
        child.once('message', () => resolve())
        child.send({ id, bytes })
      }),
    close: () => child.kill(),
  }
}

async function socketChannel(down: number): Promise<Channel> {
  const path = join(tmpdir(), `sealbox-ipc-${process.pid}.sock`)
  await rm(path, { force: true })
  let socket: Socket | undefined
  const server = createServer((s) => {
    socket = s
  })
  await new Promise<void>((resolve) => server.listen(path, resolve))
  const child: ChildProcess = fork(ECHO, [], {
    env: { ...process.env, IPC_REPLY_BYTES: String(down), IPC_SOCKET: path },
  })
  while (!socket) await new Promise((resolve) => setTimeout(resolve, 5))
  const connected = socket
  let buffered = Buffer.alloc(0)
  let waiting: (() => void) | undefined
  connected.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk])
    if (buffered.length < 4) return
    const length = buffered.readUInt32BE(0)
    if (buffered.length < 4 + length) return
    deserialize(buffered.subarray(4, 4 + length))
    buffered = buffered.subarray(4 + length)
    waiting?.()
  })
  return {
    call: (id, bytes) =>
      new Promise((resolve) => {
        waiting = resolve
        const body = serialize({ id, bytes })
        const header = Buffer.alloc(4)
        header.writeUInt32BE(body.length, 0)
        connected.write(Buffer.concat([header, body]))
      }),
    close: () => {
      child.kill()
      server.close()
    },
  }
}

async function timeCalls(channel: Channel, up: number): Promise<number> {
  const bytes = new Uint8Array(up)
  const times: number[] = []
  for (let i = 0; i < CALLS; i++) {
    const started = performance.now()
    await channel.call(i, bytes)
    times.push(performance.now() - started)
  }
  channel.close()
  return median(times)
}

const cli = defineCli({
  command: 'pnpm --filter @sealbox/bench benchmark:ipc --',
  summary: `Takes no flags: ${ROUNDS} interleaved rounds of ${CALLS} calls per case; writes packages/bench/results/ipc/ipc.{md,json}.`,
  flags: z.object({}).strict(),
})
try {
  if (cli.parse(process.argv.slice(2)) === 'help') {
    process.stdout.write(`${cli.help()}\n`)
    process.exit(0)
  }
} catch (error) {
  process.stderr.write(`benchmark:ipc: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exit(2)
}

const results = []
for (const { label, up, down } of CASES) {
  const fork: number[] = []
  const socket: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    fork.push(await timeCalls(await forkChannel(down), up))
    socket.push(await timeCalls(await socketChannel(down), up))
  }
  results.push({ label, up, down, forkMs: fork, socketMs: socket, ratio: median(fork) / median(socket) })
  process.stderr.write(`${label}: fork ${median(fork).toFixed(3)} ms, socket ${median(socket).toFixed(3)} ms\n`)
}
const load = loadAverage()
const markdown = [
  '# Worker-process IPC: fork channel vs framed Unix socket',
  '',
  `Round trip of one message and its reply, median of ${CALLS} calls per round, ${ROUNDS} interleaved rounds (median of the round medians). Load average ${load.join(' / ')}; ${machineInfo().cpuModel}, ${machineInfo().cores} cores, Node ${process.version}.`,
  '',
  '| message | fork, advanced serialization | framed Unix socket | fork ÷ socket |',
  '| --- | ---: | ---: | ---: |',
  ...results.map(
    (r) =>
      `| ${r.label} | ${median(r.forkMs).toFixed(3)} ms | ${median(r.socketMs).toFixed(3)} ms | ${r.ratio.toFixed(2)}× |`,
  ),
  '',
].join('\n')
process.stdout.write(
  await writeStampedReport({
    markdownPath: join(OUT, 'ipc.md'),
    jsonPath: join(OUT, 'ipc.json'),
    markdown,
    json: { date: new Date().toISOString(), loadAverage: load, machine: machineInfo(), results },
  }),
)
