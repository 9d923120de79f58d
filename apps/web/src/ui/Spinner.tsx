/** A CSS-animated spinner: it keeps turning because the page's main thread never runs SEAL. */
export function Spinner({ label = 'Working' }: { label?: string }) {
  return <span className="spinner" role="status" aria-label={label} />
}
