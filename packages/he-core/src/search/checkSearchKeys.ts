import { HeError } from '../errors/HeError.ts'
import { galoisElementOf } from '../keys/galoisElements.ts'
import type { HeContext } from '../params/HeContext.ts'
import type { SearchConfig } from './SearchConfig.ts'
import type { SearchKernelName } from './SearchKernel.ts'
import type { SearchKeys } from './SearchKeys.ts'

/**
 * Checks the keys given with a query of key set `keySetId` before SEAL runs: the same key
 * set (KEY_SET_MISMATCH), Galois keys when the config rotates (MISSING_KEY), made under
 * `ctx`'s parameters (PARAMS_MISMATCH), in a form the index's `kernel` reads
 * (INVALID_INPUT), and holding every rotation step of the config (MISSING_KEY).
 */
export function checkSearchKeys(
  ctx: HeContext,
  config: SearchConfig,
  kernel: SearchKernelName,
  keySetId: string,
  keys: SearchKeys | null,
): void {
  const steps = config.galoisSteps
  if (keys !== null && keys.id !== keySetId) {
    throw new HeError(
      'KEY_SET_MISMATCH',
      `the query belongs to key set ${keySetId}, the Galois keys given to ${keys.id}`,
      { details: { expected: keys.id, found: keySetId } },
    )
  }
  if (steps.length === 0) return
  if (keys === null || (keys.galoisKeys === undefined && keys.kernelWords === undefined)) {
    throw new HeError(
      'MISSING_KEY',
      `search config ${config.configId} rotates by ${steps.join(' and ')}: Galois keys for those steps are required`,
      { details: { steps } },
    )
  }
  if (keys.ctx.fingerprint !== ctx.fingerprint) {
    throw new HeError('PARAMS_MISMATCH', 'the Galois keys were made under other encryption parameters')
  }
  const n = config.polyModulusDegree
  const { galoisKeys, kernelWords } = keys
  if (kernelWords && kernel !== 'keySwitch') {
    throw new HeError(
      'INVALID_INPUT',
      `key set ${keys.id} is in the key-switching kernel's form, but this index runs its search in ${kernel}: give it SEAL's Galois keys`,
    )
  }
  const has = (element: number): boolean =>
    kernelWords ? kernelWords.elements.has(element) : (galoisKeys?.hasKey(element) ?? false)
  const missing = steps.filter((step) => !has(galoisElementOf(n, step)))
  if (missing.length > 0) {
    throw new HeError(
      'MISSING_KEY',
      `the Galois keys of key set ${keys.id} lack rotation step ${missing.join(', ')} (this search needs ${steps.join(', ')})`,
      { details: { missing, steps } },
    )
  }
}
