import { useCallback, useEffect, useState } from 'react'
import { isPanelId, type PanelId } from './panels.ts'

function fromHash(): PanelId {
  // A permalink rides after the panel (`#functions&w=…`): the panel is the part before `&`.
  const id = window.location.hash.replace(/^#\/?/, '').split('&')[0] ?? ''
  return isPanelId(id) ? id : 'parameters'
}

/** The open panel, kept in the URL hash so reloads and links land on it. */
export function useHashPanel(): [PanelId, (panel: PanelId) => void] {
  const [panel, setPanel] = useState<PanelId>(fromHash)
  useEffect(() => {
    const onChange = () => setPanel(fromHash())
    window.addEventListener('hashchange', onChange)
    return () => window.removeEventListener('hashchange', onChange)
  }, [])
  const open = useCallback((next: PanelId) => {
    if (window.location.hash !== `#${next}`) window.location.hash = next
    setPanel(next)
  }, [])
  return [panel, open]
}
