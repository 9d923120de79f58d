import { formatBytes, formatInteger } from '../../ui/format.ts'
import { PowerOfTwo } from '../../ui/PowerOfTwo.tsx'
import type { DraftCheck } from '../../workspace/paramsDraft.ts'

/**
 * What the parameters give, before anything is generated: slots, levels, bits,
 * key switching, and the expected size of every object (he-core's describeParams).
 */
export function ParamsFactsView({ check, plainModulus }: { check: DraftCheck; plainModulus: bigint | undefined }) {
  if (!check.ok) {
    return (
      <section className="card facts" aria-label="Derived facts">
        <h2>What you get</h2>
        <p className="muted">Fix the highlighted field to see slots, levels and sizes.</p>
      </section>
    )
  }
  const { facts } = check
  const sizes = facts.sizes
  const budgetNote = facts.maxBits === null ? '' : ` of ${facts.maxBits} allowed`
  return (
    <section className="card facts" aria-label="Derived facts" data-testid="params-facts">
      <h2>What you get</h2>
      <dl className="fact-grid">
        <div>
          <dt>Slots</dt>
          <dd className="mono">
            {formatInteger(facts.slotCount)}
            <span className="fact-note">
              {facts.scheme === 'ckks' ? ' real numbers' : ` integers (2 rows × ${formatInteger(facts.rowSize)})`}
            </span>
          </dd>
        </div>
        <div>
          <dt>Multiplicative levels</dt>
          <dd className="mono">{facts.levels}</dd>
        </div>
        <div>
          <dt>Coefficient modulus</dt>
          <dd className="mono">
            {facts.totalBits} bits<span className="fact-note">{budgetNote}</span>
          </dd>
        </div>
        <div>
          <dt>Key switching</dt>
          <dd>
            {facts.keySwitching ? 'Yes' : 'No'}
            <span className="fact-note">
              {facts.keySwitching ? ' relinearization, rotations' : ' a single prime: no relinearization or rotations'}
            </span>
          </dd>
        </div>
        {facts.plainModulusBits !== undefined ? (
          <div>
            <dt>Plain modulus t</dt>
            <dd className="mono">
              {plainModulus !== undefined ? formatInteger(plainModulus) : `${facts.plainModulusBits}-bit prime`}
            </dd>
          </div>
        ) : null}
        {facts.scaleBits !== undefined ? (
          <div>
            <dt>Scale</dt>
            <dd className="mono">
              <PowerOfTwo exponent={facts.scaleBits} />
            </dd>
          </div>
        ) : null}
      </dl>

      <h3>Estimated sizes</h3>
      <table className="size-table">
        <tbody>
          <SizeRow label="Secret key" bytes={sizes.secretKey} />
          <SizeRow label="Public key" bytes={sizes.publicKey} seeded={sizes.publicKeySeeded} />
          {facts.keySwitching ? (
            <>
              <SizeRow label="Relinearization keys" bytes={sizes.relinKeys} seeded={sizes.relinKeysSeeded} />
              <SizeRow label="Galois keys, per step" bytes={sizes.galoisKeyPerStep} />
              <SizeRow
                label={`Galois keys, power-of-two set (${sizes.galoisKeysDefaultCount})`}
                bytes={sizes.galoisKeysDefault}
                warn={sizes.galoisKeysDefault > 64 * 2 ** 20}
              />
            </>
          ) : null}
          <SizeRow label="Ciphertext" bytes={sizes.ciphertext} seeded={sizes.ciphertextSeeded} />
          <SizeRow label="Ciphertext at the last level" bytes={sizes.ciphertextLastLevel} />
          <SizeRow label="Plaintext" bytes={sizes.plaintext} />
        </tbody>
      </table>
      <p className="field-help">Uncompressed; zstd saves 10–35%. "Seeded" forms are what you upload.</p>

      {facts.warnings.length > 0 ? (
        <ul className="warnings" aria-label="Warnings">
          {facts.warnings.map((warning) => (
            <li key={warning}>{warning}</li>
          ))}
        </ul>
      ) : null}
    </section>
  )
}

function SizeRow({ label, bytes, seeded, warn }: { label: string; bytes: number; seeded?: number; warn?: boolean }) {
  return (
    <tr className={warn ? 'size-warn' : undefined}>
      <th scope="row">{label}</th>
      <td className="mono">{formatBytes(bytes)}</td>
      <td className="mono muted">{seeded !== undefined ? `${formatBytes(seeded)} seeded` : ''}</td>
    </tr>
  )
}
