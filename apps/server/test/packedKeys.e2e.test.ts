import { exportGaloisKeys, getHeContext, HeError, KeySet } from '@sealbox/he-core'
import { decodeEnvelope } from '@sealbox/he-core/envelope'
import { PrivateSearchClient } from '@sealbox/he-core/search'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectExactSearch, fixEnvelopeCrc, type SearchNode, startSearchNode } from './searchNode.ts'

/*
 * Bit-packed Galois keys against a real server process: the search's default key upload
 * is packed, and a search with those keys decrypts exactly to the plaintext oracle. Forged
 * packed keys (a residue at or above its prime, forged lengths and counts, widths, elements
 * the meta does not list, an unknown PRNG, a header claiming every element) are coded 400
 * answers from the worker, never a SEAL exception: the worker's SEAL exception gauge stays
 * at 0, nothing is stored, and the next honest search is still answered. Packed keys for
 * parameters the server has not built are checked for structure and stored.
 */

let server: SearchNode
let search: PrivateSearchClient
let packedKeys: Uint8Array

beforeAll(async () => {
  server = await startSearchNode({
    name: 'packed-keys',
    rows: 300,
    dimension: 6,
    seed: 4,
    // One query ciphertext, rotations on the server: the search needs Galois keys for steps 1 and g.
    env: { SEARCH_BABY_STEPS: 'server', SEARCH_BABY_STEP: '4' },
  })
  search = PrivateSearchClient.create(await getHeContext(server.config.params), server.config)
  packedKeys = search.evaluationKeys() as Uint8Array
}, 120_000)
afterAll(async () => {
  search?.dispose()
  await server?.stop()
})

const put = (id: string, body: Uint8Array) => server.send('PUT', `/api/v1/keysets/${id}`, body)

/** A copy of a packed key envelope with its payload edited and its checksum recomputed. */
function forge(envelope: Uint8Array, edit: (payload: Uint8Array, view: DataView) => void): Uint8Array {
  const bytes = envelope.slice()
  const decoded = decodeEnvelope(bytes, { kind: 'galoisKeys' })
  expect(decoded.compression).toBe('packed')
  edit(decoded.payload, new DataView(decoded.payload.buffer, decoded.payload.byteOffset, decoded.payload.byteLength))
  fixEnvelopeCrc(bytes)
  return bytes
}

const searchesExactly = (keySet: string, seed: number) => expectExactSearch(server, search, seed, { keySet })

describe('packed Galois keys on a real server', () => {
  it('stores the packed default upload and searches with it exactly', async () => {
    expect(server.config.galoisSteps.length).toBeGreaterThan(0)
    expect(decodeEnvelope(packedKeys).compression).toBe('packed')
    const zstd = search.evaluationKeys({ compression: 'zstd' }) as Uint8Array
    // Per element at n = 4096 [27, 28, 28]: 2 keys of 4096 × 83 bits and a seed each; headers and meta.
    expect(packedKeys.length).toBeLessThan(200 + server.config.galoisSteps.length * 2 * (65 + (4096 * 83) / 8 + 4))
    expect(packedKeys.length).toBeLessThan(zstd.length * 0.85)
    const stored = await server.client.putKeySet('packed', packedKeys)
    expect(stored.keySet.galoisElements).toEqual(
      [...decodeEnvelope(packedKeys, { kind: 'galoisKeys' }).meta.elements].sort((a, b) => a - b),
    )
    await searchesExactly('packed', 1)
    await searchesExactly('packed', 2)
  })

  it('refuses forged packed keys with a coded 400 before SEAL sees them, and stores nothing', async () => {
    // Header 16 bytes, 3 widths, 4 bytes per element, then the first key's seed and residues.
    const elements = decodeEnvelope(packedKeys, { kind: 'galoisKeys' }).meta.elements.length
    const keysAt = 16 + 3 + 4 * elements
    const cases: [string, Uint8Array, RegExp][] = [
      [
        'unreduced residues',
        forge(packedKeys, (payload) => payload.fill(0xff, keysAt + 65, keysAt + 65 + 8)),
        /not below the prime/,
      ],
      [
        'a header claiming every element (the key bomb shape)',
        forge(packedKeys, (_, view) => view.setUint32(12, 4096, true)),
        /header declares/,
      ],
      ['a forged n', forge(packedKeys, (_, view) => view.setUint32(8, 2048, true)), /header declares/],
      ['a forged prime count', forge(packedKeys, (_, view) => view.setUint8(6, 4)), /keys per element|header declares/],
      ['a forged width', forge(packedKeys, (payload) => payload.set([26], 16)), /header declares|bits/],
      ['an unknown PRNG', forge(packedKeys, (payload) => payload.set([0], keysAt)), /PRNG type 0/],
      [
        'an element the meta does not list',
        forge(packedKeys, (_, view) => view.setUint32(16 + 3, 5, true)),
        /lists Galois elements/,
      ],
      ['truncated', truncated(packedKeys), /header declares/],
    ]
    for (const [what, body, message] of cases) {
      const answer = await put('forged', body)
      expect(answer.status, what).toBe(400)
      expect(answer.code, what).toBe('INVALID_ENVELOPE')
      expect(answer.message, what).toMatch(message)
    }
    expect(await server.sealExceptions()).toBe(0)
    const listed = await server.client.listKeySets()
    expect(listed.keySets.map((record) => record.id)).not.toContain('forged')
    await server.client.putKeySet('after', packedKeys)
    await searchesExactly('after', 3)
  })

  it('checks packed keys of parameters it has not built for structure, and stores them', async () => {
    const other = await getHeContext({
      scheme: 'bfv',
      polyModulusDegree: 8192,
      coeffModulus: [43, 43, 44],
      plainModulus: { value: 65537 },
    })
    using keys = KeySet.generate(other, { galois: { steps: [1, 2] } })
    const envelope = exportGaloisKeys(keys, { compression: 'packed' })
    const stored = await server.client.putKeySet('other-params', envelope)
    expect(stored.keySet.polyModulusDegree).toBe(8192)
    const forged = await put(
      'other-forged',
      forge(envelope, (_, view) => view.setUint8(7, 1)),
    )
    expect(forged.status).toBe(400)
    expect(forged.code).toBe('INVALID_ENVELOPE')
    expect(await server.sealExceptions()).toBe(0)
  })
})

/** The envelope of a payload one byte short (the envelope's own lengths and checksum made to agree). */
function truncated(envelope: Uint8Array): Uint8Array {
  const decoded = decodeEnvelope(envelope, { kind: 'galoisKeys' })
  const metaLength = decoded.bytes.length - decoded.payload.length - 56
  const bytes = new Uint8Array(envelope.length - 1)
  bytes.set(envelope.subarray(0, 52 + metaLength + decoded.payload.length - 1))
  const view = new DataView(bytes.buffer)
  view.setBigUint64(40, BigInt(decoded.payload.length - 1), true)
  fixEnvelopeCrc(bytes)
  if (bytes.length !== envelope.length - 1) throw new HeError('INTERNAL', 'truncation went wrong')
  return bytes
}
