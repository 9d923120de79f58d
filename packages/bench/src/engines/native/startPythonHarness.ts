import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { BenchError } from '../../BenchError.ts'

const HERE = fileURLToPath(new URL('./', import.meta.url))

/** A running Python harness: one JSON value per line each way. */
export interface PythonHarness {
  send(value: unknown): void
  /** Ends its input and stops it. */
  close(): void
}

/**
 * Starts `script` (a harness of this folder) with `python` (the bench venv's), one JSON
 * value per line over stdin/stdout. Every line it prints goes to `onLine` parsed, or to
 * `onUnreadable`; its exit, with the tail of its stderr, to `onExit`.
 */
export function startPythonHarness(options: {
  python: string
  script: string
  name: string
  onLine: (value: unknown) => void
  onUnreadable: (error: BenchError) => void
  onExit: (error: BenchError) => void
}): PythonHarness {
  const child = spawn(options.python, [options.script], { cwd: HERE, stdio: ['pipe', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4000)
  })
  createInterface({ input: child.stdout }).on('line', (line) => {
    let value: unknown
    try {
      value = JSON.parse(line)
    } catch (error) {
      options.onUnreadable(
        new BenchError('ENGINE_FAILED', `${options.name}: unreadable output line: ${line.slice(0, 200)}`, {
          cause: error,
        }),
      )
      return
    }
    options.onLine(value)
  })
  child.on('close', (code) =>
    options.onExit(new BenchError('ENGINE_FAILED', `${options.name} exited with code ${code}: ${stderr.trim()}`)),
  )
  return {
    send: (value) => child.stdin.write(`${JSON.stringify(value)}\n`),
    close: () => {
      child.stdin.end()
      if (child.exitCode === null && child.signalCode === null) child.kill()
    },
  }
}
