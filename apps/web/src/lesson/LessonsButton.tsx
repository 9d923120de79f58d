import { useLessonProgress } from './LessonContext.tsx'
import { LESSONS_BUTTON_ID, requestLessonFocus } from './LessonGuide.tsx'

/** The header's Lessons button: opens the first lesson where the learner left it (or closes it). */
export function LessonsButton() {
  const [progress, change] = useLessonProgress()
  return (
    <button
      type="button"
      id={LESSONS_BUTTON_ID}
      className="button-header"
      aria-expanded={progress.open}
      onClick={() => {
        if (!progress.open) requestLessonFocus()
        change((p) => ({ ...p, open: !p.open, offerAnswered: true }))
      }}
    >
      Lessons
    </button>
  )
}
