import { SERVER_MODES as CONTRACT_SERVER_MODES, KEY_SET_ID, SERVER_EXECUTOR_MODES } from '@sealbox/he-core/client'
import type { z } from 'zod'
import { checkServerConfig } from './checkServerConfig.ts'
import { ServerSettingsSchema } from './ServerSettings.ts'

/** Where HE work runs: Piscina worker threads, the main event loop, or child processes (as the contract names them). */
export const EXECUTOR_MODES = SERVER_EXECUTOR_MODES
export type ExecutorMode = (typeof EXECUTOR_MODES)[number]

/** `local`: anyone on the machine may get an anonymous token. `production`: configured tokens only. */
export const SERVER_MODES = CONTRACT_SERVER_MODES
export type ServerMode = (typeof SERVER_MODES)[number]

/** Tenant names and key-set ids (the contract's rule): safe as file names (no `.`/`..`, no separators). */
export const TENANT_ID = KEY_SET_ID

/** Every setting of the server, validated at start-up: each alone, then the rules between them. */
export const ServerConfigSchema = ServerSettingsSchema.superRefine(checkServerConfig)

/** What callers may pass (strings from env/flags, or typed values from tests). */
export type ServerConfigInput = z.input<typeof ServerConfigSchema>
/** The validated configuration. */
export type ServerConfig = z.output<typeof ServerConfigSchema>
