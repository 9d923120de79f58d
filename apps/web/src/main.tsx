import './zodWithoutEval.ts'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './app/App.tsx'
import { SandboxProvider } from './app/SandboxContext.tsx'
import { Sandbox } from './sandbox/Sandbox.ts'
import './styles.css'

// The literal `new URL(..., import.meta.url)` inside `new Worker` is what Vite bundles as a module worker.
const sandbox = new Sandbox(
  () => new Worker(new URL('./worker/sealbox.worker.ts', import.meta.url), { type: 'module', name: 'seal' }),
)
void sandbox.start()

const root = document.getElementById('root')
if (!root) throw new Error('index.html has no #root')
createRoot(root).render(
  <StrictMode>
    <SandboxProvider sandbox={sandbox}>
      <App />
    </SandboxProvider>
  </StrictMode>,
)
