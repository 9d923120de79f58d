import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { exportSecretKey, getHeContext, importSecretKey, KeySet } from '@sealbox/he-core'
import { PrivateSearchClient, type SearchConfig, syntheticSearchQuery } from '@sealbox/he-core/search'
import { BenchError } from '../BenchError.ts'

/*
 * Every simulated user's key material, made once and cached on disk: generating 1,000
 * users' Galois keys takes a minute, and the load generator must not spend CPU on SEAL
 * while it measures the server (it replays ready-made query bytes).
 *
 * Layout: <cacheDir>/<configId>/user-<index>.bin, each three length-prefixed parts:
 * the secret-key envelope (to check answers), the Galois-key envelope (to upload) and
 * one encrypted query of `userQueryVector(index)`.
 */

/** What one simulated user has. */
export interface UserKeyMaterial {
  index: number
  secretKey: Uint8Array
  galoisKeys: Uint8Array
  query: Uint8Array
}

/** The query vector of user `index` (deterministic, so the oracle can be recomputed). */
export function userQueryVector(dimension: number, index: number): Float64Array {
  return syntheticSearchQuery(dimension, 10_000 + index)
}

/** Tenant name and bearer token of simulated user `index` (production-mode TOKENS). */
export function benchTenant(index: number): { tenant: string; token: string } {
  const id = String(index).padStart(5, '0')
  return { tenant: `user${id}`, token: `bench-token-user-${id}-0123456789abcdef` }
}

/** `TOKENS` for users 0…count−1. */
export function benchTokens(count: number): string {
  return Array.from({ length: count }, (_, i) => {
    const { tenant, token } = benchTenant(i)
    return `${tenant}:${token}`
  }).join(',')
}

function userFile(cacheDir: string, configId: string, index: number): string {
  return join(cacheDir, configId, `user-${index}.bin`)
}

function pack(parts: readonly Uint8Array[]): Uint8Array {
  const total = parts.reduce((sum, part) => sum + 4 + part.length, 0)
  const out = new Uint8Array(total)
  const view = new DataView(out.buffer)
  let offset = 0
  for (const part of parts) {
    view.setUint32(offset, part.length, true)
    out.set(part, offset + 4)
    offset += 4 + part.length
  }
  return out
}

function unpack(bytes: Uint8Array, count: number): Uint8Array[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const parts: Uint8Array[] = []
  let offset = 0
  for (let i = 0; i < count; i++) {
    const length = view.getUint32(offset, true)
    parts.push(bytes.subarray(offset + 4, offset + 4 + length))
    offset += 4 + length
  }
  if (offset !== bytes.length) throw new BenchError('INTERNAL', 'corrupt user key file')
  return parts
}

/**
 * Reads user `index`'s cached material (undefined when not made yet). With `distinct`,
 * users share `distinct` key sets: user i uploads, under its own tenant, the key set and
 * query of user i mod `distinct` (synthetic populations far above what can be generated:
 * every cache keys on tenant and content hash, so two tenants never share an entry).
 */
export async function readUserKeyMaterial(
  cacheDir: string,
  configId: string,
  index: number,
  distinct = Number.POSITIVE_INFINITY,
): Promise<UserKeyMaterial | undefined> {
  let bytes: Buffer
  try {
    bytes = await readFile(userFile(cacheDir, configId, index % distinct))
  } catch {
    return undefined
  }
  const [secretKey, galoisKeys, query] = unpack(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length), 3) as [
    Uint8Array,
    Uint8Array,
    Uint8Array,
  ]
  return { index, secretKey, galoisKeys, query }
}

/** `TOKENS_FILE` lines for users 0…count−1 (a list too long for one environment variable). */
export async function writeBenchTokensFile(cacheDir: string, count: number): Promise<string> {
  const file = join(cacheDir, `tokens-${count}.txt`)
  await mkdir(cacheDir, { recursive: true })
  await writeFile(file, `${benchTokens(count).split(',').join('\n')}\n`)
  return file
}

/**
 * Makes (or reuses) the material of users 0…count−1 for `config`; `onProgress` sees
 * how many are ready. The cache directory gets a `.gitignore` of `*`.
 */
export async function ensureUserKeyMaterial(
  cacheDir: string,
  config: SearchConfig,
  count: number,
  onProgress?: (ready: number, made: number) => void,
): Promise<void> {
  await mkdir(join(cacheDir, config.configId), { recursive: true })
  await writeFile(join(cacheDir, '.gitignore'), '*\n')
  const ctx = await getHeContext(config.params)
  let made = 0
  for (let index = 0; index < count; index++) {
    if (await readUserKeyMaterial(cacheDir, config.configId, index)) continue
    using keySet = KeySet.generate(ctx, { galois: { steps: config.galoisSteps } })
    using client = PrivateSearchClient.create(ctx, config, { keySet })
    const galoisKeys = client.evaluationKeys()
    if (!galoisKeys)
      throw new BenchError(
        'INVALID_FLAGS',
        'this search config needs no keys: run the server with SEARCH_BABY_STEPS=server',
      )
    const query = client.encryptQuery(userQueryVector(config.dimension, index))
    const secretKey = exportSecretKey(keySet)
    await writeFile(userFile(cacheDir, config.configId, index), pack([secretKey, galoisKeys, query]))
    made++
    if (made % 50 === 0) onProgress?.(index + 1, made)
  }
  onProgress?.(count, made)
}

/** A search client holding user `index`'s secret key (to decrypt and check answers). */
export async function userSearchClient(config: SearchConfig, material: UserKeyMaterial): Promise<PrivateSearchClient> {
  const ctx = await getHeContext(config.params)
  const keySet = importSecretKey(ctx, material.secretKey, { galois: { steps: config.galoisSteps } })
  return PrivateSearchClient.create(ctx, config, { keySet })
}
