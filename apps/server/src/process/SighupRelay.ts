/** What SIGHUP does once the server is up (re-read TOKENS_FILE). */
export type SighupHandler = () => void

/**
 * SIGHUP's default action ends a Node process, and systemd's `Restart=on-failure` counts a
 * death by SIGHUP as clean, so an early `systemctl reload` would leave the node down. The
 * relay is the first thing `main` installs — before the server's modules load, before the
 * key store connects (up to KEY_STORE_CONNECT_TIMEOUT_MS) — and holds a signal that arrives
 * while nothing can be reloaded yet: `attach` runs the handler once for it, so a token
 * file changed during start-up is still read again. Imports nothing, so it is in force
 * within a few milliseconds of the process starting.
 */
export class SighupRelay {
  #handler: SighupHandler | undefined
  #pending = false

  private constructor() {}

  /** Installs the process's SIGHUP listener and returns the relay that feeds it. */
  static install(target: NodeJS.Process = process): SighupRelay {
    const relay = new SighupRelay()
    target.on('SIGHUP', () => relay.#receive())
    return relay
  }

  /** From now on SIGHUP runs `handler`; one that came during start-up runs it now. */
  attach(handler: SighupHandler): void {
    this.#handler = handler
    if (this.#pending) {
      this.#pending = false
      handler()
    }
  }

  #receive(): void {
    if (this.#handler) {
      this.#handler()
      return
    }
    if (!this.#pending) {
      // Plain stderr: the logger does not exist yet. One line however many signals come.
      process.stderr.write('sealbox: SIGHUP during start-up: held; TOKENS_FILE is read again once the server is up\n')
    }
    this.#pending = true
  }
}
