import { z } from 'zod'
import { defineCli } from '../cli/defineCli.ts'
import { listFlagOf, numberFlag } from '../cli/flagSchemas.ts'

/** The flags of `pnpm --filter @sealbox/bench benchmark:evaluate-body`. */
export const EvaluateBodyFlagsSchema = z
  .object({
    degrees: listFlagOf('degree', z.coerce.number().pipe(z.union([z.literal(4096), z.literal(8192)])))
      .default([4096, 8192])
      .meta({ value: 'list', description: 'polynomial modulus degrees n of the BFV cases (4096, 8192)' }),
    inputs: listFlagOf('input count', numberFlag('inputs', 2, 32))
      .default([2, 16])
      .meta({ value: 'list', description: 'ciphertext inputs per request (each case sums them, then multiplies)' }),
    requests: numberFlag('requests', 3, 100_000)
      .default(40)
      .meta({ value: 'N', description: 'measured requests per case, sent one at a time' }),
    warmup: numberFlag('warmup', 0, 10_000)
      .default(5)
      .meta({ value: 'N', description: 'unrecorded requests per case before measuring' }),
    label: z
      .string()
      .regex(/^[a-z][a-z0-9-]{0,31}$/, 'label is lower-case letters, digits and -')
      .default('current')
      .meta({
        value: 'name',
        description: 'the column this run fills in the report (e.g. before, after); other columns are kept',
      }),
  })
  .strict()

export type EvaluateBodySettings = z.output<typeof EvaluateBodyFlagsSchema>

export const EVALUATE_BODY_CLI = defineCli({
  command: 'pnpm --filter @sealbox/bench benchmark:evaluate-body --',
  summary:
    'Starts a real sealbox server (pool executor), uploads one key set per case and sends evaluate requests one at a time; reports per request the Server-Timing phases, the bytes up and down, and the event-loop time of the route (decode + encode). Writes packages/bench/results/evaluate-body/evaluate-body.{md,json}.',
  flags: EvaluateBodyFlagsSchema,
})
