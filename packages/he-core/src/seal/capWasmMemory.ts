import { HeError } from '../errors/HeError.ts'

/** Bytes of one WebAssembly page. */
const PAGE = 65_536

function readLeb(bytes: Uint8Array, offset: number): { value: number; next: number } {
  let value = 0
  let shift = 0
  let at = offset
  for (;;) {
    const byte = bytes[at++]
    if (byte === undefined) throw new HeError('INVALID_INPUT', 'truncated WebAssembly binary')
    value += (byte & 0x7f) * 2 ** shift
    shift += 7
    if ((byte & 0x80) === 0) return { value, next: at }
  }
}

function leb(value: number): number[] {
  const out: number[] = []
  let rest = value
  do {
    const byte = rest % 128
    rest = Math.floor(rest / 128)
    out.push(rest === 0 ? byte : byte | 0x80)
  } while (rest !== 0)
  return out
}

/**
 * A copy of a WebAssembly binary whose (one, 32-bit) memory may grow to at most
 * `maxBytes` (whole pages). node-seal's heap otherwise grows to the 4 GiB cap of 32-bit
 * WebAssembly; with a lower maximum, an allocation past it fails the same way — SEAL
 * throws std::bad_alloc — at a bound the host chose, so a worker's heap budget is
 * enforced by the engine itself rather than by the estimate alone.
 */
export function capWasmMemory(binary: Uint8Array, maxBytes: number): Uint8Array<ArrayBuffer> {
  const maxPages = Math.max(1, Math.floor(maxBytes / PAGE))
  let at = 8
  while (at < binary.length) {
    const id = binary[at] as number
    const size = readLeb(binary, at + 1)
    const start = size.next
    const end = start + size.value
    if (id === 5) {
      const count = readLeb(binary, start)
      if (count.value !== 1) throw new HeError('INVALID_INPUT', 'expected one memory in the WebAssembly binary')
      const flags = binary[count.next] as number
      if (flags !== 0 && flags !== 1) throw new HeError('INVALID_INPUT', 'only a 32-bit unshared memory can be capped')
      const min = readLeb(binary, count.next + 1)
      const pages = Math.max(min.value, maxPages)
      const afterLimits = flags === 1 ? readLeb(binary, min.next).next : min.next
      const payload = [...leb(1), 1, ...leb(min.value), ...leb(pages), ...binary.subarray(afterLimits, end)]
      const section = [5, ...leb(payload.length), ...payload]
      const out = new Uint8Array(at + section.length + (binary.length - end))
      out.set(binary.subarray(0, at), 0)
      out.set(section, at)
      out.set(binary.subarray(end), at + section.length)
      return out
    }
    at = end
  }
  throw new HeError('INVALID_INPUT', 'the WebAssembly binary defines no memory (an imported one cannot be capped here)')
}
