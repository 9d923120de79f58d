/** A kernel form a tenant already stores, by whatever key its store names it. */
export interface StoredKernelForm<K> {
  key: K
  bytes: number
}

/** What a write keeps of the tenant's kernel forms. */
export interface KeptKernelForms<K> {
  /** Whether the form being written fits. */
  keepFresh: boolean
  /** Stored forms to drop so the tenant stays within its quota. */
  drop: K[]
}

/**
 * The rule both stores apply to kernel forms, which are derived from a tenant's uploads
 * (a store-tier miss can make them again): they count in the tenant's stored bytes and
 * its quota, but never refuse an upload. `room` is the quota less the tenant's uploads
 * (after this write). The form being written (`freshBytes`, the one its next search
 * reads) is kept when it fits; then stored forms are kept while they fit, and the rest
 * dropped, so an upload that fits on its own always succeeds.
 */
export function keepKernelForms<K>(
  room: number,
  freshBytes: number | undefined,
  stored: readonly StoredKernelForm<K>[],
): KeptKernelForms<K> {
  let left = room
  const keepFresh = freshBytes !== undefined && freshBytes <= left
  if (keepFresh) left -= freshBytes
  const drop: K[] = []
  for (const form of stored) {
    if (form.bytes <= left) left -= form.bytes
    else drop.push(form.key)
  }
  return { keepFresh, drop }
}
