import { type KeyboardEvent, useRef } from 'react'
import { PANELS, type PanelId } from './panels.ts'

/** Vertical tab list: arrow keys move between panels, Home/End jump (WAI-ARIA tabs pattern). */
export function PanelNav({
  current,
  onOpen,
  badges,
}: {
  current: PanelId
  onOpen: (panel: PanelId) => void
  badges: Partial<Record<PanelId, string>>
}) {
  const refs = useRef<Array<HTMLButtonElement | null>>([])
  const onKeyDown = (event: KeyboardEvent<HTMLButtonElement>, index: number) => {
    let next: number | undefined
    if (event.key === 'ArrowDown' || event.key === 'ArrowRight') next = (index + 1) % PANELS.length
    else if (event.key === 'ArrowUp' || event.key === 'ArrowLeft') next = (index - 1 + PANELS.length) % PANELS.length
    else if (event.key === 'Home') next = 0
    else if (event.key === 'End') next = PANELS.length - 1
    if (next === undefined) return
    event.preventDefault()
    const panel = PANELS[next]
    if (!panel) return
    onOpen(panel.id)
    refs.current[next]?.focus()
  }
  return (
    <nav className="panel-nav" aria-label="Sandbox panels">
      <div role="tablist" aria-orientation="vertical">
        {PANELS.map((panel, index) => {
          const selected = panel.id === current
          return (
            <button
              key={panel.id}
              ref={(element) => {
                refs.current[index] = element
              }}
              type="button"
              role="tab"
              id={`tab-${panel.id}`}
              aria-selected={selected}
              aria-controls={`panel-${panel.id}`}
              tabIndex={selected ? 0 : -1}
              className="panel-tab"
              onClick={() => onOpen(panel.id)}
              onKeyDown={(event) => onKeyDown(event, index)}
            >
              <span className="panel-tab-step">{index + 1}</span>
              <span className="panel-tab-text">
                <span className="panel-tab-title">{panel.title}</span>
                <span className="panel-tab-blurb">{badges[panel.id] ?? panel.blurb}</span>
              </span>
            </button>
          )
        })}
      </div>
    </nav>
  )
}
