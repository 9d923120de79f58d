/**
 * The plain values among an error's details: strings, numbers, booleans, null and
 * lists of strings or numbers. Details may hold a SEAL exception or other objects,
 * which neither survive a thread boundary nor belong in a reply; only these go out.
 *
 * @internal The server's error replies use it; not part of the package's API.
 */
export function plainDetails(details: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(details)) {
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) out[key] = value
    else if (Array.isArray(value) && value.every((v) => ['string', 'number'].includes(typeof v))) out[key] = value
  }
  return out
}
