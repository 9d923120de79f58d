import { isField } from './metadataColumns.ts'

/** A hit's metadata as table cells for `columns` (from `metadataColumns`): fields as text, JSON only where nested. */
export function MetadataCells({ metadata, columns }: { metadata: unknown; columns: readonly string[] }) {
  if (columns.length === 1 && columns[0] === 'Metadata') {
    return (
      <td className="search-metadata" data-testid="search-hit-metadata">
        {metadata === undefined ? '–' : isField(metadata) ? String(metadata) : JSON.stringify(metadata)}
      </td>
    )
  }
  const record = (metadata ?? {}) as Record<string, unknown>
  return (
    <>
      {columns.map((column) => {
        const value = record[column]
        return (
          <td key={column} className="search-field" data-testid={`search-hit-${column}`}>
            {value === undefined ? '–' : String(value)}
          </td>
        )
      })}
    </>
  )
}
