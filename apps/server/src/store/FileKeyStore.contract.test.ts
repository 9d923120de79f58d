import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll } from 'vitest'
import { FileKeyStore } from './FileKeyStore.ts'
import { describeKernelFormContract } from './kernelFormStoreTestKit.ts'
import { describeKeyStoreContract } from './keyStoreTestKit.ts'

// The embedded store against the same contract as the PostgreSQL one.
let dir: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sealbox-filestore-'))
})

afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describeKeyStoreContract('files', () => ({ open: (limits) => FileKeyStore.open(dir, limits) }))
describeKernelFormContract('files', () => ({ open: (limits) => FileKeyStore.open(dir, limits) }))
