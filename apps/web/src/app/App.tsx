import { type ReactNode, useEffect, useRef } from 'react'
import { LessonProvider } from '../lesson/LessonContext.tsx'
import { LessonGuide } from '../lesson/LessonGuide.tsx'
import { LessonsButton } from '../lesson/LessonsButton.tsx'
import { CodePanel } from '../panels/code/CodePanel.tsx'
import { FunctionsPanel } from '../panels/functions/FunctionsPanel.tsx'
import { KeysPanel } from '../panels/keys/KeysPanel.tsx'
import { ParametersPanel } from '../panels/parameters/ParametersPanel.tsx'
import { ServerPanel } from '../panels/server/ServerPanel.tsx'
import { useServerHistory } from '../panels/server/useServerHistory.ts'
import { VariablesPanel } from '../panels/variables/VariablesPanel.tsx'
import { ActivityBar } from './ActivityBar.tsx'
import { NoticeBanner } from './NoticeBanner.tsx'
import { PanelNav } from './PanelNav.tsx'
import { PANELS, type PanelId } from './panels.ts'
import { ReadOnlyBanner } from './ReadOnlyBanner.tsx'
import { useActivity, useWorkspace } from './SandboxContext.tsx'
import { SharedLinkOpener } from './SharedLinkOpener.tsx'
import { useFocusAfterJob } from './useFocusAfterJob.ts'
import { useHashPanel } from './useHashPanel.ts'
import { usePanelBadges } from './usePanelBadges.ts'
import { WorkspaceMenu } from './WorkspaceMenu.tsx'
import { WorkspacesDialog } from './WorkspacesDialog.tsx'

function panelBody(panel: PanelId): ReactNode {
  switch (panel) {
    case 'parameters':
      return <ParametersPanel />
    case 'keys':
      return <KeysPanel />
    case 'variables':
      return <VariablesPanel />
    case 'functions':
      return <FunctionsPanel />
    case 'code':
      return <CodePanel />
    case 'server':
      return <ServerPanel />
    default: {
      const never: never = panel
      return never
    }
  }
}

/** The sandbox shell: header, activity bar, panel tabs and the open panel. */
export function App() {
  const [panel, open] = useHashPanel()
  useServerHistory()
  useFocusAfterJob()
  const workspace = useWorkspace()
  // Another tab owns this workspace: nothing here can change it until Take over.
  const readOnly = useActivity().lease === 'readOnly'
  const badges = usePanelBadges(workspace)
  const meta = PANELS.find((p) => p.id === panel)
  const shownPanel = useRef<PanelId | undefined>(undefined)
  useEffect(() => {
    // A link to another panel ("Go to Keys →") unmounts itself and focus fell to <body>: the
    // keyboard goes on from the panel it opened. Not on the first render (the skip link comes first).
    const first = shownPanel.current === undefined
    shownPanel.current = panel
    const active = document.activeElement
    if (!first && (active === null || active === document.body || !active.isConnected)) {
      document.getElementById(`panel-${panel}`)?.focus()
    }
  }, [panel])
  return (
    <LessonProvider>
      <div className="app">
        {/* Keyboard users reach the open panel without tabbing through the header, bar and tabs. */}
        <a
          className="skip-link"
          href={`#panel-${panel}`}
          onClick={(event) => {
            // The hash names the open panel (useHashPanel): move focus without changing it.
            event.preventDefault()
            document.getElementById(`panel-${panel}`)?.focus()
          }}
        >
          Skip to the {meta?.title ?? 'panel'} panel
        </a>
        <header className="app-header">
          <div className="brand">
            <span className="brand-mark" aria-hidden="true">
              ◆
            </span>
            <span className="brand-name">sealbox</span>
            <span className="brand-tagline">Homomorphic encryption sandbox · Microsoft SEAL in WebAssembly</span>
          </div>
          {/* Read-only (another tab owns the workspace): lessons still open; nothing here changes it. */}
          <div className="header-menus">
            <LessonsButton />
            <div className="header-menus" inert={readOnly}>
              <WorkspacesDialog />
              <WorkspaceMenu />
            </div>
          </div>
        </header>
        <ActivityBar />
        <ReadOnlyBanner />
        <NoticeBanner />
        <SharedLinkOpener />
        <div className="app-body">
          <PanelNav current={panel} onOpen={open} badges={badges} />
          {/* The page's one main landmark; the open tab's panel is inside it (a tabpanel role on <main> hid the landmark). */}
          {/* Read-only: the tabs still open every panel to look at; the panels take no input. */}
          <main className="panel-main" inert={readOnly}>
            <LessonGuide onOpenPanel={open} />
            <div
              className="panel"
              id={`panel-${panel}`}
              role="tabpanel"
              aria-labelledby={`tab-${panel}`}
              data-panel={panel}
              tabIndex={-1}
            >
              <h1 className="panel-title">{meta?.title}</h1>
              {panelBody(panel)}
            </div>
          </main>
        </div>
      </div>
    </LessonProvider>
  )
}
