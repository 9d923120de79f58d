import { ConnectionCard } from './ConnectionCard.tsx'
import { PrivateSearchCard } from './PrivateSearchCard.tsx'
import { RemotePipelineCard } from './RemotePipelineCard.tsx'

/** Server: connect, run the pipeline remotely (pool or inline), and the private search demo. */
export function ServerPanel() {
  return (
    <div className="panel-stack">
      <ConnectionCard />
      <div className="panel-grid panel-grid-even">
        <RemotePipelineCard />
        <PrivateSearchCard />
      </div>
    </div>
  )
}
