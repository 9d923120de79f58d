import type { ProgramSpec, SchemeName } from '@sealbox/he-core'
import { useEffect, useMemo, useState } from 'react'
import { useSandbox } from '../../app/SandboxContext.tsx'
import { compareWithExact } from '../../sandbox/actions/learningActions.ts'
import type { ExactComparison } from '../../worker/protocol.ts'
import type { VariableEntry } from '../../workspace/workspaceState.ts'

/**
 * BFV/BGV: every result the pipeline has made next to the plain oracle's, by result name
 * (one worker request for the whole pipeline, asked again when the program or a result
 * changes). Empty for CKKS, before the worker answers, and when nothing has run.
 */
export function usePipelineComparison(
  program: ProgramSpec | undefined,
  scheme: SchemeName,
  results: readonly VariableEntry[],
): ReadonlyMap<string, ExactComparison> {
  const sandbox = useSandbox()
  const [comparisons, setComparisons] = useState<ReadonlyMap<string, ExactComparison>>(new Map())
  const made = results.map((r) => `${r.name}@${r.createdAt}`).join(',')
  const programJson = useMemo(
    () => (program && scheme !== 'ckks' && results.length > 0 ? JSON.stringify(program) : ''),
    [program, scheme, results.length],
  )
  useEffect(() => {
    setComparisons(new Map())
    // `made` is a dependency: a result made again is compared again.
    if (programJson === '' || made === '') return
    let live = true
    compareWithExact(sandbox, JSON.parse(programJson) as ProgramSpec)
      .then((list) => {
        if (live) setComparisons(new Map(list.map((c) => [c.name, c])))
      })
      .catch(() => undefined)
    return () => {
      live = false
    }
  }, [programJson, made, sandbox])
  return comparisons
}
