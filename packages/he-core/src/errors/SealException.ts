/**
 * A C++ exception thrown through node-seal, as a plain `Error`: SEAL's own type and
 * words, kept as an `HeError`'s `cause` for logs. SEAL's text is not ours to show
 * people (it names C++ internals, not what to change), so error messages say what
 * went wrong in our words and this carries the original.
 */
export class SealException extends Error {
  override readonly name = 'SealException'
  /** The C++ exception type, e.g. `std::invalid_argument`. */
  readonly kind: string
  /** SEAL's `what()` text, e.g. `encrypted is not valid for encryption parameters`. */
  readonly sealMessage: string

  constructor(kind: string, sealMessage: string, options: { cause?: unknown } = {}) {
    super(`${kind}: ${sealMessage}`, options.cause === undefined ? undefined : { cause: options.cause })
    this.kind = kind
    this.sealMessage = sealMessage
  }
}
