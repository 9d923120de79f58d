import { HeError } from '@sealbox/he-core'
import type { ParmsIdType, Plaintext } from 'node-seal/throws'
import type { Inspection, RequestOf } from '../protocol.ts'
import type { WorkerSession } from '../WorkerSession.ts'

/** Lowest-degree plaintext coefficients the inspector shows. */
export const INSPECTED_COEFFICIENTS = 16

function hexOf(parmsId: ParmsIdType): string {
  try {
    const words = parmsId.values() as BigUint64Array
    return [...words].map((word) => word.toString(16).padStart(16, '0')).join(' ')
  } finally {
    parmsId.delete()
  }
}

/**
 * The lowest-degree coefficients of a BFV/BGV plaintext. SEAL prints a plaintext as a
 * polynomial in hex ("1Fx^3 + 7"), highest degree first, and node-seal exposes no
 * per-coefficient getter, so the string is the one way in.
 */
function lowCoefficients(plaintext: Plaintext, count: number): bigint[] {
  const out = Array.from({ length: count }, () => 0n)
  for (const term of plaintext.toString().split(' + ')) {
    const match = /^([0-9A-Fa-f]+)(?:x\^(\d+))?$/.exec(term.trim())
    if (!match) continue
    const degree = match[2] === undefined ? 0 : Number(match[2])
    if (degree < count) out[degree] = BigInt(`0x${match[1]}`)
  }
  return out
}

/** Parms id, level, size, scale and (plaintexts) coefficients of a workspace value or key. */
export function inspectObject(session: WorkerSession, request: RequestOf<'inspect'>): Inspection {
  const ctx = session.context
  const { target } = request
  const ckks = ctx.scheme === 'ckks'
  if (target.kind === 'variable') {
    const value = session.requireValue(target.name)
    const parmsId = hexOf(value.handle.parmsId())
    if (value.kind === 'ciphertext') {
      const ct = value.handle
      return {
        parmsId,
        level: ctx.levelOf(ct),
        size: ct.size(),
        primes: ct.coeffModulusSize(),
        nttForm: ct.isNttForm(),
        ...(ckks ? { scale: ct.scale() } : {}),
      }
    }
    const pt = value.handle
    // A BFV/BGV plaintext has the zero parms id: it belongs to no level of the chain.
    const level = ckks ? ctx.levelOf(pt) : undefined
    return {
      parmsId,
      ...(level === undefined ? {} : { level, primes: level + 1, scale: pt.scale() }),
      nttForm: pt.isNttForm(),
      coeffCount: pt.coeffCount(),
      // An NTT-form (CKKS) plaintext holds evaluations mod each prime, not coefficients; SEAL cannot print it.
      ...(pt.isNttForm()
        ? {}
        : { nonZeroCoeffs: pt.nonzeroCoeffCount(), coefficients: lowCoefficients(pt, INSPECTED_COEFFICIENTS) }),
    }
  }
  session.requireKeySet('Inspecting keys')
  const primes = ctx.params.coeffModulusBits.length
  // Keys live at the key level (every prime, the special one included), one above fresh ciphertexts.
  const base = {
    parmsId: hexOf(ctx.context.keyParmsId()),
    level: primes >= 2 ? ctx.topLevel + 1 : ctx.topLevel,
    primes,
    nttForm: true,
  }
  if (target.key === 'secretKey' || target.key === 'publicKey') return base
  const keys = target.key === 'relinKeys' ? session.relinKeys : session.galoisKeys
  if (!keys) {
    throw new HeError(
      'MISSING_KEY',
      `There are no ${target.key === 'relinKeys' ? 'relinearization' : 'Galois'} keys here yet; generate them on the Keys panel.`,
    )
  }
  return { ...base, size: keys.size() }
}
