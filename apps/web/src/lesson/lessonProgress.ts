import { z } from 'zod'

/**
 * Where the learner is in the first lesson. Kept in localStorage, beside (not inside)
 * the workspace: the lesson reads the workspace but is no part of it, so exporting,
 * sharing or resetting a workspace never carries or clears lesson progress.
 */
export const LessonProgress = z.object({
  version: z.literal(1),
  /** The lesson card is open. */
  open: z.boolean(),
  /** Index into LESSON_STEPS. */
  step: z.number().int().min(0),
  /** The first-visit offer was answered (started or "Not now"): it is not shown again. */
  offerAnswered: z.boolean(),
  /** The learner copied or downloaded a generated program. */
  exported: z.boolean(),
  /** The learner's reading of the product's noise budget. */
  budgetAnswer: z.string().max(20),
})
export type LessonProgress = z.infer<typeof LessonProgress>

export const NEW_LESSON_PROGRESS: LessonProgress = {
  version: 1,
  open: false,
  step: 0,
  offerAnswered: false,
  exported: false,
  budgetAnswer: '',
}

const STORAGE_KEY = 'sealbox.lesson'

/** The saved progress, or a fresh one when nothing (or nothing valid) is saved or storage is off. */
export function loadLessonProgress(): LessonProgress {
  try {
    const text = window.localStorage.getItem(STORAGE_KEY)
    if (text === null) return NEW_LESSON_PROGRESS
    const parsed = LessonProgress.safeParse(JSON.parse(text))
    return parsed.success ? parsed.data : NEW_LESSON_PROGRESS
  } catch {
    // Storage disabled or a damaged entry: the lesson starts over, nothing else depends on it.
    return NEW_LESSON_PROGRESS
  }
}

/** Saves the progress; a browser without storage just forgets it. */
export function saveLessonProgress(progress: LessonProgress): void {
  try {
    window.localStorage.setItem(STORAGE_KEY, JSON.stringify(progress))
  } catch {
    // Private mode or a full quota: the lesson still works for this visit.
  }
}
