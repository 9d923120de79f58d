import { type ParamsInput, ParamsSpec } from '@sealbox/he-core'
import type { Outcome, Sandbox } from '../Sandbox.ts'

/**
 * Builds the SEAL context for `input` in the worker and makes it the workspace's
 * parameters. Keys and variables of other parameters are dropped (they cannot be
 * used with the new ones); the pipeline is kept, without the failures of its last run.
 */
export async function applyParams(sandbox: Sandbox, input: ParamsInput): Promise<Outcome<void>> {
  const spec = ParamsSpec.parse(input)
  const n = spec.polyModulusDegree
  return sandbox.run(
    `Building the SEAL context (n = ${n})`,
    async () => {
      const ready = await sandbox.worker.request({ type: 'setParams', params: spec })
      sandbox.noteHeap(ready.heapBytes)
      // New parameters: a banner about the old keys and values (lost across a restart…) is stale.
      if (sandbox.workspace.state.applied?.fingerprint !== ready.fingerprint) {
        sandbox.activity.update((activity) => ({ ...activity, notice: undefined }))
      }
      sandbox.workspace.update((state) => {
        const same = state.applied?.fingerprint === ready.fingerprint
        return {
          ...state,
          applied: {
            input: spec,
            fingerprint: ready.fingerprint,
            plainModulus: ready.plainModulus,
            contextMs: ready.contextMs,
            reused: ready.reused,
          },
          keys: same ? state.keys : {},
          variables: same ? state.variables : [],
          // A failure under other parameters says nothing about these; a success stays,
          // shown as stale (its result is gone) until the step runs again.
          pipeline: same
            ? state.pipeline
            : state.pipeline.map((entry) => (entry.last?.status === 'failed' ? { ...entry, last: undefined } : entry)),
        }
      })
    },
    { cancellable: n >= 16384 },
  )
}
