import { deflateRawSync } from 'node:zlib'
import { EXAMPLE_WORKSPACES } from '@sealbox/he-core'
import { describe, expect, it } from 'vitest'
import { decodePermalink, encodePermalink, permalinkIn } from './permalink.ts'

describe('permalinks', () => {
  it('round-trips a workspace through deflate-raw and base64url, large integers included', async () => {
    const spec = {
      ...EXAMPLE_WORKSPACES.bfv,
      params: { scheme: 'bfv' as const, polyModulusDegree: 4096, plainModulus: { batchingBits: 60 } },
      variables: [{ name: 'x', kind: 'ciphertext' as const, values: [2n ** 58n, -3n] }],
      steps: [],
      print: ['x'],
    }
    const encoded = await encodePermalink(spec)
    expect(encoded).toMatch(/^[\w-]+$/)
    const decoded = await decodePermalink(encoded)
    expect(decoded.variables[0]?.values).toEqual([2n ** 58n, -3])
    expect(await decodePermalink(await encodePermalink(EXAMPLE_WORKSPACES.ckks))).toEqual(EXAMPLE_WORKSPACES.ckks)
  })

  it('refuses what is not a workspace, in plain words', async () => {
    await expect(decodePermalink('bm90LWEtd29ya3NwYWNl')).rejects.toThrow(/does not hold a sealbox workspace/)
    const notSpec = deflateRawSync(JSON.stringify({ version: 1, params: { scheme: 'rsa' } })).toString('base64url')
    await expect(decodePermalink(notSpec)).rejects.toThrow(/This link's workspace is not valid/)
    // A deflate bomb: 64 MiB of zeros in a few kilobytes.
    const bomb = deflateRawSync(Buffer.alloc(64 * 2 ** 20)).toString('base64url')
    await expect(decodePermalink(bomb)).rejects.toThrow(/does not hold a sealbox workspace/)
  })

  it('finds the workspace beside the panel in the fragment', () => {
    expect(permalinkIn('#functions&w=abc-_')).toBe('abc-_')
    expect(permalinkIn('#functions')).toBeUndefined()
  })
})
