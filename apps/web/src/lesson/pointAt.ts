import type { LessonTarget } from './lessonSteps.ts'

/** How many animation frames to wait for a panel to render its control. */
const MAX_FRAMES = 120
const POINTER_CLASS = 'lesson-pointer'

function find(target: LessonTarget): HTMLElement | undefined {
  const panel = document.querySelector(`[data-panel="${target.panel}"]`)
  if (!panel) return undefined
  const candidates = [...panel.querySelectorAll<HTMLElement>(target.selector)]
  if (target.text === undefined) return candidates[0]
  return candidates.find((element) => element.textContent?.trim() === target.text)
}

function nextFrame(): Promise<void> {
  return new Promise((resolve) => requestAnimationFrame(() => resolve()))
}

/**
 * Points at a lesson's control: waits for its panel to render it, scrolls it into view,
 * gives it the keyboard focus and outlines it (its label, for a visually hidden radio)
 * until it loses focus. Resolves false when the control is not on the page (a panel
 * that needs an earlier step first).
 */
export async function pointAt(target: LessonTarget): Promise<boolean> {
  let element = find(target)
  for (let frame = 0; element === undefined && frame < MAX_FRAMES; frame++) {
    // The panel was just opened: React renders it within a frame or two.
    await nextFrame()
    element = find(target)
  }
  if (!element) return false
  const shown = (element instanceof HTMLInputElement && element.labels?.[0]) || element
  for (const old of document.querySelectorAll(`.${POINTER_CLASS}`)) old.classList.remove(POINTER_CLASS)
  shown.classList.add(POINTER_CLASS)
  element.addEventListener('blur', () => shown.classList.remove(POINTER_CLASS), { once: true })
  const reduced = window.matchMedia('(prefers-reduced-motion: reduce)').matches
  shown.scrollIntoView({ block: 'center', behavior: reduced ? 'auto' : 'smooth' })
  element.focus({ preventScroll: true })
  return true
}
