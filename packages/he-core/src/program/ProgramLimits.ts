/**
 * Bounds on what a program may ask for, so that a program from the network cannot
 * make a worker run for minutes or exhaust its heap. Exceeding one is `LIMIT_EXCEEDED`.
 */
export interface ProgramLimits {
  /** Steps per program. */
  maxSteps: number
  maxInputs: number
  maxOutputs: number
  /** Largest `exponentiate` exponent (each doubling is a multiplication and a relinearization). */
  maxExponent: number
  /**
   * Largest |steps| of a rotation. SEAL itself allows up to rowSize − 1 (n/2 − 1) and
   * that bound always applies; a smaller value here tightens it.
   */
  maxRotationSteps: number
  /** Key switches (relinearizations, rotations, incl. those inside sumElements) per program. */
  maxKeySwitches: number
}

/** Defaults generous for the sandbox and safe for a server worker at n ≤ 16384. */
export const DEFAULT_PROGRAM_LIMITS: Readonly<ProgramLimits> = {
  maxSteps: 256,
  maxInputs: 64,
  maxOutputs: 64,
  maxExponent: 64,
  maxRotationSteps: Number.POSITIVE_INFINITY,
  maxKeySwitches: 4096,
}

/** Fills the unset limits with the defaults. */
export function resolveLimits(limits: Partial<ProgramLimits> = {}): ProgramLimits {
  return { ...DEFAULT_PROGRAM_LIMITS, ...limits }
}
