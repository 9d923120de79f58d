import type { ProgramSpec } from '@sealbox/he-core'
import { useEffect, useMemo, useState } from 'react'
import { useSandbox, useWorkspace } from '../../app/SandboxContext.tsx'
import type { ExactComparison } from '../../worker/protocol.ts'
import { type NoiseRow, noiseRows, noiseSummary } from './noiseRows.ts'
import { typedInputs } from './typedInputs.ts'

const HEIGHT = 150
const TOP = 14
const SLOT = 44
const BAR = 16

function formatError(error: number): string {
  return error === 0 ? '0' : error.toExponential(1)
}

/** Correct decimal digits of a CKKS result (what the error bars show), 0 … 15. */
function digits(error: number): number {
  return error <= 0 ? 15 : Math.max(0, Math.min(15, -Math.log10(error)))
}

/**
 * The CKKS steps' error against the exact cleartext result, asked of the worker
 * (he-core's plain oracle over the numbers typed for the inputs) whenever a result changes.
 */
function useExactComparison(program: ProgramSpec | undefined, enabled: boolean): ExactComparison[] {
  const sandbox = useSandbox()
  const { variables } = useWorkspace()
  const [results, setResults] = useState<ExactComparison[]>([])
  const made = variables
    .filter((v) => v.origin === 'pipeline')
    .map((v) => `${v.name}@${v.createdAt}`)
    .join(',')
  // Strings, so the comparison reruns only when the program, an input or a result really changed.
  const programJson = enabled && program && made !== '' ? JSON.stringify(program) : ''
  const typedJson = programJson === '' || !program ? '' : JSON.stringify(typedInputs(program, variables))
  useEffect(() => {
    if (programJson === '' || made === '') {
      setResults([])
      return
    }
    let live = true
    sandbox.worker
      .request({
        type: 'compareExact',
        program: JSON.parse(programJson) as ProgramSpec,
        typed: JSON.parse(typedJson) as Record<string, number[]>,
      })
      .then((reply) => {
        if (live) setResults(reply.results)
      })
      // Without the secret key or an input, there is nothing to compare: show no errors.
      .catch(() => {
        if (live) setResults([])
      })
    return () => {
      live = false
    }
  }, [programJson, typedJson, made, sandbox])
  return results
}

/**
 * Noise you can see: a bar per pipeline input and step — BFV/BGV: the noise budget
 * measured (solid) against he-core's prediction (dashed outline), with per-step
 * deltas; CKKS: correct digits against the exact answer on the numbers typed — and the same
 * numbers as a table.
 */
export function NoiseChart({ program }: { program: ProgramSpec }) {
  const state = useWorkspace()
  const ckks = state.applied?.input.scheme === 'ckks'
  const comparisons = useExactComparison(program, ckks)
  const { rows, prediction } = useMemo(() => noiseRows(state, program, comparisons), [state, program, comparisons])
  if (rows.length === 0) return null
  const summary = noiseSummary(rows, prediction, program, ckks)
  const values = rows.map((r) => (ckks ? (r.maxError === undefined ? undefined : digits(r.maxError)) : r.measured))
  const max = ckks ? 15 : Math.max(1, ...rows.map((r) => Math.max(r.measured ?? 0, r.predicted ?? 0)))
  const width = Math.max(320, rows.length * SLOT + 40)
  const y = (v: number) => TOP + HEIGHT - (v / max) * HEIGHT
  const description = ckks
    ? `Correct decimal digits per input and step against the exact answer on the numbers typed: ${rows
        .map((r) => `${r.label} ${r.maxError === undefined ? 'not run' : `error ${formatError(r.maxError)}`}`)
        .join('; ')}.`
    : `Noise budget in bits per input and step, measured and predicted: ${rows
        .map((r) => `${r.label} ${r.measured ?? 'not run'} measured, ${r.predicted ?? '—'} predicted`)
        .join('; ')}.`
  return (
    <section className="noise-chart" aria-label="Noise budget chart" data-testid="noise-chart">
      <h3>{ckks ? 'Error against the numbers typed' : 'Noise budget'}</h3>
      <p className="noise-summary" data-testid="noise-prediction">
        {summary}
      </p>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard (axe: scrollable-region-focusable) */}
      <div className="noise-plot" tabIndex={0}>
        {/* Never drawn below its own size: shrunk to a phone's width, 10 px labels were 4–5 px tall. It scrolls sideways instead. */}
        <svg
          viewBox={`0 0 ${width} ${HEIGHT + TOP + 34}`}
          role="img"
          aria-label={description}
          style={{ minWidth: `${width}px` }}
        >
          <line className="noise-axis" x1={30} x2={width - 4} y1={y(0)} y2={y(0)} />
          <text className="noise-tick" x={26} y={y(max) + 4} textAnchor="end">
            {ckks ? '15' : max}
          </text>
          <text className="noise-tick" x={26} y={y(0) + 4} textAnchor="end">
            0
          </text>
          {rows.map((row, i) => (
            <Bar key={row.label} row={row} x={40 + i * SLOT} value={values[i]} y={y} ckks={ckks} />
          ))}
        </svg>
      </div>
      <p className="noise-legend muted">
        {ckks
          ? 'Bars: correct decimal digits of each input and result (−log10 of the largest error over all slots), measured against the same computation on the numbers you typed.'
          : 'Solid: measured budget · dashed: predicted before running · red: exhausted (garbage on decryption).'}
      </p>
      <details className="noise-table">
        <summary>Chart data</summary>
        <div className="table-scroll">
          <table className="data-table" data-testid="noise-table">
            <thead>
              <tr>
                <th scope="col">Value</th>
                {ckks ? (
                  <>
                    <th scope="col">Level (predicted)</th>
                    <th scope="col">Scale bits (predicted)</th>
                    <th scope="col">Max error</th>
                  </>
                ) : (
                  <>
                    <th scope="col">Budget</th>
                    <th scope="col">Predicted</th>
                    <th scope="col">Δ</th>
                  </>
                )}
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.label} data-testid={`noise-row-${row.name}`}>
                  <th scope="row">
                    {row.label} <span className="mono">→ {row.name}</span>
                  </th>
                  {ckks ? (
                    <>
                      <td>
                        {row.level ?? '—'} ({row.predictedLevel ?? '—'})
                      </td>
                      <td>
                        {row.scaleBits === undefined ? '—' : row.scaleBits.toFixed(1)} (
                        {row.predictedScaleBits === undefined ? '—' : row.predictedScaleBits.toFixed(1)})
                      </td>
                      <td data-testid="noise-error">{row.maxError === undefined ? '—' : formatError(row.maxError)}</td>
                    </>
                  ) : (
                    <>
                      <td data-testid="noise-measured">{row.measured ?? '—'}</td>
                      <td data-testid="noise-predicted">{row.predicted ?? '—'}</td>
                      <td data-testid="noise-delta">
                        {row.delta === undefined ? '—' : row.delta > 0 ? `+${row.delta}` : row.delta}
                      </td>
                    </>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </section>
  )
}

/** Characters of a label that fit one bar's slot without running into the next one's. */
const LABEL_CHARS = 6

/** A name cut to its slot ("xyRescaled" → "xyRes…"), so neighbouring labels never overlap. */
function fitLabel(name: string): string {
  return name.length <= LABEL_CHARS ? name : `${name.slice(0, LABEL_CHARS - 1)}…`
}

function Bar({
  row,
  x,
  value,
  y,
  ckks,
}: {
  row: NoiseRow
  x: number
  value: number | undefined
  y: (v: number) => number
  ckks: boolean
}) {
  const base = y(0)
  const exhausted = !ckks && (row.measured === 0 || (row.measured === undefined && row.predictedExhausted))
  return (
    <g className={exhausted ? 'noise-bar noise-bar-bad' : 'noise-bar'}>
      {!ckks && row.predicted !== undefined ? (
        <rect
          className="noise-predicted"
          x={x + BAR / 2 - 2}
          y={y(row.predicted)}
          width={BAR + 4}
          height={Math.max(1, base - y(row.predicted))}
        />
      ) : null}
      {value !== undefined ? (
        <rect
          className="noise-measured"
          x={x + BAR / 2}
          y={y(value)}
          width={BAR}
          height={Math.max(1, base - y(value))}
        />
      ) : null}
      {!ckks && row.delta !== undefined && row.delta !== 0 ? (
        <text className="noise-delta" x={x + BAR} y={y(row.measured ?? 0) - 3} textAnchor="middle">
          {row.delta}
        </text>
      ) : null}
      <text className="noise-label" x={x + BAR} y={base + 14} textAnchor="middle">
        {row.stepIndex === undefined ? fitLabel(row.name) : row.stepIndex + 1}
      </text>
      <text className="noise-label noise-label-op" x={x + BAR} y={base + 27} textAnchor="middle">
        {row.stepIndex === undefined ? 'input' : fitLabel(row.name)}
      </text>
      {/* The whole name on hover; the table below has it too. */}
      <title>{row.stepIndex === undefined ? `${row.name} (input)` : `${row.stepIndex + 1} ${row.name}`}</title>
    </g>
  )
}
