import { z } from 'zod'
import { ParamsSpec } from '../params/ParamsSpec.ts'
import { ProgramStep, ValueKind, ValueName } from '../program/ProgramSpec.ts'

/**
 * Which evaluation keys to make. `'auto'` makes exactly what the pipeline needs
 * (relinearization keys if a step relinearizes; Galois keys for exactly its rotation
 * steps). `seeded` makes the half-size serializable form and loads it back — what a
 * client uploads to a server.
 */
export const WorkspaceKeysSpec = z
  .object({
    relin: z.union([z.boolean(), z.literal('auto')]).default('auto'),
    galois: z
      .union([
        z.literal('auto'),
        z.literal('powerOfTwo'),
        z.literal('none'),
        z.object({ steps: z.array(z.number().int()).min(1) }).strict(),
      ])
      .default('auto'),
    seeded: z.boolean().default(false),
  })
  .strict()

/** A named value of the workspace, made from a list of numbers (integers for BFV/BGV, reals for CKKS). */
export const WorkspaceVariable = z
  .object({
    name: ValueName,
    kind: ValueKind,
    values: z.array(z.union([z.number(), z.bigint()])).min(1, 'a variable needs at least one value'),
    /** CKKS only: encode at 2^scaleBits instead of the parameters' scale. */
    scaleBits: z.number().positive().optional(),
  })
  .strict()
export type WorkspaceVariable = z.infer<typeof WorkspaceVariable>

/** How printed outputs look: the first `slots` values, CKKS ones with `decimals` digits. */
export const WorkspaceDisplay = z
  .object({
    slots: z.number().int().min(1).max(64).default(8),
    decimals: z.number().int().min(0).max(12).default(4),
  })
  .strict()

/**
 * The sandbox workspace as data: parameters, key options, variables and a pipeline
 * whose inputs are the variables, plus the names to decrypt, decode and print.
 * `runWorkspace` executes it; `generateCode` turns it into a node-seal program
 * that prints the same lines.
 */
export const WorkspaceSpec = z
  .object({
    version: z.literal(1),
    params: ParamsSpec,
    keys: WorkspaceKeysSpec.default({ relin: 'auto', galois: 'auto', seeded: false }),
    /** How ciphertext variables are encrypted: with the public key, or symmetrically with the secret key. */
    encryption: z.enum(['publicKey', 'symmetric']).default('publicKey'),
    variables: z.array(WorkspaceVariable),
    steps: z.array(ProgramStep),
    print: z.array(ValueName).min(1, 'print at least one value'),
    display: WorkspaceDisplay.default({ slots: 8, decimals: 4 }),
  })
  .strict()

/** What callers write (defaults optional). */
export type WorkspaceInput = z.input<typeof WorkspaceSpec>
/** A parsed workspace, defaults applied. */
export type WorkspaceSpec = z.output<typeof WorkspaceSpec>
