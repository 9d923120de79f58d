import type { ProgramSpec, SchemeName } from '@sealbox/he-core'
import { useEffect, useMemo, useState } from 'react'
import { useSandbox } from '../../app/SandboxContext.tsx'
import { compareWithExact } from '../../sandbox/actions/learningActions.ts'
import type { ExactComparison } from '../../worker/protocol.ts'
import type { VariableEntry } from '../../workspace/workspaceState.ts'

const NONE: ReadonlyMap<string, ExactComparison> = new Map()

/** One answer of the worker: for which program and which version of each result it was asked. */
interface Compared {
  program: string
  /** Each result's `createdAt` when the comparison was asked for. */
  versions: ReadonlyMap<string, number>
  list: ReadonlyMap<string, ExactComparison>
}

/** `name@createdAt` for every result, the key a new comparison is asked on. */
function versionKey(results: readonly VariableEntry[]): string {
  return results.map((r) => `${r.name}@${r.createdAt}`).join(',')
}

function versionsOf(key: string): Map<string, number> {
  const versions = new Map<string, number>()
  for (const part of key.split(',')) {
    const at = part.lastIndexOf('@')
    if (at > 0) versions.set(part.slice(0, at), Number(part.slice(at + 1)))
  }
  return versions
}

/**
 * BFV/BGV: every result the pipeline has made next to the plain oracle's, by result name
 * (one worker request for the whole pipeline, asked again when the program or a result
 * changes). Empty for CKKS, before the worker answers, and when nothing has run.
 *
 * A comparison stays shown while its result is the one it was made for: during Run all,
 * each new result asks again, and clearing every comparison then made an earlier wrapped
 * result's mark flicker ⚠→✓→⚠ at every later step, its "wrapped around" note vanishing
 * and returning. A result made again (or another program) hides its old comparison.
 */
export function usePipelineComparison(
  program: ProgramSpec | undefined,
  scheme: SchemeName,
  results: readonly VariableEntry[],
): ReadonlyMap<string, ExactComparison> {
  const sandbox = useSandbox()
  const [compared, setCompared] = useState<Compared>()
  const made = versionKey(results)
  const programJson = useMemo(
    () => (program && scheme !== 'ckks' && results.length > 0 ? JSON.stringify(program) : ''),
    [program, scheme, results.length],
  )
  useEffect(() => {
    // `made` is a dependency: a result made again is compared again.
    if (programJson === '' || made === '') return
    let live = true
    compareWithExact(sandbox, JSON.parse(programJson) as ProgramSpec)
      .then((list) => {
        if (live) {
          setCompared({ program: programJson, versions: versionsOf(made), list: new Map(list.map((c) => [c.name, c])) })
        }
      })
      .catch(() => undefined)
    return () => {
      live = false
    }
  }, [programJson, made, sandbox])
  return useMemo(() => {
    if (!compared || compared.program !== programJson || programJson === '') return NONE
    const current = versionsOf(made)
    return new Map(
      [...compared.list].filter(([name]) => {
        const version = current.get(name)
        return version !== undefined && version === compared.versions.get(name)
      }),
    )
  }, [compared, programJson, made])
}
