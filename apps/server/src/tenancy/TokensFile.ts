import { createHash } from 'node:crypto'
import { type FSWatcher, watch } from 'node:fs'
import { readFile, realpath } from 'node:fs/promises'
import { basename, dirname, resolve } from 'node:path'
import { HeError } from '@sealbox/he-core'
import { parseTokenList, type TenantToken } from '../config/tokenRules.ts'
import type { TokenAuthority } from './TokenAuthority.ts'

/** Where the tokens file reports reloads (pino's shape). */
export interface TokensFileLog {
  info(details: object, message: string): void
  error(details: object, message: string): void
}

/** What one reload did. */
export type TokensReload = 'reloaded' | 'unchanged' | 'refused'

/** Settles a burst of file events (an editor's write + rename) into one reload. */
const SETTLE_MS = 100

/**
 * `TOKENS_FILE`: `tenant:token` lines kept in force in a `TokenAuthority` together with
 * the fixed `TOKENS`. Read at start (a bad file stops the node, naming the problem), then
 * again on `reload()` (SIGHUP) and when the file changes. A reload that does not parse,
 * or leaves production mode without tokens, is refused and logged: the tokens in force
 * stay, so a half-written file never locks tenants out. Rotation is: add the new token
 * beside the old one, move clients over, remove the old one.
 */
export class TokensFile {
  readonly path: string
  readonly #fixed: readonly TenantToken[]
  readonly #auth: TokenAuthority
  readonly #log: TokensFileLog
  readonly #onReload: (result: TokensReload) => void
  #digest = ''
  #watcher: FSWatcher | undefined
  /** The directory of the file the path resolves to, when a symlink leads out of the path's own. */
  #targetWatcher: FSWatcher | undefined
  /** What the path resolved to at the last read (a symlink's target; the path itself otherwise). */
  #target: string | undefined
  /** A watched event named the file itself (not just a sibling) since the last settled burst. */
  #touched = false
  #timer: NodeJS.Timeout | undefined
  #reloading: Promise<TokensReload> = Promise.resolve('unchanged')

  constructor(options: {
    path: string
    fixed: readonly TenantToken[]
    auth: TokenAuthority
    log: TokensFileLog
    onReload?: (result: TokensReload) => void
  }) {
    this.path = resolve(options.path)
    this.#fixed = options.fixed
    this.#auth = options.auth
    this.#log = options.log
    this.#onReload = options.onReload ?? (() => undefined)
  }

  /** Reads the file and puts its tokens in force; throws `INVALID_INPUT` naming what is wrong. */
  async load(): Promise<void> {
    const { tokens, digest } = await this.#read()
    this.#auth.replaceConfigured(tokens)
    this.#digest = digest
  }

  /** Reads the file again (SIGHUP, or a change seen by `watch`); serialized, never throws. */
  reload(why: 'SIGHUP' | 'change'): Promise<TokensReload> {
    this.#reloading = this.#reloading.then(() => this.#reloadNow(why))
    return this.#reloading
  }

  /**
   * Reloads when the file changes. Its directory is watched: editors and `mv` replace the
   * file. A symlinked file is followed too: after any change in the link's directory the
   * path is resolved again, and a new target is a reload — Kubernetes mounts a Secret as
   * `tokens -> ..data/tokens` and swaps `..data` to a new timestamped directory, so the name
   * `tokens` itself never changes. When the target lives in another directory, that one is
   * watched for the target's name as well.
   */
  watch(): void {
    const name = basename(this.path)
    this.#watcher = watch(dirname(this.path), { persistent: false }, (_event, changed) => {
      this.#settle(changed === null || changed === name)
    })
    this.#watcher.on('error', (error) => this.#log.error({ err: error, path: this.path }, 'cannot watch TOKENS_FILE'))
    this.#watchTarget()
  }

  /** Stops watching. */
  close(): void {
    clearTimeout(this.#timer)
    this.#watcher?.close()
    this.#targetWatcher?.close()
  }

  /** Settles a burst of events into one check; `touched`: an event named the file itself. */
  #settle(touched: boolean): void {
    this.#touched ||= touched
    clearTimeout(this.#timer)
    this.#timer = setTimeout(() => void this.#afterChange(), SETTLE_MS)
    this.#timer.unref()
  }

  async #afterChange(): Promise<void> {
    const touched = this.#touched
    this.#touched = false
    // A swap in progress may leave the link dangling for a moment: the swap's last event comes later.
    const target = await realpath(this.path).catch(() => undefined)
    if (target === undefined) return
    const moved = target !== this.#target
    if (!touched && !moved) return
    await this.reload('change')
    if (moved && this.#watcher) this.#watchTarget()
  }

  /** Watches the resolved file's own directory when it is not the path's (a link to elsewhere). */
  #watchTarget(): void {
    this.#targetWatcher?.close()
    this.#targetWatcher = undefined
    const target = this.#target
    if (target === undefined || dirname(target) === dirname(this.path)) return
    // Under the path's own directory (Kubernetes' ..2026_x/): its files never change in place, a swap replaces it.
    if (dirname(target).startsWith(`${dirname(this.path)}/`)) return
    const name = basename(target)
    try {
      this.#targetWatcher = watch(dirname(target), { persistent: false }, (_event, changed) => {
        if (changed === null || changed === name) this.#settle(true)
      })
      // The target's directory may go away (then the link's directory reports the change).
      this.#targetWatcher.on('error', () => this.#targetWatcher?.close())
    } catch {
      this.#targetWatcher = undefined
    }
  }

  async #reloadNow(why: 'SIGHUP' | 'change'): Promise<TokensReload> {
    let result: TokensReload
    try {
      const { tokens, digest } = await this.#read()
      if (digest === this.#digest) {
        result = 'unchanged'
      } else {
        this.#auth.replaceConfigured(tokens)
        this.#digest = digest
        result = 'reloaded'
      }
      if (result === 'reloaded' || why === 'SIGHUP') {
        this.#log.info({ path: this.path, trigger: why, result, ...this.#auth.configuredCount() }, 'tokens file read')
      }
    } catch (error) {
      result = 'refused'
      this.#log.error(
        { path: this.path, trigger: why, reason: error instanceof Error ? error.message : String(error) },
        'tokens file refused; the tokens in force stay',
      )
    }
    this.#onReload(result)
    return result
  }

  async #read(): Promise<{ tokens: TenantToken[]; digest: string }> {
    let text: string
    try {
      const target = await realpath(this.path)
      text = await readFile(target, 'utf8')
      this.#target = target
    } catch (error) {
      throw new HeError('INVALID_INPUT', `TOKENS_FILE ${this.path}: ${(error as Error).message}`, { cause: error })
    }
    const parsed = parseTokenList(`${this.#fixed.map(({ tenant, token }) => `${tenant}:${token}`).join('\n')}\n${text}`)
    if (parsed.problem !== undefined) throw new HeError('INVALID_INPUT', `TOKENS_FILE ${this.path}: ${parsed.problem}`)
    if (this.#auth.mode === 'production' && parsed.tokens.length === 0) {
      throw new HeError(
        'INVALID_INPUT',
        `TOKENS_FILE ${this.path} has no tenant:token line (production mode needs one)`,
      )
    }
    return { tokens: parsed.tokens, digest: createHash('sha256').update(text).digest('hex') }
  }
}
