import type { Ciphertext, GaloisKeys } from 'node-seal/throws'
import { sealCall } from '../errors/toHeError.ts'
import type { HeContext } from '../params/HeContext.ts'
import { deleteSealObject } from '../seal/sealOutOfMemory.ts'
import { sumElementsSteps } from './rotationKeys.ts'

/**
 * Writes into `destination` a ciphertext whose every slot is the sum of all slots
 * of `source` (BFV/BGV: modulo t). node-seal 7 dropped SEAL's helper, so this is
 * the rotate-and-add loop: rotations by n/4, …, 1 sum each row (BFV/BGV) or the
 * CKKS vector, then BFV/BGV add the swapped row. Needs Galois keys for those steps
 * (the power-of-two default set covers them) and a size-2 `source`.
 */
export function sumElementsInto(
  ctx: HeContext,
  source: Ciphertext,
  galoisKeys: GaloisKeys,
  destination: Ciphertext,
  label = 'sumElements',
): void {
  const ev = ctx.evaluator
  const rotated = new ctx.seal.Ciphertext()
  try {
    sealCall(label, () => {
      destination.assign(source)
      for (const step of sumElementsSteps(ctx.params.polyModulusDegree)) {
        if (ctx.scheme === 'ckks') ev.rotateVector(destination, step, galoisKeys, rotated)
        else ev.rotateRows(destination, step, galoisKeys, rotated)
        ev.addInplace(destination, rotated)
      }
      if (ctx.scheme !== 'ckks') {
        ev.rotateColumns(destination, galoisKeys, rotated)
        ev.addInplace(destination, rotated)
      }
    })
  } finally {
    deleteSealObject(rotated)
  }
}
