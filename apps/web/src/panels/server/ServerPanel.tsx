import { ConnectionCard } from './ConnectionCard.tsx'
import { PrivateSearchCard } from './PrivateSearchCard.tsx'
import { RemotePipelineCard } from './RemotePipelineCard.tsx'

/**
 * Server: connect, run the pipeline remotely (pool or inline), and the private search
 * demo. One card above the other: a search's hits table (rank, id, the rows' fields,
 * score, cosine) needs the panel's whole width to show every column.
 */
export function ServerPanel() {
  return (
    <div className="panel-stack">
      <ConnectionCard />
      <RemotePipelineCard />
      <PrivateSearchCard />
    </div>
  )
}
