import { useEffect, useState } from 'react'
import { useSandbox } from '../app/SandboxContext.tsx'
import { inspect } from '../sandbox/actions/learningActions.ts'
import type { Inspection, RequestOf } from '../worker/protocol.ts'
import { formatBytes } from './format.ts'
import { Segmented } from './Segmented.tsx'

/** Envelope bytes shown before "… N more bytes" (the whole envelope can be megabytes). */
export const INSPECTED_BYTES = 256

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join(' ')
}

function base64(bytes: Uint8Array): string {
  let binary = ''
  for (const b of bytes) binary += String.fromCharCode(b)
  return btoa(binary)
}

/**
 * The inspector of one key, ciphertext or plaintext: what SEAL says about it (parms
 * id, level, primes, size, scale, NTT form, a plaintext's coefficients) and the
 * sealbox envelope's first bytes as hex or base64.
 */
export function Inspector({
  label,
  target,
  envelope,
  loadEnvelope,
}: {
  /** Names the object, e.g. "ciphertext x". */
  label: string
  target: RequestOf<'inspect'>['target']
  /** The envelope, when the page keeps it. */
  envelope: Uint8Array | undefined
  /** Fetches the envelope when the page keeps none (large keys live only in the worker). */
  loadEnvelope?: () => Promise<Uint8Array>
}) {
  const sandbox = useSandbox()
  const [facts, setFacts] = useState<Inspection>()
  const [failure, setFailure] = useState<string>()
  const [bytes, setBytes] = useState<Uint8Array | undefined>(envelope)
  const [encoding, setEncoding] = useState<'hex' | 'base64'>('hex')
  const targetKey = JSON.stringify(target)
  // biome-ignore lint/correctness/useExhaustiveDependencies: targetKey stands for target
  useEffect(() => {
    let live = true
    inspect(sandbox, target)
      .then((inspection) => live && setFacts(inspection))
      .catch((error: unknown) => live && setFailure(error instanceof Error ? error.message : String(error)))
    if (!envelope && loadEnvelope) {
      loadEnvelope()
        .then((loaded) => live && setBytes(loaded))
        .catch(() => undefined)
    }
    return () => {
      live = false
    }
  }, [targetKey, sandbox, envelope])
  const shown = bytes?.subarray(0, INSPECTED_BYTES)
  const rows: Array<[string, string]> = []
  if (facts) {
    rows.push(['parms id', facts.parmsId])
    if (facts.level !== undefined)
      rows.push(['level', `${facts.level}${facts.primes !== undefined ? ` (${facts.primes} primes)` : ''}`])
    if (facts.size !== undefined) rows.push([target.kind === 'key' ? 'key-switching keys' : 'size', String(facts.size)])
    if (facts.scale !== undefined) rows.push(['scale', `2^${Math.log2(facts.scale).toFixed(2)}`])
    if (facts.nttForm !== undefined) rows.push(['NTT form', facts.nttForm ? 'yes' : 'no'])
    if (facts.coeffCount !== undefined) {
      rows.push([
        'coefficient count',
        `${facts.coeffCount}${facts.nonZeroCoeffs !== undefined ? ` (${facts.nonZeroCoeffs} non-zero)` : ''}`,
      ])
    }
  }
  return (
    <section className="inspector" aria-label={`Inspector: ${label}`} data-testid="inspector">
      <dl className="inspector-facts">
        <div className="inspector-fact">
          <dt>envelope</dt>
          <dd data-testid="inspector-bytes">
            {bytes ? `${formatBytes(bytes.byteLength)} (${bytes.byteLength} bytes)` : '…'}
          </dd>
        </div>
        {rows.map(([name, value]) => (
          <div key={name} className="inspector-fact">
            <dt>{name}</dt>
            <dd className="mono" data-testid={`inspector-${name.replace(/\W+/g, '-')}`}>
              {value}
            </dd>
          </div>
        ))}
      </dl>
      {failure ? <p className="muted">{failure}</p> : null}
      {facts?.coefficients ? (
        <div className="inspector-block">
          <p className="field-label">Lowest coefficients (c₀, c₁, …; batching spreads the slots over all of them)</p>
          <code className="values" data-testid="inspector-coefficients">
            {facts.coefficients.map(String).join(', ')}, …
          </code>
        </div>
      ) : facts?.nttForm && target.kind === 'variable' && facts.coeffCount !== undefined ? (
        <p className="field-help">
          An NTT-form plaintext holds evaluations modulo each prime, not coefficients; SEAL does not print it.
        </p>
      ) : null}
      <div className="inspector-block">
        <div className="inspector-bytes-head">
          <p className="field-label">Envelope bytes</p>
          <Segmented
            name="inspector-encoding"
            value={encoding}
            options={[
              { value: 'hex', label: 'hex' },
              { value: 'base64', label: 'base64' },
            ]}
            onChange={setEncoding}
          />
        </div>
        {shown ? (
          <code className="inspector-dump" data-testid="inspector-dump">
            {encoding === 'hex' ? hex(shown) : base64(shown)}
            {bytes && bytes.byteLength > shown.byteLength
              ? ` … ${formatBytes(bytes.byteLength - shown.byteLength)} more`
              : ''}
          </code>
        ) : (
          <p className="muted">…</p>
        )}
      </div>
    </section>
  )
}
