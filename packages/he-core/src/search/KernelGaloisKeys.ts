import { type GaloisKeyWords, galoisKeyWordsBytes, parseGaloisKeyWords } from '@sealbox/he-ring'
import type { GaloisKeys } from 'node-seal/throws'
import { z } from 'zod'
import { HeError } from '../errors/HeError.ts'
import { ringCall, sealCall } from '../errors/toHeError.ts'
import type { HeContext } from '../params/HeContext.ts'
import type { SearchKeys } from './SearchKeys.ts'

/** 'SBKW' read as a little-endian u32: the first word of the kernel form. */
const MAGIC = 0x574b4253
const VERSION = 1
/** Magic, version, header length. */
const PREFIX_BYTES = 12
const MAX_HEADER_BYTES = 64 * 1024

const HeaderSchema = z.object({
  fingerprint: z.string().min(1),
  keySetId: z.string().min(1),
  polyModulusDegree: z.number().int().positive(),
  keyPrimeCount: z.number().int().min(2),
  elements: z.array(z.number().int().positive()).min(1),
})
type Header = z.infer<typeof HeaderSchema>

/**
 * The parts of a context the kernel form depends on.
 * @internal
 */
export type KernelKeyContext = Pick<HeContext, 'fingerprint' | 'coeffPrimes' | 'seal'> & {
  facts: { polyModulusDegree: number }
}

function refuse(message: string): never {
  throw new HeError('INVALID_ENVELOPE', `kernel-form Galois keys: ${message}`)
}

/**
 * True when `bytes` start like a kernel form (the node's bytes cache holds both forms).
 * @internal
 */
export function isKernelGaloisKeyBytes(bytes: Uint8Array): boolean {
  if (bytes.byteLength < PREFIX_BYTES) return false
  return new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true) === MAGIC
}

/**
 * A user's Galois keys in the key-switching kernel's own form and nothing else: per
 * Galois element, the u32 residues `RnsKernel.useKeys` copies into its key slots — no
 * SEAL object, so nothing in SEAL's heap. One ArrayBuffer holds a small header and the
 * words, so the same memory is what a worker's cache keeps (`bytes`, exact), what
 * `toBytes` hands the node's bytes cache, and what `fromBytes` views again in another
 * worker after a structured clone: a worker miss is one copy and one pass that checks
 * each residue below its prime. At the default search params (n = 4096, two data
 * primes and the special prime, Galois elements for steps 1 and g) that is 384 KiB plus
 * the header per user, a third of SEAL's 64-bit keys plus the kernel's copy (1.13 MiB).
 * Fits `SearchKeys` (`kernelWords` instead of `galoisKeys`): only an index whose search
 * runs in the key-switching kernel takes it. Internal like the kernel: its form follows
 * the kernel's layout, which may change with it.
 * @internal
 */
export class KernelGaloisKeys implements SearchKeys {
  readonly keySetId: string
  readonly fingerprint: string
  /** Galois elements held, ascending. */
  readonly galoisElements: readonly number[]
  /** Bytes of memory these keys hold: the one buffer under the header and every word. */
  readonly bytes: number
  readonly galoisKeys = undefined
  #words: GaloisKeyWords | undefined
  #buffer: Uint8Array | undefined

  private constructor(header: Header, buffer: Uint8Array, words: GaloisKeyWords) {
    this.keySetId = header.keySetId
    this.fingerprint = header.fingerprint
    this.galoisElements = [...header.elements].sort((a, b) => a - b)
    this.bytes = buffer.buffer.byteLength
    this.#buffer = buffer
    this.#words = words
  }

  /**
   * Converts SEAL's Galois keys once — the SEAL load (and seed expansion) already
   * done by `keys`' owner — into the kernel form for `elements` (MISSING_KEY when one
   * is absent). Every residue is checked against its prime on the way (INVALID_ENVELOPE).
   */
  static fromSeal(
    ctx: KernelKeyContext,
    keys: { keySetId: string; galoisKeys: GaloisKeys | undefined },
    elements: readonly number[],
  ): KernelGaloisKeys {
    if (!keys.galoisKeys) throw new HeError('MISSING_KEY', 'the key set holds no Galois keys')
    const galoisKeys = keys.galoisKeys
    const n = ctx.facts.polyModulusDegree
    const wanted = [...new Set(elements)].sort((a, b) => a - b)
    const none = ctx.seal.ComprModeType.none as Parameters<GaloisKeys['saveToArray']>[0]
    const saved = sealCall('save Galois keys', () => galoisKeys.saveToArray(none) as Uint8Array)
    const parsed = ringCall('read Galois keys', () =>
      parseGaloisKeyWords({ polyModulusDegree: n, keyPrimes: ctx.coeffPrimes }, saved, wanted),
    )
    const header: Header = {
      fingerprint: ctx.fingerprint,
      keySetId: keys.keySetId,
      polyModulusDegree: n,
      keyPrimeCount: ctx.coeffPrimes.length,
      elements: wanted,
    }
    const json = new TextEncoder().encode(JSON.stringify(header))
    const wordsAt = alignedWordsAt(json.byteLength)
    const perElement = galoisKeyWordsBytes(n, ctx.coeffPrimes.length)
    const buffer = new Uint8Array(wordsAt + wanted.length * perElement)
    const view = new DataView(buffer.buffer)
    view.setUint32(0, MAGIC, true)
    view.setUint32(4, VERSION, true)
    view.setUint32(8, json.byteLength, true)
    buffer.set(json, PREFIX_BYTES)
    const map = new Map<number, Uint32Array>()
    for (const [i, element] of wanted.entries()) {
      const target = new Uint32Array(buffer.buffer, wordsAt + i * perElement, perElement / 4)
      target.set(parsed.elements.get(element) as Uint32Array)
      map.set(element, target)
    }
    return new KernelGaloisKeys(header, buffer, { elements: map, bytes: wanted.length * perElement })
  }

  /**
   * Views a kernel form made by `toBytes`: no copy when the bytes are a whole buffer (as
   * a structured clone's are); a copy when they start off a word boundary or sit inside
   * a larger buffer (a process message's), so the keys never keep more than their own
   * bytes alive and `bytes` stays exact. Refused with INVALID_ENVELOPE when the layout
   * or a residue is wrong, PARAMS_MISMATCH under other params: the kernel never runs
   * on words it did not check.
   */
  static fromBytes(ctx: KernelKeyContext, source: Uint8Array): KernelGaloisKeys {
    const whole = source.byteOffset === 0 && source.byteLength === source.buffer.byteLength
    const bytes = whole ? source : source.slice()
    if (!isKernelGaloisKeyBytes(bytes)) refuse('not a kernel form (wrong magic)')
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    const version = view.getUint32(4, true)
    if (version !== VERSION) refuse(`version ${version}, this server reads ${VERSION}`)
    const headerBytes = view.getUint32(8, true)
    if (headerBytes > MAX_HEADER_BYTES || PREFIX_BYTES + headerBytes > bytes.byteLength) {
      refuse(`a header of ${headerBytes} bytes`)
    }
    let header: Header
    try {
      const text = new TextDecoder('utf-8', { fatal: true }).decode(
        bytes.subarray(PREFIX_BYTES, PREFIX_BYTES + headerBytes),
      )
      header = HeaderSchema.parse(JSON.parse(text))
    } catch (error) {
      throw new HeError('INVALID_ENVELOPE', 'kernel-form Galois keys: the header is not valid', { cause: error })
    }
    if (header.fingerprint !== ctx.fingerprint) {
      throw new HeError('PARAMS_MISMATCH', 'the kernel-form keys were made under other encryption parameters', {
        details: { expected: ctx.fingerprint, found: header.fingerprint },
      })
    }
    const n = ctx.facts.polyModulusDegree
    const primes = ctx.coeffPrimes.map(Number)
    if (header.polyModulusDegree !== n || header.keyPrimeCount !== primes.length) {
      refuse(`made for n=${header.polyModulusDegree} with ${header.keyPrimeCount} primes`)
    }
    const elements = header.elements
    if (new Set(elements).size !== elements.length || elements.some((e) => e % 2 === 0 || e >= 2 * n)) {
      refuse(`Galois elements ${elements.join(', ')} are not distinct odd numbers below 2n`)
    }
    const wordsAt = alignedWordsAt(headerBytes)
    const perElement = galoisKeyWordsBytes(n, primes.length)
    const expected = wordsAt + elements.length * perElement
    if (bytes.byteLength !== expected) refuse(`${bytes.byteLength} bytes, expected ${expected}`)
    const map = new Map<number, Uint32Array>()
    for (const [i, element] of elements.entries()) {
      const words = new Uint32Array(bytes.buffer, bytes.byteOffset + wordsAt + i * perElement, perElement / 4)
      const bad = unreducedWord(words, n, primes)
      if (bad >= 0) refuse(`element ${element} has a residue at or above its prime (word ${bad})`)
      map.set(element, words)
    }
    return new KernelGaloisKeys(header, bytes, { elements: map, bytes: elements.length * perElement })
  }

  /** The kernel form as bytes: the buffer these keys view (do not modify it). */
  toBytes(): Uint8Array {
    return this.#live().buffer
  }

  /** `SearchKeys`: the words `RnsKernel.useKeys` copies. */
  get kernelWords(): GaloisKeyWords {
    return this.#live().words
  }

  /** `SearchKeys`: the key-set id the queries must carry. */
  get id(): string {
    return this.keySetId
  }

  /** `SearchKeys`: the params the keys were made under. */
  get ctx(): { fingerprint: string } {
    return { fingerprint: this.fingerprint }
  }

  get disposed(): boolean {
    return this.#words === undefined
  }

  /** Drops the references (JavaScript memory: freed by the collector, nothing in SEAL's heap). */
  dispose(): void {
    this.#words = undefined
    this.#buffer = undefined
  }

  [Symbol.dispose](): void {
    this.dispose()
  }

  #live(): { words: GaloisKeyWords; buffer: Uint8Array } {
    if (!this.#words || !this.#buffer) throw new HeError('INVALID_INPUT', 'these kernel-form keys were disposed')
    return { words: this.#words, buffer: this.#buffer }
  }
}

function alignedWordsAt(headerBytes: number): number {
  return Math.ceil((PREFIX_BYTES + headerBytes) / 8) * 8
}

/**
 * The first word at or above its prime, or −1. Layout per element: component j < L,
 * polynomial K < 2, key-level prime i < L + 1, then n coefficients (SEAL's order).
 */
function unreducedWord(words: Uint32Array, n: number, primes: readonly number[]): number {
  for (let poly = 0, at = 0; at < words.length; poly++, at += n) {
    const p = primes[poly % primes.length] as number
    for (let w = at; w < at + n; w++) if ((words[w] as number) >= p) return w
  }
  return -1
}
