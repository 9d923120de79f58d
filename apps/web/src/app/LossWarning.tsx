import { useState } from 'react'
import { downloadKey } from '../sandbox/actions/keyActions.ts'
import { inWords, type LossOptions, workspaceLosses } from '../workspace/workspaceLosses.ts'
import { useSandbox, useWorkspace } from './SandboxContext.tsx'

/**
 * "Download the secret key first" (then "Secret key downloaded"): the key file, before a
 * choice that drops it. Nothing when the workspace has no secret key.
 */
export function SecretKeyDownloadButton() {
  const sandbox = useSandbox()
  const { keys } = useWorkspace()
  const [downloaded, setDownloaded] = useState<string>()
  if (!keys.secretKey) return null
  return (
    <button
      type="button"
      onClick={() => {
        const keySet = keys.keySetId
        void downloadKey(sandbox, 'secretKey').then((outcome) => setDownloaded(outcome.ok ? keySet : undefined))
      }}
    >
      {downloaded !== undefined && downloaded === keys.keySetId
        ? 'Secret key downloaded'
        : 'Download the secret key first'}
    </button>
  )
}

/**
 * What a choice would drop, named from the live workspace: "{lead}: the secret key of
 * key set 1a2b3c4d, 2 ciphertexts (x, y) and a pipeline of 3 steps.", and — with a secret
 * key — that whatever it encrypted is lost unless it is downloaded first.
 */
export function LossWarning({ lead, options, testId }: { lead: string; options?: LossOptions; testId?: string }) {
  const state = useWorkspace()
  const losses = workspaceLosses(state, options)
  if (losses.length === 0) return null
  return (
    <p data-testid={testId}>
      {lead}: {inWords(losses)}.
      {state.keys.secretKey
        ? ' Whatever was encrypted under this secret key can no longer be decrypted, here or anywhere, unless you download the key first.'
        : ''}
    </p>
  )
}
