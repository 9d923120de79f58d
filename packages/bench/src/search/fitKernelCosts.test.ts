import { describe, expect, it } from 'vitest'
import { estimateWith, fitKernelCosts, type KernelQuerySample, kernelUnits } from './fitKernelCosts.ts'

const current = { multiply: 0.05, rotation: 2.5, hoistedRotation: 1.8, decomposition: 1, modSwitch: 0.75 }
const ops = { unit: 0.2, rotation: 0.2, hoistedRotation: 0.12, decomposition: 0.06, multiply: 0.004, modSwitch: 0.06 }

function sample(babyRotations: number, giantRotations: number, hoisted: boolean, cpuMs: number): KernelQuerySample {
  const operations = {
    queryCiphertexts: 1,
    babyRotations,
    giantRotations,
    multiplies: 40,
    additions: 0,
    nttTransforms: 0,
    responseCiphertexts: 3,
  }
  // What the model adds outside the kernel: 3 units (a query load and three saves, say).
  const estimatedMs = (3 + kernelUnits({ operations, hoisted }, current)) * 0.2
  return {
    label: `b${babyRotations} g${giantRotations}`,
    rows: 1,
    dimension: 16,
    babyStep: babyRotations + 1,
    hoisted,
    operations,
    estimatedMs,
    cpuMs,
    totalMin: cpuMs,
    totalMedian: cpuMs,
    exact: true,
  }
}

describe('fitKernelCosts', () => {
  it('keeps the measured ratios and recovers the scale that makes the model meet the clock', () => {
    // Queries that cost exactly 1.5 × their kernel operations (in units of ops.unit) plus the 3 outside units.
    const ratios = { multiply: 0.02, rotation: 1, hoistedRotation: 0.6, decomposition: 0.3, modSwitch: 0.3 }
    const truth = (b: number, g: number, hoisted: boolean) =>
      (3 + 1.5 * kernelUnits(sample(b, g, hoisted, 0), ratios)) * ops.unit
    const samples = [
      sample(7, 2, false, truth(7, 2, false)),
      sample(3, 4, false, truth(3, 4, false)),
      sample(7, 2, true, truth(7, 2, true)),
      sample(15, 0, true, truth(15, 0, true)),
    ]
    const { scale, costs } = fitKernelCosts(samples, ops, 0.2, current)
    expect(scale).toBeCloseTo(1.5, 10)
    expect(costs).toEqual({ multiply: 0.03, rotation: 1.5, hoistedRotation: 0.9, decomposition: 0.45, modSwitch: 0.45 })
    for (const s of samples) expect(estimateWith(s, 0.2, current, costs) / s.cpuMs).toBeCloseTo(1, 2)
  })

  it('prices a hoisted query its decomposition once, and none without baby rotations', () => {
    const costs = { multiply: 0, rotation: 1, hoistedRotation: 0.5, decomposition: 2, modSwitch: 0 }
    expect(kernelUnits(sample(7, 2, true, 1), costs)).toBe(2 + 7 * 0.5 + 2)
    expect(kernelUnits(sample(0, 3, true, 1), costs)).toBe(3)
    expect(kernelUnits(sample(7, 2, false, 1), costs)).toBe(9)
  })
})
