import type { PanelId } from '../app/panels.ts'
import type { PipelineEntry, WorkspaceState } from '../workspace/workspaceState.ts'

/** What the lesson checks against: the sandbox's own workspace, plus what the learner did in the lesson itself. */
export interface LessonFacts {
  state: WorkspaceState
  /** The learner copied or downloaded the generated program (Code panel). */
  exported: boolean
  /** What the learner typed as the product's noise budget (step "Watch the budget"). */
  budgetAnswer: string
}

/** A control the lesson points at: on which panel, and how to find it there. */
export interface LessonTarget {
  panel: PanelId
  /** A CSS selector inside the open panel. */
  selector: string
  /** When several elements match, the one whose text (or accessible label) is this. */
  text?: string
  /** Said on the "Show me" button: "Show me Create context". */
  name: string
}

/** One thing the learner has to do in a step, and whether the sandbox shows it done. */
export interface LessonCheck {
  label: string
  done: boolean
  target: LessonTarget
}

/** One step of the lesson. */
export interface LessonStep {
  id: string
  title: string
  /** Two or three sentences: why this step matters. */
  why: string
  checks: (facts: LessonFacts) => LessonCheck[]
  /** Said once every check is done. */
  doneNote: string
  /** The step asks for the product's noise budget (a field in the lesson card). */
  asksBudget?: boolean
}

const MULTIPLICATIONS = new Set(['multiply', 'square', 'exponentiate'])
const ROTATIONS = new Set(['rotateRows', 'rotateVector', 'rotateColumns'])

const OPERATION_MENU: Omit<LessonTarget, 'name'> = { panel: 'functions', selector: '#add-step-op' }

/** A step that ran with these parameters: its result is in the workspace now (a stale success is not). */
function ranHere(state: WorkspaceState, entry: PipelineEntry): boolean {
  return entry.last?.status === 'ok' && state.variables.some((v) => v.name === entry.out && v.origin === 'pipeline')
}

/** Ciphertexts made from numbers the learner typed. */
function typedCiphertexts(state: WorkspaceState): string[] {
  return state.variables.filter((v) => v.kind === 'ciphertext' && v.origin === 'values').map((v) => v.name)
}

/** The first multiplication of two typed ciphertexts that ran with these parameters. */
export function productStep(state: WorkspaceState): PipelineEntry | undefined {
  const typed = new Set(typedCiphertexts(state))
  return state.pipeline.find(
    (entry) =>
      entry.op === 'multiply' &&
      entry.a !== entry.b &&
      typed.has(entry.a) &&
      typed.has(entry.b) &&
      ranHere(state, entry),
  )
}

/** Multiplications in a row behind each name of the pipeline (a relinearization or rotation keeps the depth). */
export function multiplicativeDepth(state: WorkspaceState): number {
  const depth = new Map<string, number>()
  let deepest = 0
  for (const entry of state.pipeline) {
    const operands = entry.op === 'multiply' || entry.op === 'innerProduct' ? [entry.a, entry.b] : [entry.a]
    const below = Math.max(0, ...operands.map((name) => depth.get(name) ?? 0))
    const here = below + (MULTIPLICATIONS.has(entry.op) ? 1 : 0)
    depth.set(entry.out, here)
    if (ranHere(state, entry)) deepest = Math.max(deepest, here)
  }
  return deepest
}

function budgetNumber(answer: string): number | undefined {
  const trimmed = answer.trim()
  return /^\d+$/.test(trimmed) ? Number(trimmed) : undefined
}

/**
 * The first lesson: eight steps over the learner's own workspace. Every check reads the
 * sandbox's state (the workspace the panels edit), so the lesson sees what the learner
 * really did, in any order, and a check that was done can become undone again.
 */
export const LESSON_STEPS: readonly LessonStep[] = [
  {
    id: 'context',
    title: 'Make a context',
    why: 'Everything in SEAL starts from parameters: the scheme, the ring size n and the coefficient modulus. They fix how many numbers one ciphertext holds, how much work it can take and how secure it is. The defaults (BFV, n = 4096) are a good start.',
    checks: ({ state }) => [
      {
        label: 'A SEAL context is built',
        done: state.applied !== undefined,
        target: { panel: 'parameters', selector: 'button', text: 'Create context', name: 'Create context' },
      },
    ],
    doneNote: 'The context is built: SEAL checked the parameters and precomputed what every operation needs.',
  },
  {
    id: 'keys',
    title: 'Make keys',
    why: 'The secret key decrypts; the public key lets anyone encrypt. Relinearization keys shrink a product back to two polynomials and Galois keys let the server rotate slots, both without the secret key.',
    checks: ({ state }) => [
      {
        label: 'A secret, a public and relinearization keys are ready',
        done: Boolean(state.keys.secretKey && state.keys.publicKey && state.keys.relinKeys),
        target: { panel: 'keys', selector: 'button', text: 'Generate keys', name: 'Generate keys' },
      },
    ],
    doneNote: 'Keys are ready. Only the secret key can decrypt; the others can be handed to whoever computes.',
  },
  {
    id: 'multiply',
    title: 'Encrypt two vectors and multiply them',
    why: 'Batching packs a whole vector into one ciphertext, and one homomorphic multiplication multiplies every slot at once. Encrypt two vectors, say x = 1, 2, 3, 4 and y = 5, 6, 7, 8, then add a Multiply step and run it.',
    checks: ({ state }) => [
      {
        label: 'Two vectors encrypted (Encode and encrypt, twice)',
        done: typedCiphertexts(state).length >= 2,
        target: { panel: 'variables', selector: '#variable-values', name: 'the Values box' },
      },
      {
        label: 'A Multiply step of the two ran',
        done: productStep(state) !== undefined,
        target: { ...OPERATION_MENU, name: 'the operation menu' },
      },
    ],
    doneNote: 'The product decrypts to the slot-wise products: the computation never saw the numbers.',
  },
  {
    id: 'budget',
    title: 'Watch the noise budget',
    why: 'Every ciphertext carries noise, and decryption is right only while the noise stays small. The noise budget counts, in bits, how much room is left; a multiplication spends far more of it than an addition. The chart shows each input’s budget and each step’s.',
    asksBudget: true,
    checks: ({ state, budgetAnswer }) => {
      const product = productStep(state)
      const left = product?.last?.status === 'ok' ? product.last.noiseBudget : undefined
      return [
        {
          label: `You read the product’s budget (${product ? `the ${product.out} row` : 'run the Multiply step first'})`,
          done: left !== undefined && budgetNumber(budgetAnswer) === left,
          target: { panel: 'functions', selector: '[data-testid="noise-chart"] summary', name: 'the chart data' },
        },
      ]
    },
    doneNote: 'Right. Compare it with the inputs’ budgets: one multiplication spent a large share of what there was.',
  },
  {
    id: 'garbage',
    title: 'One multiplication too many',
    why: 'When the budget reaches 0 bits the noise has swallowed the numbers: the ciphertext still decrypts, but to garbage. Add a Square step after the product and run all steps; the sandbox refuses to print the result and “Decrypt anyway” shows the wrong values next to the right ones.',
    checks: ({ state }) => [
      {
        label: 'A step ran out of noise budget',
        done: state.pipeline.some(
          (entry) => entry.last?.status === 'failed' && entry.last.code === 'NOISE_BUDGET_EXHAUSTED',
        ),
        target: { ...OPERATION_MENU, name: 'the operation menu' },
      },
    ],
    doneNote: 'That is what too deep a computation looks like: nothing fails loudly, the numbers are just wrong.',
  },
  {
    id: 'fix',
    title: 'Fix it',
    why: 'Relinearize after each multiplication: it brings the product back to two polynomials, so the next multiplication costs less noise and time. Relinearization and mod-switching keep ciphertexts small, but only a larger coefficient modulus gives more budget: choose n = 8192 on Parameters, create the context, make keys, encrypt x and y again and run all steps.',
    checks: ({ state }) => [
      {
        label: 'A Relinearize step ran',
        done: state.pipeline.some((entry) => entry.op === 'relinearize' && ranHere(state, entry)),
        target: { ...OPERATION_MENU, name: 'the operation menu' },
      },
      {
        label: 'Two multiplications in a row, every step run, none out of budget',
        done:
          multiplicativeDepth(state) >= 2 &&
          state.pipeline.length > 0 &&
          state.pipeline.every((entry) => ranHere(state, entry)),
        target: { panel: 'parameters', selector: '[data-testid="polyModulusDegree-8192"]', name: 'the ring size' },
      },
    ],
    doneNote:
      'Bigger parameters, more budget: every step now decrypts to the right numbers. The cost is time and size.',
  },
  {
    id: 'rotate',
    title: 'Rotate the slots',
    why: 'Slots cannot be read one by one, but they can be moved: a rotation shifts every slot by a number of places, using a Galois key made for that step. Rotations are how sums and inner products are built inside a ciphertext. A rotation needs a ciphertext of size 2: relinearize the square, then add a Rotate rows step and run all steps.',
    checks: ({ state }) => [
      {
        label: 'A rotation ran',
        done: state.pipeline.some((entry) => ROTATIONS.has(entry.op) && ranHere(state, entry)),
        target: { ...OPERATION_MENU, name: 'the operation menu' },
      },
    ],
    doneNote: 'Each slot moved over: compare the rotated result with its input.',
  },
  {
    id: 'export',
    title: 'Export and run the program',
    why: 'The Code panel writes everything you did as a program for node-seal (or native SEAL from Python) that runs without sealbox. Copy or download it, then run it on your computer: it prints exactly the lines under “It prints”.',
    checks: ({ exported }) => [
      {
        label: 'The program copied or downloaded',
        done: exported,
        target: { panel: 'code', selector: '.code-card .card-header button', text: 'Download', name: 'Download' },
      },
    ],
    doneNote:
      'Run it: npm install node-seal@7, then node with the file’s name (Python: pip install seal-python, then python). Its lines match the sandbox’s.',
  },
]
