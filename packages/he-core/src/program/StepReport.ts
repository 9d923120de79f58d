import { z } from 'zod'
import { type ProgramOp, ProgramStep, ValueKind, ValueName } from './ProgramSpec.ts'

// The op names come from the program schema itself, not from the op table: the client
// entry carries step reports, and the op table reaches SEAL-executing code.
const STEP_OPS = ProgramStep.options.map((step) => step.shape.op.value) as [ProgramOp, ...ProgramOp[]]

/**
 * What one step of `runProgram` did — as it returns it, and as the server's evaluate
 * reply and a browser worker's message carry it (plain JSON: absent fields are the ones
 * that do not apply, e.g. no `level` for a BFV plaintext).
 */
export const StepReportSchema = z
  .object({
    /** 0-based (messages say "step index+1"). */
    index: z.number().int().nonnegative(),
    op: z.enum(STEP_OPS),
    out: ValueName,
    kind: ValueKind,
    /** Wall time of the step (performance.now), including its precondition checks. */
    timeMs: z.number().nonnegative(),
    /** Chain index of the result (absent for BFV/BGV plaintexts, which have no level). */
    level: z.number().int().nonnegative().optional(),
    /** Ciphertext size (number of polynomials; 3 after a multiplication). */
    size: z.number().int().positive().optional(),
    /** BFV/BGV with a decryptor: bits of noise budget left. */
    noiseBudget: z.number().int().nonnegative().optional(),
    /** CKKS: log2 of the scale. */
    scaleLog2: z.number().optional(),
  })
  .strict()
export type StepReport = z.infer<typeof StepReportSchema>
