import { formatBytes } from '../../ui/format.ts'
import { PowerOfTwo } from '../../ui/PowerOfTwo.tsx'
import { formatValue } from '../../workspace/parseValues.ts'

/** Noise budget as a badge: green with room, amber when low, red at zero (garbage on decryption). */
export function NoiseBadge({ bits }: { bits: number }) {
  const tone = bits === 0 ? 'badge-bad' : bits < 10 ? 'badge-warn' : 'badge-ok'
  return (
    <span className={`badge ${tone}`} title="Invariant noise budget: at 0 decryption returns garbage">
      {bits} bits budget
    </span>
  )
}

/** Level, size, scale, noise budget and bytes of a value, in one line of badges. */
export function ValueFacts({
  level,
  size,
  scaleBits,
  noiseBudget,
  bytes,
}: {
  level?: number | undefined
  size?: number | undefined
  scaleBits?: number | undefined
  noiseBudget?: number | undefined
  bytes?: number | undefined
}) {
  return (
    <span className="value-facts">
      {noiseBudget !== undefined ? <NoiseBadge bits={noiseBudget} /> : null}
      {level !== undefined ? (
        <span className="badge" title="Level in the modulus chain (0 is the last)">
          level {level}
        </span>
      ) : null}
      {scaleBits !== undefined ? (
        <span className="badge" title="CKKS scale">
          {/* Rescaling by a prime near 2^k leaves 2^40.0000002: show 2^40 unless the difference is visible. */}
          scale{' '}
          <PowerOfTwo
            exponent={Math.abs(scaleBits - Math.round(scaleBits)) < 1e-3 ? Math.round(scaleBits) : scaleBits.toFixed(2)}
          />
        </span>
      ) : null}
      {size !== undefined ? (
        <span
          className={`badge ${size > 2 ? 'badge-warn' : ''}`}
          title="Polynomials in the ciphertext (3 until relinearized)"
        >
          size {size}
        </span>
      ) : null}
      {bytes !== undefined ? <span className="badge">{formatBytes(bytes)}</span> : null}
    </span>
  )
}

/**
 * The first decoded slots of a vector that continues: "[5, 12, 21, 32, 0, 0, 0, 0, …]".
 * A ciphertext with no noise budget left (`noiseBudget` 0, e.g. a result decrypted
 * anyway) decrypts to garbage: its numbers are struck through under a label that says so.
 */
export function Preview({
  values,
  count = 8,
  noiseBudget,
}: {
  values: ReadonlyArray<bigint | number> | undefined
  count?: number
  noiseBudget?: number | undefined
}) {
  if (!values) return <span className="muted">encrypted (no secret key here to look inside)</span>
  if (noiseBudget === 0) {
    return (
      <span className="preview-garbage" data-testid="preview-garbage">
        <strong>Garbage:</strong> no noise budget left, so these decrypted numbers are wrong{' '}
        <code className="values" data-testid="preview">
          [{values.slice(0, count).map(formatValue).join(', ')}, …]
        </code>
      </span>
    )
  }
  return (
    <code className="values" data-testid="preview">
      [{values.slice(0, count).map(formatValue).join(', ')}, …]
    </code>
  )
}
