/**
 * `Server-Timing: queue;dur=0.4, compute;dur=27.1` → `{ queue: 0.4, compute: 27.1 }`.
 * The same reading as he-core's `parseServerTiming`, kept here because the load
 * generator is a fresh process per cell: importing he-core's entry (node-seal's
 * loader included) would add about a second to every start.
 */
export function serverTimingPhases(header: string | null): Record<string, number> {
  const phases: Record<string, number> = {}
  for (const part of (header ?? '').split(',')) {
    const [name, ...params] = part.split(';').map((piece) => piece.trim())
    if (!name) continue
    const dur = params.map((param) => /^dur\s*=\s*"?([0-9.eE+-]+)"?$/.exec(param)?.[1]).find(Boolean)
    const value = Number(dur ?? 0)
    phases[name] = (phases[name] ?? 0) + (Number.isFinite(value) ? value : 0)
  }
  return phases
}
