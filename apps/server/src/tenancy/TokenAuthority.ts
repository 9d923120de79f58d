import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { mkdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { HeError } from '@sealbox/he-core'
import type { ServerMode } from '../config/ServerConfig.ts'
import { writeFileAtomic } from '../store/writeFileAtomic.ts'

/** Who is calling: the tenant every key set and job belongs to. */
export interface Tenant {
  id: string
  /** `configured` tokens come from TOKENS; `anonymous` ones were issued by this server in local mode. */
  kind: 'configured' | 'anonymous'
}

/** A token issued by `POST /api/v1/session`. */
export interface IssuedToken {
  token: string
  tenant: string
}

const ANON_PREFIX = 'sbx_local_'
const ANON_TOKEN = /^sbx_local_([0-9a-f]{32})_([0-9a-f]{32})$/
const SECRET_FILE = 'local-token-secret'

function digest(token: string): Buffer {
  return createHash('sha256').update(token).digest()
}

/**
 * Turns bearer tokens into tenants. Configured tokens (`TOKENS`) work in both modes;
 * in local mode the server also issues anonymous tokens, signed with a secret kept in
 * the data directory so they (and their key sets) survive a restart.
 */
export class TokenAuthority {
  readonly mode: ServerMode
  #configured = new Map<string, string>()
  readonly #secret: Buffer | undefined

  private constructor(mode: ServerMode, tokens: ReadonlyArray<{ tenant: string; token: string }>, secret?: Buffer) {
    this.mode = mode
    this.replaceConfigured(tokens)
    this.#secret = secret
  }

  /**
   * Puts a new list of configured tokens in force at once (TOKENS_FILE reloaded): a
   * request is checked against the old list or the new one, never a mix, and requests
   * already admitted keep their tenant.
   */
  replaceConfigured(tokens: ReadonlyArray<{ tenant: string; token: string }>): void {
    const configured = new Map<string, string>()
    // Keyed by the token's hash: a lookup does not compare secrets byte by byte.
    for (const { tenant, token } of tokens) configured.set(digest(token).toString('hex'), tenant)
    this.#configured = configured
  }

  /** Configured tokens in force, and the tenants they belong to. */
  configuredCount(): { tokens: number; tenants: number } {
    return { tokens: this.#configured.size, tenants: new Set(this.#configured.values()).size }
  }

  /** Creates the authority; local mode loads (or makes) the signing secret in `dataDir`. */
  static async create(options: {
    mode: ServerMode
    tokens: ReadonlyArray<{ tenant: string; token: string }>
    dataDir: string
  }): Promise<TokenAuthority> {
    if (options.mode === 'production') return new TokenAuthority('production', options.tokens)
    await mkdir(options.dataDir, { recursive: true })
    const file = join(options.dataDir, SECRET_FILE)
    let secret: Buffer
    try {
      secret = Buffer.from((await readFile(file, 'utf8')).trim(), 'hex')
      if (secret.length !== 32) throw new Error('bad secret length')
    } catch {
      secret = randomBytes(32)
      await writeFileAtomic(file, new TextEncoder().encode(secret.toString('hex')), { mode: 0o600 })
    }
    return new TokenAuthority('local', options.tokens, secret)
  }

  /** Local mode only: a new anonymous tenant and its token. */
  issueAnonymous(): IssuedToken {
    if (!this.#secret) {
      throw new HeError('FORBIDDEN', 'anonymous sessions exist only in local mode; ask the operator for a token')
    }
    const id = randomBytes(16).toString('hex')
    return { token: `${ANON_PREFIX}${id}_${this.#mac(id)}`, tenant: anonymousTenant(id) }
  }

  /** The tenant of an `Authorization` header value, or UNAUTHORIZED. */
  authenticate(authorization: string | undefined): Tenant {
    if (authorization === undefined || authorization === '') {
      throw new HeError('UNAUTHORIZED', 'missing Authorization: Bearer <token>', {
        details: { localMode: this.mode === 'local' },
      })
    }
    const match = /^Bearer\s+(\S+)$/i.exec(authorization)
    if (!match) throw new HeError('UNAUTHORIZED', 'the Authorization header must be "Bearer <token>"')
    const token = match[1] as string
    const configured = this.#configured.get(digest(token).toString('hex'))
    if (configured !== undefined) return { id: configured, kind: 'configured' }
    const anon = ANON_TOKEN.exec(token)
    if (anon && this.#secret) {
      const [, id, mac] = anon as unknown as [string, string, string]
      if (timingSafeEqual(Buffer.from(mac, 'hex'), Buffer.from(this.#mac(id), 'hex'))) {
        return { id: anonymousTenant(id), kind: 'anonymous' }
      }
    }
    throw new HeError('UNAUTHORIZED', 'unknown or invalid bearer token')
  }

  #mac(id: string): string {
    return createHmac('sha256', this.#secret as Buffer)
      .update(id)
      .digest('hex')
      .slice(0, 32)
  }
}

function anonymousTenant(id: string): string {
  return `anon-${id.slice(0, 24)}`
}
