import type { SearchOperationCount } from '@sealbox/he-core/search'
import type { KernelOpTimes } from './measureKernelOps.ts'

/** The kernel's constants of the search cost model (he-core's SEARCH_KERNEL_UNIT_COSTS). */
export interface KernelUnitCosts {
  multiply: number
  rotation: number
  hoistedRotation: number
  decomposition: number
  modSwitch: number
}

/** One kernel config timed whole: its counts, what the model says and what the clock says. */
export interface KernelQuerySample {
  label: string
  rows: number
  dimension: number
  babyStep: number
  hoisted: boolean
  operations: SearchOperationCount
  /** The model's estimate with the constants in force (ms). */
  estimatedMs: number
  /** Mean thread CPU per query (ms): what a query costs a core. */
  cpuMs: number
  /** Server total, min and median (ms, wall clock). */
  totalMin: number
  totalMedian: number
  exact: boolean
}

/** Kernel units one query spends under `costs`. */
export function kernelUnits(sample: Pick<KernelQuerySample, 'operations' | 'hoisted'>, costs: KernelUnitCosts): number {
  const o = sample.operations
  const hoisted = sample.hoisted && o.babyRotations > 0
  return (
    o.multiplies * costs.multiply +
    o.giantRotations * costs.rotation +
    o.babyRotations * (hoisted ? costs.hoistedRotation : costs.rotation) +
    (hoisted ? costs.decomposition : 0) +
    o.responseCiphertexts * costs.modSwitch
  )
}

/**
 * New kernel constants: their ratios from the kernel's own operations timed against the
 * unit in one run (`ops`), one common scale fitted by least squares to whole queries, where
 * what the model adds outside the kernel (the query's load, the response's save) is kept.
 * A query's CPU time is counted in this run's units (÷ `ops.unit`), so a machine busier or
 * quieter than the one SEARCH_UNIT_MS was set on moves both alike. `unitMs` is the model's
 * ms per unit (SEARCH_UNIT_MS) and `current` the constants in force.
 */
export function fitKernelCosts(
  samples: readonly KernelQuerySample[],
  ops: KernelOpTimes,
  unitMs: number,
  current: KernelUnitCosts,
): { costs: KernelUnitCosts; scale: number } {
  const ratios: KernelUnitCosts = {
    multiply: ops.multiply / ops.unit,
    rotation: ops.rotation / ops.unit,
    hoistedRotation: ops.hoistedRotation / ops.unit,
    decomposition: ops.decomposition / ops.unit,
    modSwitch: ops.modSwitch / ops.unit,
  }
  let xy = 0
  let xx = 0
  for (const sample of samples) {
    const outside = sample.estimatedMs / unitMs - kernelUnits(sample, current)
    const y = sample.cpuMs / ops.unit - outside
    const x = kernelUnits(sample, ratios)
    xy += x * y
    xx += x * x
  }
  const scale = xx > 0 ? xy / xx : 1
  const round = (value: number) => Math.round(value * scale * 100) / 100
  return {
    scale,
    costs: {
      multiply: Math.round(ratios.multiply * scale * 1000) / 1000,
      rotation: round(ratios.rotation),
      hoistedRotation: round(ratios.hoistedRotation),
      decomposition: round(ratios.decomposition),
      modSwitch: round(ratios.modSwitch),
    },
  }
}

/** The model's estimate of a sample (ms) under other kernel constants. */
export function estimateWith(
  sample: KernelQuerySample,
  unitMs: number,
  current: KernelUnitCosts,
  costs: KernelUnitCosts,
): number {
  return sample.estimatedMs + (kernelUnits(sample, costs) - kernelUnits(sample, current)) * unitMs
}
