import { MAX_COEFF_BITS } from '@sealbox/he-core'
import { formatBytes, formatInteger } from '../../ui/format.ts'
import { PowerOfTwo } from '../../ui/PowerOfTwo.tsx'
import { multiplicationsInARow } from '../../workspace/multiplicationsInARow.ts'
import { type DraftCheck, type DraftProblem, draftToInput, type ParamsDraft } from '../../workspace/paramsDraft.ts'
import { plainWordsFirst } from './plainWordsFirst.ts'

/**
 * What the parameters give, before anything is generated: slots, levels, bits,
 * key switching, and the expected size of every object (he-core's describeParams).
 */
export function ParamsFactsView({
  check,
  draft,
  problems,
  plainModulus,
}: {
  check: DraftCheck
  draft: ParamsDraft
  problems: readonly DraftProblem[]
  plainModulus: bigint | undefined
}) {
  if (!check.ok) return <LimitView problems={problems} draft={draft} />
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
          <dt>Multiplications in a row</dt>
          <dd className="mono" data-testid="fact-multiplications">
            {multiplicationsInARow(check.resolved, facts.plainModulusBits)}
            <span className="fact-note">
              {check.resolved.scheme === 'ckks'
                ? ' (one data prime each)'
                : ` (noise budget; ${facts.levels} mod-switch level${facts.levels === 1 ? '' : 's'})`}
            </span>
          </dd>
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

/**
 * "What you get" while a field is invalid: what is still known (slots from n) and the
 * limit being fought — the secure coefficient-modulus budget for this n and security
 * against the bits asked for — beside every broken rule, in plain words first.
 */
function LimitView({ problems, draft }: { problems: readonly DraftProblem[]; draft: ParamsDraft }) {
  const n = draft.polyModulusDegree
  const max = MAX_COEFF_BITS[draft.security][n]
  const input = draftToInput(draft)
  const bits = 'message' in input ? undefined : input.coeffModulus
  const total = Array.isArray(bits) ? bits.reduce((a, b) => a + b, 0) : undefined
  return (
    <section className="card facts" aria-label="Derived facts" data-testid="params-limits">
      <h2>What you get</h2>
      <ul className="field-error limit-reasons" data-testid="params-limit-reasons">
        {problems.map((problem) => (
          <li key={problem.field}>{plainWordsFirst(problem.message)}</li>
        ))}
      </ul>
      <dl className="fact-grid">
        <div>
          <dt>Slots</dt>
          <dd className="mono">
            {formatInteger(draft.scheme === 'ckks' ? n / 2 : n)}
            <span className="fact-note">{draft.scheme === 'ckks' ? ' real numbers' : ' integers'}</span>
          </dd>
        </div>
        {max !== undefined ? (
          <div>
            <dt>Secure coefficient modulus</dt>
            <dd className="mono" data-testid="params-limit">
              at most {max} bits
              <span className="fact-note">
                {' '}
                at n = {n}, {draft.security.slice(2)}-bit security
                {total === undefined
                  ? ''
                  : total <= max
                    ? `; your ${total} bits fit, ${max - total} to spare`
                    : `; your ${total} bits are ${total - max} over`}
              </span>
            </dd>
          </div>
        ) : null}
      </dl>
      <p className="muted">Levels and sizes return when the parameters are valid.</p>
    </section>
  )
}
