import type { Ciphertext } from 'node-seal/throws'
import { HeError } from '../errors/HeError.ts'
import type { HeContext } from '../params/HeContext.ts'
import type { SearchConfig } from './SearchConfig.ts'

/** A query ciphertext must be fresh: size 2, first data level, in the scheme's form (NTT form for BGV). */
export function checkQueryCiphertext(
  ctx: HeContext,
  config: Pick<SearchConfig, 'scheme'>,
  ciphertext: Ciphertext,
): void {
  if (ciphertext.size() !== 2) {
    throw new HeError('INVALID_INPUT', `a query ciphertext has ${ciphertext.size()} polynomials, expected 2 (fresh)`)
  }
  if (ctx.levelOf(ciphertext) !== ctx.topLevel) {
    throw new HeError('LEVEL_MISMATCH', 'a query ciphertext is not at the first data level (it was mod-switched)')
  }
  if (ciphertext.isNttForm() !== (config.scheme === 'bgv')) {
    throw new HeError('INVALID_INPUT', `a query ciphertext is ${ciphertext.isNttForm() ? '' : 'not '}in NTT form`)
  }
}
