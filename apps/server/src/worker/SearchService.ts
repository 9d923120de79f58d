import { getHeContext, type HeContext, HeError } from '@sealbox/he-core'
import type { SearchSummary } from '../app/SearchSummary.ts'
import type { WorkerSetup } from '../executor/WorkerSetup.ts'
import type { EvaluationKeys } from './EvaluationKeys.ts'

/**
 * The server half of private search in one worker: the search context and the
 * processed database, built once at warm-up and shared by every query.
 */
export class SearchService {
  readonly ctx: HeContext
  readonly configId: string
  readonly summary: SearchSummary
  /** Galois elements a query needs (empty: no evaluation keys needed). */
  readonly galoisElements: readonly number[]

  private constructor(ctx: HeContext) {
    this.ctx = ctx
    this.configId = ctx.fingerprint
    this.galoisElements = []
    this.summary = {
      configId: this.configId,
      fingerprint: ctx.fingerprint,
      galoisElements: [],
      queryCiphertexts: 1,
      config: {},
      database: {},
    }
  }

  static async create(_setup: WorkerSetup): Promise<SearchService> {
    const ctx = await getHeContext({
      scheme: 'bfv',
      polyModulusDegree: 4096,
      coeffModulus: [27, 28, 28],
      plainModulus: { value: 65537 },
    })
    return new SearchService(ctx)
  }

  /** Evaluates one query envelope; returns the response envelope. */
  evaluate(_query: Uint8Array, _keys: EvaluationKeys | undefined): Uint8Array {
    throw new HeError('INTERNAL', 'private search is not wired in yet')
  }

  dispose(): void {}
}
