import { NeedsContext } from '../NeedsContext.tsx'
import { NewVariableForm } from './NewVariableForm.tsx'
import { VariableList } from './VariableList.tsx'

/** Variables: named plaintexts and ciphertexts — encode, encrypt, decrypt, decode, download, upload. */
export function VariablesPanel() {
  return (
    <NeedsContext what="Variables">
      <div className="panel-grid panel-grid-list">
        <NewVariableForm />
        <VariableList />
      </div>
    </NeedsContext>
  )
}
