import { configDefaults, defineProject } from 'vitest/config'
import { SERIAL_CORE_FILES } from './vitest.serial.config.ts'

export default defineProject({
  resolve: { conditions: ['@sealbox/source'] },
  ssr: { resolve: { conditions: ['@sealbox/source'] } },
  test: {
    name: 'he-core',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // KernelGaloisKeys counts the process's ArrayBuffers: it runs alone in `he-core-serial`.
    exclude: [...configDefaults.exclude, ...SERIAL_CORE_FILES],
    environment: 'node',
    // The parallel group (root vitest.config.ts).
    sequence: { groupOrder: 0 },
    // Real SEAL at small parameters; a few suites build n=8192 contexts, beside other files
    // on 2 busy cores.
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
})
