import type { Seal } from '@sealbox/he-core'

/** Time spent inside node-seal calls, by phase of a search evaluation. */
export interface SealCallTotals {
  /** Evaluator and context calls (the homomorphic work). */
  compute: number
  /** Ciphertext/key loads. */
  load: number
  /** Ciphertext saves. */
  save: number
  /** Everything else (getters, deletes, constructors of temporaries). */
  other: number
  calls: number
}

type Phase = Exclude<keyof SealCallTotals, 'calls'>

function phaseOf(className: string, method: string): Phase {
  if (className === 'Evaluator' || className === 'SEALContext') return 'compute'
  if (method.startsWith('loadFrom')) return 'load'
  if (method.startsWith('saveTo')) return 'save'
  return 'other'
}

/**
 * Measures how much of a search evaluation runs inside SEAL by wrapping every method
 * of every node-seal class (embind prototypes) with a clock. Only the outermost call
 * is timed, so nested calls are not counted twice. The wrappers cost two
 * `performance.now()` per call; the benchmark measures speed in a separate,
 * unwrapped pass and uses this clock only for the JavaScript share.
 */
export class SealCallClock {
  readonly totals: SealCallTotals = { compute: 0, load: 0, save: 0, other: 0, calls: 0 }
  #depth = 0
  #enabled = false

  constructor(seal: Seal) {
    const classes = Object.entries(seal as unknown as Record<string, unknown>).filter(
      (entry): entry is [string, { prototype: object }] =>
        typeof entry[1] === 'function' && typeof (entry[1] as { prototype?: unknown }).prototype === 'object',
    )
    const seen = new Set<object>()
    for (const [className, ctor] of classes) {
      for (
        let proto: object | null = ctor.prototype;
        proto && proto !== Object.prototype;
        proto = Object.getPrototypeOf(proto)
      ) {
        if (seen.has(proto)) continue
        seen.add(proto)
        for (const method of Object.getOwnPropertyNames(proto)) {
          if (method === 'constructor') continue
          const descriptor = Object.getOwnPropertyDescriptor(proto, method)
          if (!descriptor || typeof descriptor.value !== 'function') continue
          this.#wrap(
            proto as Record<string, unknown>,
            method,
            descriptor.value as (...args: unknown[]) => unknown,
            phaseOf(className, method),
          )
        }
      }
    }
  }

  #wrap(
    target: Record<string, unknown>,
    method: string,
    original: (...args: unknown[]) => unknown,
    phase: Phase,
  ): void {
    const clock = this
    target[method] = function timed(this: unknown, ...args: unknown[]) {
      if (!clock.#enabled || clock.#depth > 0) return original.apply(this, args)
      clock.#depth++
      const start = performance.now()
      try {
        return original.apply(this, args)
      } finally {
        clock.totals[phase] += performance.now() - start
        clock.totals.calls++
        clock.#depth--
      }
    }
  }

  /** Runs `fn` with the clock on and returns SEAL's time during it. */
  measure<T>(fn: () => T): { value: T; seal: SealCallTotals; wallMs: number } {
    const before = { ...this.totals }
    this.#enabled = true
    const start = performance.now()
    try {
      const value = fn()
      const wallMs = performance.now() - start
      const seal: SealCallTotals = {
        compute: this.totals.compute - before.compute,
        load: this.totals.load - before.load,
        save: this.totals.save - before.save,
        other: this.totals.other - before.other,
        calls: this.totals.calls - before.calls,
      }
      return { value, seal, wallMs }
    } finally {
      this.#enabled = false
    }
  }
}
