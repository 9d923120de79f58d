import { ParamsSpec } from '@sealbox/he-core'
import type { PipelineEntry, VariableEntry, WorkspaceState } from './workspaceState.ts'
import { emptyWorkspace } from './workspaceState.ts'

/*
 * Plain-data workspaces for the unit tests of this folder (no SEAL, no worker): the
 * shapes the page holds, with the parameters of the sandbox's default BFV context.
 */

/** BFV, n = 4096, t = 1032193 (a 20-bit batching prime), as the worker reports it. */
export function bfvWorkspace(change: Partial<WorkspaceState> = {}): WorkspaceState {
  return {
    ...emptyWorkspace(),
    applied: {
      input: ParamsSpec.parse({ scheme: 'bfv', polyModulusDegree: 4096, plainModulus: { batchingBits: 20 } }),
      fingerprint: '0'.repeat(32),
      plainModulus: 1032193n,
      contextMs: 1,
    },
    ...change,
  }
}

/** A ciphertext (or plaintext) variable; typed from `values` unless another origin is given. */
export function variable(name: string, change: Partial<VariableEntry> = {}): VariableEntry {
  return {
    name,
    kind: 'ciphertext',
    envelope: new Uint8Array(0),
    bytes: 0,
    origin: 'values',
    values: '1, 2, 3',
    createdAt: 0,
    ...change,
  }
}

/** A pipeline step as the Functions panel edits it. */
export function step(op: string, a: string, out: string, change: Partial<PipelineEntry> = {}): PipelineEntry {
  return { id: out, op, a, b: '', steps: 1, exponent: 2, align: false, out, ...change }
}
