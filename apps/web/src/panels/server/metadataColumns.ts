/** A metadata value that reads as one short field. */
export function isField(value: unknown): value is string | number | boolean | null {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value)
}

/**
 * The table columns for a list of hits' metadata: one per field when every hit's
 * metadata is a flat object (name, category…), in the order the first hit gives them;
 * else one "Metadata" column. None when no hit has metadata. A field that only repeats
 * each hit's id (the demo's `symbol`) is left out: the Id column already shows it.
 */
export function metadataColumns(hits: ReadonlyArray<{ id: unknown; metadata?: unknown }>): string[] {
  const present = hits.filter((hit) => hit.metadata !== undefined)
  if (present.length === 0) return []
  const flat = present.every(
    ({ metadata }) =>
      typeof metadata === 'object' &&
      metadata !== null &&
      !Array.isArray(metadata) &&
      Object.values(metadata).every(isField),
  )
  if (!flat) return ['Metadata']
  const fields = [...new Set(present.flatMap((hit) => Object.keys(hit.metadata as object)))]
  const repeatsId = (field: string) =>
    hits.every((hit) => String((hit.metadata as Record<string, unknown> | undefined)?.[field]) === String(hit.id))
  return fields.filter((field) => !repeatsId(field))
}
