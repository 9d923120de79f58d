import { HeError } from '@sealbox/he-core'
import { createContext, type ReactNode, useContext, useState, useSyncExternalStore } from 'react'
import { ExternalStore } from '../sandbox/ExternalStore.ts'
import { type LessonProgress, loadLessonProgress, saveLessonProgress } from './lessonProgress.ts'

const LessonContext = createContext<ExternalStore<LessonProgress> | undefined>(undefined)

/** Holds the lesson's progress for the page (loaded from and saved to localStorage). */
export function LessonProvider({ children }: { children: ReactNode }) {
  const [store] = useState(() => {
    const created = new ExternalStore<LessonProgress>(loadLessonProgress())
    created.subscribe(() => saveLessonProgress(created.state))
    return created
  })
  return <LessonContext.Provider value={store}>{children}</LessonContext.Provider>
}

/** The lesson's progress and a way to change it. */
export function useLessonProgress(): [LessonProgress, (change: (progress: LessonProgress) => LessonProgress) => void] {
  const store = useContext(LessonContext)
  if (!store) throw new HeError('INTERNAL', 'useLessonProgress must be used inside <LessonProvider>')
  const progress = useSyncExternalStore(store.subscribe, store.getSnapshot)
  return [progress, (change) => store.update(change)]
}

/**
 * What the Code panel calls when a program is copied or downloaded: the lesson's last
 * step checks it. Outside a LessonProvider (a panel rendered alone) it does nothing.
 */
export function useNoteProgramExported(): () => void {
  const store = useContext(LessonContext)
  return () => store?.update((progress) => (progress.exported ? progress : { ...progress, exported: true }))
}
