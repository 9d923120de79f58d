/** A metadata value that reads as one short field. */
function isField(value: unknown): value is string | number | boolean | null {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value)
}

/**
 * The table columns for a list of hits' metadata: one per field when every hit's
 * metadata is a flat object (name, category…), in the order the first hit gives them;
 * else one "Metadata" column. None when no hit has metadata.
 */
export function metadataColumns(metadata: readonly unknown[]): string[] {
  const present = metadata.filter((value) => value !== undefined)
  if (present.length === 0) return []
  const flat = present.every(
    (value) =>
      typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every(isField),
  )
  if (!flat) return ['Metadata']
  return [...new Set(present.flatMap((value) => Object.keys(value as object)))]
}

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
