/**
 * The sentence a generated BFV/BGV program stops with when step `index` leaves its result
 * without noise budget: the words sealbox's evaluator (`runProgram`) uses, with the step
 * capitalised as the sandbox shows it. The sandbox's Code panel promises exactly this line.
 */
export function noiseBudgetStopMessage(step: { op: string; out: string }, index: number): string {
  return `Step ${index + 1} (${step.op}): '${step.out}' has no noise budget left, so it would decrypt to garbage; use larger parameters (n, coefficient modulus) or fewer multiplications`
}
