import { configDefaults, defineProject } from 'vitest/config'
import { SERIAL_SERVER_FILES } from './vitest.serial.config.ts'

export default defineProject({
  resolve: { conditions: ['@sealbox/source'] },
  ssr: { resolve: { conditions: ['@sealbox/source'] } },
  test: {
    name: 'server',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Files that measure the machine itself run alone in `server-serial` (vitest.serial.config.ts).
    exclude: [...configDefaults.exclude, ...SERIAL_SERVER_FILES],
    environment: 'node',
    // The parallel group (root vitest.config.ts): every file starts its own servers on ports
    // from freePort, in its own temp dirs, and waits on events, not on the clock.
    sequence: { groupOrder: 0 },
    // Real servers, real worker threads and child processes, real SEAL, beside other files
    // on 2 busy cores: generous per-test limits.
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
})
