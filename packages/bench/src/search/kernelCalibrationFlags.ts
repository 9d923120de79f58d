import { z } from 'zod'
import { defineCli } from '../core/defineCli.ts'
import { numberFlag } from '../core/flagSchemas.ts'

/** The flags of `pnpm --filter @sealbox/bench benchmark:calibrate-kernel`. */
export const KernelCalibrationFlagsSchema = z
  .object({
    samples: numberFlag('samples', 1, 10_000)
      .default(30)
      .meta({ value: 'N', description: 'timed queries per config (interleaved across configs)' }),
    warmup: numberFlag('warmup', 0, 1000).default(3).meta({ value: 'N', description: 'warm-up queries per config' }),
    'op-samples': numberFlag('op-samples', 1, 100_000)
      .default(200)
      .meta({ value: 'N', description: 'samples of each kernel operation and of the unit' }),
  })
  .strict()

export const KERNEL_CALIBRATION_CLI = defineCli({
  command: 'pnpm --filter @sealbox/bench benchmark:calibrate-kernel --',
  summary:
    "Re-derives the search cost model's kernel constants (he-core SEARCH_KERNEL_UNIT_COSTS): the kernel's operations timed against the model's unit for their ratios, whole queries of kernel configs (g, hoisting, two shapes) for one fitted scale; reports predicted ÷ measured per config with the old and new constants and whether the model's g is the fastest measured. Writes packages/bench/results/calibration/search-kernel.{md,json}.",
  flags: KernelCalibrationFlagsSchema,
})
