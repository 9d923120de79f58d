import { type DiagonalMemory, RnsKernel } from '@sealbox/he-ring'
import { ringCall } from '../errors/toHeError.ts'
import { galoisElementOf } from '../keys/galoisElements.ts'
import type { HeContext } from '../params/HeContext.ts'
import type { SearchConfig } from './SearchConfig.ts'

/**
 * he-ring's key-switching kernel for a search config: the context's key primes and t, and
 * the Galois elements of the config's steps; its diagonals in `diagonals` when given
 * (shared by a node's threads), else in a memory of its own.
 */
export function keySwitchRnsKernel(
  ctx: HeContext,
  config: SearchConfig,
  diagonals: DiagonalMemory | undefined,
): RnsKernel {
  const n = config.polyModulusDegree
  return ringCall(
    'prepare the key-switching kernel',
    () =>
      new RnsKernel(
        {
          polyModulusDegree: n,
          keyPrimes: ctx.coeffPrimes,
          plainModulus: ctx.plainModulus ?? 0n,
          galoisElements: config.galoisSteps.map((step) => galoisElementOf(n, step)),
        },
        diagonals ? { diagonals } : {},
      ),
  )
}
