import { z } from 'zod'
import { defineCli } from '../core/defineCli.ts'
import { listFlagOf, numberFlag } from '../core/flagSchemas.ts'
import { CALIBRATION_KINDS } from './calibrationGrid.ts'

/** The flags of `pnpm --filter @sealbox/bench benchmark:calibrate`. */
export const CalibrationFlagsSchema = z
  .object({
    schemes: listFlagOf('scheme', z.enum(['bfv', 'bgv', 'ckks']))
      .default(['bfv', 'bgv', 'ckks'])
      .meta({ value: 'list', description: 'schemes of the grid' }),
    degrees: listFlagOf('degree', z.coerce.number().pipe(z.union([z.literal(4096), z.literal(8192), z.literal(16384)])))
      .default([4096, 8192])
      .meta({ value: 'list', description: 'polynomial modulus degrees n of the grid (4096, 8192, 16384)' }),
    kinds: listFlagOf('kind', z.enum(CALIBRATION_KINDS))
      .default([...CALIBRATION_KINDS])
      .meta({ value: 'list', description: `programs of the grid (${CALIBRATION_KINDS.join(', ')})` }),
    repeat: numberFlag('repeat', 1, 200)
      .default(8)
      .meta({ value: 'N', description: 'times each program repeats its op (longer jobs time better)' }),
    passes: numberFlag('passes', 1, 100).default(3).meta({
      value: 'N',
      description: 'sweeps of the whole grid (a burst of load lands on few samples of each cell)',
    }),
    requests: numberFlag('requests', 1, 10_000)
      .default(3)
      .meta({ value: 'N', description: 'measured requests per cell per pass (the median of all passes is reported)' }),
    warmup: numberFlag('warmup', 0, 1000)
      .default(1)
      .meta({ value: 'N', description: 'unrecorded requests per cell per pass' }),
    name: z
      .string()
      .regex(/^[a-z0-9-]+$/, 'name: lower-case letters, digits and dashes')
      .optional()
      .meta({
        value: 'name',
        description: 'report file name under results/calibration (default calibration, --quick: calibration-quick)',
      }),
    quick: z.boolean().default(false).meta({ description: 'a small grid (n=4096, 3 requests) to check the set-up' }),
  })
  .strict()

export const CALIBRATION_CLI = defineCli({
  command: 'pnpm --filter @sealbox/bench benchmark:calibrate --',
  summary:
    "Checks he-core's cost model against the clock: runs a grid of programs (schemes, n, grown ciphertexts, NAF rotations, sums, plaintext ops, many inputs) on a real server's one pool worker and reports the worker's milliseconds per cost unit for each, and their spread (largest ÷ smallest). Writes packages/bench/results/calibration/calibration.{md,json}.",
  flags: CalibrationFlagsSchema,
})
