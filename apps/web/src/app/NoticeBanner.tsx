import { formWords } from '../ui/formWords.ts'
import { useActivity, useSandbox } from './SandboxContext.tsx'

/** A dismissible one-line message about the workspace as a whole (restored, imported, storage problems). */
export function NoticeBanner() {
  const sandbox = useSandbox()
  const { notice } = useActivity()
  if (!notice) return null
  return (
    <div className={`banner banner-${notice.tone}`} role={notice.tone === 'error' ? 'alert' : 'status'}>
      {/* Notices may carry he-core's messages (a refused link): said in the form's words. */}
      <span>{formWords(notice.text)}</span>
      <button
        type="button"
        className="button-ghost"
        aria-label="Dismiss"
        onClick={() => sandbox.activity.update((a) => ({ ...a, notice: undefined }))}
      >
        ×
      </button>
    </div>
  )
}
