import { SERVER_EXECUTOR_MODES } from '@sealbox/he-core/client'
import { describe, expect, it } from 'vitest'
import { bfvWorkspace } from './testWorkspace.ts'
import { WorkspaceState } from './workspaceState.ts'

describe('WorkspaceState', () => {
  it('keeps the server executor as the server contract names it, and refuses one it does not', () => {
    for (const mode of SERVER_EXECUTOR_MODES) {
      const parsed = WorkspaceState.safeParse(bfvWorkspace({ server: { baseUrl: '', mode } }))
      expect(parsed.success && parsed.data.server.mode, mode).toBe(mode)
    }
    const unknown = { ...bfvWorkspace(), server: { baseUrl: '', mode: 'threads' } }
    expect(WorkspaceState.safeParse(unknown).success).toBe(false)
  })
})
