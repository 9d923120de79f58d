import { encodeBatch, encryptSymmetricSeeded, getHeContext, KeySet, withScope } from '@sealbox/he-core'
import { resolveSearchConfig, type SearchScheme } from '@sealbox/he-core/search'
import { BenchError } from '../BenchError.ts'
import { type Spread, timeSpread } from '../core/stats.ts'

/** Single SEAL operations at the search parameters, timed in the same run as the queries. */
export interface SealOpCalibration {
  scheme: SearchScheme
  /** Ciphertext × NTT-form plaintext. */
  multiplyPlainNtt: Spread
  /** One row rotation (key switching). */
  rotateRows: Spread
  /** Mod switch of a fresh ciphertext to the last level. */
  modSwitch: Spread
  /** Loading one seeded, zstd ciphertext (seed expansion + decompression). */
  loadSeeded: Spread
}

/**
 * Times the operations a query is made of (min and median of `samples`), so the
 * query times can be read against the machine's state during the run — the
 * ratio query / multiply does not depend on how busy the shared machine is.
 */
export async function calibrateSealOps(scheme: SearchScheme, samples: number): Promise<SealOpCalibration> {
  const config = resolveSearchConfig({ rows: 1, dimension: 16, scheme })
  const ctx = await getHeContext(config.params)
  using keys = KeySet.generate(ctx, { galois: { steps: [1] } })
  const { seal, evaluator } = ctx
  return withScope((scope) => {
    const values = Array.from({ length: 4096 }, (_, i) => (i * 7919) % 301)
    const plaintext = encodeBatch(ctx, values, scope)
    const nttPlaintext = scope.track(new seal.Plaintext())
    const firstParmsId = scope.track(ctx.context.firstParmsId())
    const lastParmsId = scope.track(ctx.context.lastParmsId())
    evaluator.plainTransformToNtt(plaintext, firstParmsId, nttPlaintext)
    const seeded = encryptSymmetricSeeded(keys, plaintext, 'zstd')
    const fresh = scope.track(new seal.Ciphertext())
    fresh.loadFromArray(ctx.context, seeded)
    const nttFresh = scope.track(new seal.Ciphertext())
    if (scheme === 'bfv') evaluator.cipherTransformToNtt(fresh, nttFresh)
    else nttFresh.assign(fresh)
    const out = scope.track(new seal.Ciphertext())
    const time = (fn: () => void) => timeSpread(fn, { samples, warmup: 5 })
    const galoisKeys = keys.galoisKeys
    if (!galoisKeys) throw new BenchError('INTERNAL', 'calibration keys have no Galois keys')
    return {
      scheme,
      multiplyPlainNtt: time(() => evaluator.multiplyPlain(nttFresh, nttPlaintext, out)),
      rotateRows: time(() => evaluator.rotateRows(fresh, 1, galoisKeys, out)),
      modSwitch: time(() => evaluator.cipherModSwitchTo(fresh, lastParmsId, out)),
      loadSeeded: time(() => out.loadFromArray(ctx.context, seeded)),
    }
  })
}
