import { type HeError, KEY_KINDS, type KeyKind } from '@sealbox/he-core'
import { useState } from 'react'
import { useActivity, useSandbox, useWorkspace } from '../../app/SandboxContext.tsx'
import {
  downloadKey,
  KEY_LABELS,
  removeKeys,
  type SecretKeySwitch,
  secretKeySwitchOf,
  uploadKey,
} from '../../sandbox/actions/keyActions.ts'
import { ConfirmNotice } from '../../ui/ConfirmNotice.tsx'
import { ErrorNotice } from '../../ui/ErrorNotice.tsx'
import { FileButton } from '../../ui/FileButton.tsx'
import { formatBytes, formatMs } from '../../ui/format.ts'
import { Inspector } from '../../ui/Inspector.tsx'
import { explainsItself, explainUploadError } from '../../ui/uploadErrors.ts'
import type { KeyEntry } from '../../workspace/workspaceState.ts'

const KEY_NOTES: Record<KeyKind, string> = {
  secretKey: 'Decrypts. Stays in this browser.',
  publicKey: 'Encrypts. Safe to share.',
  relinKeys: 'Shrinks a product back to size 2. For the server.',
  galoisKeys: 'Rotates slots. For the server.',
}

const KIND_WORDS: Record<KeyKind, string> = {
  secretKey: 'a secret key',
  publicKey: 'a public key',
  relinKeys: 'relinearization keys',
  galoisKeys: 'Galois keys',
}

function describe(entry: KeyEntry): string {
  const parts = [formatBytes(entry.bytes)]
  if (entry.source === 'uploaded') {
    // Uploaded keys were not made here: the time is how long reading the file took.
    parts.push(entry.ms !== undefined ? `uploaded from a file, read in ${formatMs(entry.ms)}` : 'uploaded from a file')
  } else if (entry.ms !== undefined) parts.push(`made here in ${formatMs(entry.ms)}`)
  if (!entry.envelope) parts.push('kept in this tab only')
  return parts.join(' · ')
}

/** The workspace's keys with time, size, download, upload and removal for each kind. */
export function KeyList() {
  const sandbox = useSandbox()
  const state = useWorkspace()
  const { keys } = state
  const { job } = useActivity()
  const [errors, setErrors] = useState<Partial<Record<KeyKind, HeError>>>({})
  const busy = job !== undefined

  const setError = (kind: KeyKind, error: HeError | undefined) => setErrors((e) => ({ ...e, [kind]: error }))

  /** Another key set's secret key, waiting for the user to accept what it removes. */
  const [switching, setSwitching] = useState<{ file: File; loss: SecretKeySwitch }>()
  const [inspecting, setInspecting] = useState<KeyKind>()

  const load = async (kind: KeyKind, file: File) => {
    setSwitching(undefined)
    setError(kind, undefined)
    const outcome = await uploadKey(sandbox, kind, file)
    if (!outcome.ok) setError(kind, explainUploadError(outcome.error, KIND_WORDS[kind]))
  }
  const upload = async (kind: KeyKind, file: File) => {
    setSwitching(undefined)
    const loss = kind === 'secretKey' ? await secretKeySwitchOf(state, file) : undefined
    if (loss) setSwitching({ file, loss })
    else await load(kind, file)
  }

  return (
    <section className="card" aria-label="Keys in this workspace">
      <div className="card-header">
        <h2>Keys in this workspace</h2>
        {keys.keySetId ? (
          <span className="muted mono" title="Key-set id: every key and ciphertext of this secret key carries it">
            key set {keys.keySetId.slice(0, 8)}
          </span>
        ) : null}
      </div>
      <ul className="variable-list">
        {KEY_KINDS.map((kind) => {
          const entry = keys[kind]
          const error = errors[kind]
          return (
            <li key={kind} className="variable-row key-row" data-testid={`key-${kind}`}>
              <div className="key-main">
                <div className="variable-head">
                  <span className="key-name">{KEY_LABELS[kind]}</span>
                  {entry ? <span className="badge badge-ok">ready</span> : <span className="badge">none</span>}
                  {entry?.seeded ? <span className="badge badge-accent">seeded</span> : null}
                </div>
                <div className="field-help">
                  {entry ? describe(entry) : KEY_NOTES[kind]}
                  {entry?.steps && entry.steps.length > 0 ? (
                    <span className="mono"> · steps {entry.steps.join(', ')}</span>
                  ) : null}
                </div>
              </div>
              <div className="key-actions">
                <button
                  type="button"
                  className="button-small"
                  disabled={!entry || busy}
                  onClick={() => void downloadKey(sandbox, kind)}
                  aria-label={`Download ${KEY_LABELS[kind].toLowerCase()}`}
                >
                  Download
                </button>
                <button
                  type="button"
                  className="button-small"
                  disabled={!entry}
                  onClick={() => setInspecting((open) => (open === kind ? undefined : kind))}
                  aria-expanded={inspecting === kind}
                  aria-label={`Inspect ${KEY_LABELS[kind].toLowerCase()}`}
                >
                  Inspect
                </button>
                <FileButton
                  label="Upload…"
                  name={`Upload ${KEY_LABELS[kind].toLowerCase()}`}
                  testId={`upload-${kind}`}
                  disabled={busy || (kind !== 'secretKey' && !keys.secretKey)}
                  onFile={(file) => void upload(kind, file)}
                />
                {entry && (kind === 'relinKeys' || kind === 'galoisKeys') ? (
                  <button
                    type="button"
                    className="button-small button-ghost"
                    disabled={busy}
                    onClick={() => void removeKeys(sandbox, [kind])}
                    aria-label={`Remove ${KEY_LABELS[kind].toLowerCase()}`}
                  >
                    Remove
                  </button>
                ) : null}
              </div>
              {entry && inspecting === kind ? (
                <div className="key-inspector">
                  <Inspector
                    label={KEY_LABELS[kind].toLowerCase()}
                    target={{ kind: 'key', key: kind }}
                    envelope={entry.envelope}
                    loadEnvelope={async () =>
                      (await sandbox.worker.request({ type: 'exportKey', kind, seeded: entry.seeded })).envelope
                    }
                  />
                </div>
              ) : null}
              {kind === 'secretKey' && switching ? (
                <div className="key-error">
                  <SecretKeySwitchNotice
                    loss={switching.loss}
                    fileName={switching.file.name}
                    onConfirm={() => void load('secretKey', switching.file)}
                    onCancel={() => setSwitching(undefined)}
                  />
                </div>
              ) : null}
              {error ? (
                <div className="key-error">
                  <ErrorNotice
                    error={error}
                    title={`Could not load ${KIND_WORDS[kind]}`}
                    hint={explainsItself(error) ? null : undefined}
                    onDismiss={() => setError(kind, undefined)}
                  />
                </div>
              ) : null}
            </li>
          )
        })}
      </ul>
      <p className="field-help card-footnote">
        Files are sealbox envelopes (<code>.sbx</code>): kind, parameters and key set are checked before anything is
        loaded, so a wrong file gets a clear error instead of garbage.
      </p>
    </section>
  )
}

/** Asks before another key set's secret key replaces this one, naming everything it removes. */
function SecretKeySwitchNotice({
  loss,
  fileName,
  onConfirm,
  onCancel,
}: {
  loss: SecretKeySwitch
  fileName: string
  onConfirm: () => void
  onCancel: () => void
}) {
  const lost = [
    ...loss.keys.map((kind) => KIND_WORDS[kind]),
    ...(loss.ciphertexts.length > 0
      ? [
          `${loss.ciphertexts.length} ciphertext${loss.ciphertexts.length === 1 ? '' : 's'} (${loss.ciphertexts.join(', ')})`,
        ]
      : []),
  ]
  return (
    <ConfirmNotice
      label="Use another secret key?"
      title={`${fileName} is the secret key of another key set.`}
      choices={[
        { label: 'Use it and remove them', tone: 'danger', onChoose: onConfirm },
        { label: 'Keep the current key', onChoose: onCancel },
      ]}
    >
      <p data-testid="secret-key-loss">
        It replaces the current secret and public keys
        {lost.length > 0 ? `, and removes what only the current key can use: ${lost.join(', ')}` : ''}. Plaintexts are
        kept. Download what you need first.
      </p>
    </ConfirmNotice>
  )
}
