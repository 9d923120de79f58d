import type { ProgramSpec } from '@sealbox/he-core'
import { useEffect, useMemo, useState } from 'react'
import { useSandbox, useWorkspace } from '../../app/SandboxContext.tsx'
import { compareWithExact } from '../../sandbox/actions/learningActions.ts'
import type { ExactComparison } from '../../worker/protocol.ts'
import { formatValue } from '../../workspace/parseValues.ts'
import { checkPipeline } from '../../workspace/pipeline.ts'
import type { VariableEntry } from '../../workspace/workspaceState.ts'

const SHOWN = 8

/**
 * Look at the garbage: a result decrypted although its noise budget ran out, next to
 * the exact values it should have had, wrong slots marked. The teaching moment the
 * refusal hides.
 */
export function GarbageView({ index, result }: { index: number; result: VariableEntry }) {
  const sandbox = useSandbox()
  const state = useWorkspace()
  const [comparison, setComparison] = useState<ExactComparison>()
  const programJson = useMemo(() => {
    const full = checkPipeline(state).program
    return full ? JSON.stringify({ ...full, steps: full.steps.slice(0, index + 1), outputs: [result.name] }) : ''
  }, [state, index, result.name])
  const made = result.createdAt
  useEffect(() => {
    if (programJson === '' || made === undefined) return
    let live = true
    compareWithExact(sandbox, JSON.parse(programJson) as ProgramSpec)
      .then((results) => {
        if (live) setComparison(results[0])
      })
      .catch(() => undefined)
    return () => {
      live = false
    }
  }, [programJson, made, sandbox])
  const got = result.preview ?? []
  const expected = comparison?.expected ?? []
  return (
    // Focus lands here after "Decrypt anyway" (useFocusAfterJob): the button that asked is gone.
    <section
      className="garbage"
      aria-label={`Garbage of step ${index + 1}`}
      data-testid="garbage"
      tabIndex={-1}
      data-focus-after-job
    >
      <p className="garbage-title">
        <strong>Garbage — decrypted anyway.</strong> '{result.name}' has {result.noiseBudget ?? 0} bits of noise budget:
        the noise has overwhelmed the message, so these numbers are wrong.
        {comparison?.wrongSlots !== undefined ? (
          <>
            {' '}
            <span data-testid="garbage-wrong">{comparison.wrongSlots}</span> slot
            {comparison.wrongSlots === 1 ? ' differs' : 's differ'} from the exact result.
          </>
        ) : null}
      </p>
      <table className="data-table garbage-table">
        <thead>
          <tr>
            <th scope="col">Slot</th>
            <th scope="col">Decrypted (wrong)</th>
            <th scope="col">Exact</th>
          </tr>
        </thead>
        <tbody>
          {got.slice(0, SHOWN).map((value, slot) => {
            const exact = expected[slot]
            const wrong = exact !== undefined && value !== exact
            return (
              // biome-ignore lint/suspicious/noArrayIndexKey: slots are positions
              <tr key={slot} className={wrong ? 'garbage-wrong' : ''}>
                <td>{slot}</td>
                <td className="mono" data-testid="garbage-value">
                  {formatValue(value)}
                  {wrong ? <span className="visually-hidden"> (wrong)</span> : null}
                </td>
                <td className="mono" data-testid="exact-value">
                  {exact === undefined ? '…' : formatValue(exact)}
                </td>
              </tr>
            )
          })}
        </tbody>
      </table>
    </section>
  )
}
