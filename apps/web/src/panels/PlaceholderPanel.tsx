/** Shown for panels whose he-core parts have not landed yet. */
export function PlaceholderPanel() {
  return <p className="muted">This panel is being built.</p>
}
