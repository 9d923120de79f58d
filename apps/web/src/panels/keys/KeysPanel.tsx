import { NeedsContext } from '../NeedsContext.tsx'
import { KeyGenerator } from './KeyGenerator.tsx'
import { KeyList } from './KeyList.tsx'
import { KeysNextStep } from './KeysNextStep.tsx'

/** Keys: generate or upload the secret, public, relinearization and Galois keys. */
export function KeysPanel() {
  return (
    <NeedsContext what="Keys">
      <div className="panel-grid">
        <KeyGenerator />
        <KeyList />
      </div>
      <KeysNextStep />
    </NeedsContext>
  )
}
