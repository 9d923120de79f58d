import { SERVER_SETTING_NAMES } from '@sealbox/testkit'
import { expect, it } from 'vitest'
import { CONFIG_KEYS } from '../src/config/loadConfig.ts'

// testkit starts the server by path and cannot import it (this package depends on
// testkit), so it keeps the setting names it strips from a server's environment; this
// test keeps them in step with the schema.
it("testkit's SERVER_SETTING_NAMES are exactly the server's settings", () => {
  expect([...SERVER_SETTING_NAMES].sort()).toEqual([...CONFIG_KEYS].sort())
})
