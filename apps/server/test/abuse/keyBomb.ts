import { Readable } from 'node:stream'
import { buffer } from 'node:stream/consumers'
import { createZstdCompress } from 'node:zlib'
import { encodeEnvelope } from '@sealbox/he-core/envelope'

/*
 * A compressed Galois-key upload that is well formed in every field — one full (not
 * seeded) key list for each of the n Galois elements its envelope lists, every key the
 * right shape for the parameters — but whose coefficients are all zero, so ~1.6 GB at
 * n = 4096 compress to a few tens of KB. Built by streaming through zstd, so the test
 * itself never holds the inflated form.
 */

const SEAL_HEADER_BYTES = 16
const U64 = 8

function sealHeader(size: number, compression = 0): Buffer {
  const header = Buffer.alloc(SEAL_HEADER_BYTES)
  header.writeUInt16LE(0xa15e, 0)
  header.writeUInt8(SEAL_HEADER_BYTES, 2)
  header.writeUInt8(4, 3)
  header.writeUInt8(1, 4)
  header.writeUInt8(compression, 5)
  header.writeBigUInt64LE(BigInt(size), 8)
  return header
}

/** One saved key ciphertext (2 polynomials over `k` primes at degree `n`), coefficients zero. */
function zeroKeyCiphertext(n: number, k: number): Buffer[] {
  const coefficients = 2 * n * k
  const dataBytes = SEAL_HEADER_BYTES + U64 + coefficients * U64
  const fields = Buffer.alloc(32 + 1 + 5 * U64)
  fields.writeUInt8(1, 32)
  fields.writeBigUInt64LE(2n, 33)
  fields.writeBigUInt64LE(BigInt(n), 41)
  fields.writeBigUInt64LE(BigInt(k), 49)
  const count = Buffer.alloc(U64)
  count.writeBigUInt64LE(BigInt(coefficients))
  const total = SEAL_HEADER_BYTES + fields.length + dataBytes
  return [sealHeader(total), fields, sealHeader(dataBytes), count, Buffer.alloc(coefficients * U64)]
}

function* bombBody(n: number, keyPrimes: number): Generator<Buffer> {
  const dataPrimes = keyPrimes - 1
  const key = zeroKeyCiphertext(n, keyPrimes)
  // SEAL compresses what follows the object's own header: parms_id, the list count, the lists.
  const head = Buffer.alloc(32 + U64)
  head.writeBigUInt64LE(BigInt(n), 32)
  yield head
  const length = Buffer.alloc(U64)
  length.writeBigUInt64LE(BigInt(dataPrimes))
  for (let list = 0; list < n; list++) {
    yield length
    for (let j = 0; j < dataPrimes; j++) yield* key
  }
}

/** What the bomb is: its envelope, and the bytes its payload inflates to. */
export interface KeyBomb {
  envelope: Uint8Array
  inflatedBytes: number
}

/**
 * A zstd `galoisKeys` envelope under `fingerprint` (n, `keyPrimes` primes including the
 * special one) whose meta lists all n Galois elements and whose payload holds a zero key
 * list for each.
 */
export async function galoisKeyBomb(options: {
  fingerprint: string
  keySetId: string
  n: number
  keyPrimes: number
}): Promise<KeyBomb> {
  const { n, keyPrimes } = options
  let inflatedBytes = 0
  const counted = Readable.from(
    (function* () {
      for (const chunk of bombBody(n, keyPrimes)) {
        inflatedBytes += chunk.length
        yield chunk
      }
    })(),
    { objectMode: false },
  )
  const body = await buffer(counted.pipe(createZstdCompress()))
  const payload = Buffer.concat([sealHeader(SEAL_HEADER_BYTES + body.length, 2), body])
  const elements = Array.from({ length: n }, (_, i) => 2 * i + 1)
  return {
    envelope: encodeEnvelope({
      kind: 'galoisKeys',
      fingerprint: options.fingerprint,
      keySetId: options.keySetId,
      payload,
      meta: { elements },
    }),
    inflatedBytes: inflatedBytes + SEAL_HEADER_BYTES,
  }
}
