import { formatMicros, formatRatio } from '../core/formatNumbers.ts'
import { markdownTable } from '../core/markdownTable.ts'
import { NATIVE_OP_REFERENCE } from './nativeOpReference.ts'
import type { OpTableReport, OpTableRow } from './OpTableReport.ts'
import { opTableRows } from './OpTableReport.ts'
import { engineColumns } from './opTableSummary.ts'

const SEARCH_N = 4096

/**
 * The `Search` rows side by side: per engine, SEAL's rotation and NTT-form product at the
 * search's parameters against he-ring's kernel doing the same, with native SEAL of this run
 * and SEAL + Intel HEXL's published figure as yardsticks. Empty without Search rows.
 */
export function searchOpsSection(report: OpTableReport): string[] {
  const rows = opTableRows(report).filter((row) => row.spec.group === 'Search' && row.n === SEARCH_N)
  if (rows.length === 0) return []
  const byOp = new Map<string, OpTableRow>(rows.map((row) => [row.spec.op, row]))
  // Minimums: the yardstick (SEAL + HEXL) was timed on a quiet machine, and the minimum of a
  // cell is the closest this run comes to an idle core; the medians are in the table above.
  const fastest = (op: string, engine: string) => byOp.get(op)?.cells[engine as keyof OpTableRow['cells']]?.minUs
  const nativeRotate = fastest('EvaluateRotateRows', 'native')
  const nativeProduct = fastest('EvaluateMulPtNtt', 'native')
  const ratio = (a: number | undefined, b: number | undefined) =>
    a !== undefined && b !== undefined && b > 0 ? formatRatio(a / b) : ''
  const table = engineColumns(report)
    .filter((engine) => engine.id !== 'native')
    .map((engine) => {
      const rotate = fastest('KernelRotate', engine.id)
      const hoisted = fastest('KernelRotateHoisted', engine.id)
      const product = fastest('KernelMulPtNtt', engine.id)
      return [
        engine.label,
        formatMicros(fastest('EvaluateRotateRows', engine.id)),
        formatMicros(rotate),
        formatMicros(hoisted),
        ratio(rotate, nativeRotate),
        ratio(rotate, NATIVE_OP_REFERENCE.hexl.rotateUs),
        ratio(hoisted, NATIVE_OP_REFERENCE.hexl.rotateUs),
        formatMicros(fastest('EvaluateMulPtNtt', engine.id)),
        formatMicros(product),
        ratio(product, nativeProduct),
        ratio(product, NATIVE_OP_REFERENCE.hexl.mulPlainNttUs),
      ]
    })
  const kernelMissing = engineColumns(report).flatMap((engine) => {
    const reason = byOp.get('KernelRotate')?.missing[engine.id]
    return engine.id !== 'native' && reason ? [`- ${engine.label}: no kernel rows — ${reason}`] : []
  })
  const { hexl, plain } = NATIVE_OP_REFERENCE
  return [
    "## The search's parameters: SEAL against he-ring's kernel (minimum µs per call)",
    '',
    `BGV at n = 4096, coeff modulus [27, 28, 28], t = 65537 (the private search's default; every prime below 2^31, so he-ring's WebAssembly kernel applies). The \`Search\` rows above, regrouped by their minimum sample (the closest to an idle core, as the yardstick below was measured; medians in the table above): SEAL's rotation by one step and its NTT-form plaintext product in each engine, and the kernel doing the same work the search does (keySwitchSearchKernel: residues already in the kernel's heap, keys already read). Hoisted = one of the seven baby steps of g = 8 sharing one decomposition, its share of the decomposition included. Native SEAL in this run: rotation ${formatMicros(nativeRotate)} µs, product ${formatMicros(nativeProduct)} µs. SEAL + Intel HEXL, ${NATIVE_OP_REFERENCE.source}: rotation ${hexl.rotateUs} µs, product ${hexl.mulPlainNttUs} µs (plain native SEAL 4.1 there: ${plain.rotateUs} and ${plain.mulPlainNttUs} µs). Below 1×: the kernel is faster.`,
    '',
    markdownTable(
      [
        { heading: 'engine' },
        { heading: 'SEAL rotateRows', align: 'right' },
        { heading: 'kernel rotation', align: 'right' },
        { heading: 'kernel rotation, hoisted', align: 'right' },
        { heading: 'kernel ÷ native SEAL (this run)', align: 'right' },
        { heading: 'kernel ÷ SEAL + HEXL (ref.)', align: 'right' },
        { heading: 'hoisted ÷ SEAL + HEXL (ref.)', align: 'right' },
        { heading: 'SEAL multiplyPlain (NTT)', align: 'right' },
        { heading: 'kernel product (NTT)', align: 'right' },
        { heading: 'kernel ÷ native SEAL (this run)', align: 'right' },
        { heading: 'kernel ÷ SEAL + HEXL (ref.)', align: 'right' },
      ],
      table,
    ),
    '',
    ...(kernelMissing.length > 0 ? [...kernelMissing, ''] : []),
  ]
}
