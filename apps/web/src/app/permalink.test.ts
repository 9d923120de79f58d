import { deflateRawSync } from 'node:zlib'
import { EXAMPLE_WORKSPACES } from '@sealbox/he-core'
import { describe, expect, it } from 'vitest'
import { decodePermalink, encodePermalink, isContextLink, permalinkIn } from './permalink.ts'

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

  it('carries a context alone (nothing typed, no steps, nothing to print), and nothing less', async () => {
    const context = {
      version: 1 as const,
      params: { scheme: 'bfv' as const, polyModulusDegree: 4096 },
      keys: { relin: true, galois: 'none' as const, seeded: false },
      variables: [],
      steps: [],
      print: [],
    }
    const decoded = await decodePermalink(await encodePermalink(context))
    expect(decoded).toEqual(context)
    expect(isContextLink(decoded)).toBe(true)
    expect(isContextLink({ ...context, print: ['x'] })).toBe(false)
    // Values but nothing to print is neither a workspace nor a context alone.
    const unprinted = { ...context, variables: [{ name: 'x', kind: 'ciphertext' as const, values: [1] }] }
    await expect(decodePermalink(await encodePermalink(unprinted))).rejects.toThrow(
      /This link's workspace is not valid/,
    )
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
