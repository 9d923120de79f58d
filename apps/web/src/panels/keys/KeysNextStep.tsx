import { useWorkspace } from '../../app/SandboxContext.tsx'

/** Once keys can encrypt and nothing is encrypted yet: the way on to Variables, as Parameters points to Keys. */
export function KeysNextStep() {
  const { keys, variables } = useWorkspace()
  if (!keys.secretKey || !keys.publicKey || variables.length > 0) return null
  return (
    <p className="next-step" data-testid="keys-next-step">
      The keys are ready. Next, encrypt some numbers with them:{' '}
      <a href="#variables" className="button button-primary" data-focus-after-job>
        Go to Variables →
      </a>
    </p>
  )
}
