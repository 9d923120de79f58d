import {
  encodeBatch,
  encodeCkks,
  encryptSymmetric,
  exportEvaluationKeys,
  galoisElementOf,
  getHeContext,
  type HeContext,
  KeySet,
  parseParams,
  parseProgram,
  programCost,
  withScope,
} from '@sealbox/he-core'
import { keyUploadCost, keyUploadPeakHeapBytes, keyUploadSize, saveSealObject } from '@sealbox/he-core/envelope'
import { type CalibrationKind, type CalibrationScheme, calibrationProgram } from './calibrationGrid.ts'

/** Parameters of a grid cell: SEAL's default primes at n; CKKS at an 18-bit scale so a product of a product fits the smallest level. */
export function calibrationParams(scheme: CalibrationScheme, polyModulusDegree: number) {
  return scheme === 'ckks'
    ? ({ scheme, polyModulusDegree, scaleBits: 18 } as const)
    : ({ scheme, polyModulusDegree, plainModulus: { batchingBits: 20 } } as const)
}

/** One prepared cell: the request to send, the key set to upload, and what the cost model says of it. */
export interface CalibrationCase {
  name: string
  scheme: CalibrationScheme
  polyModulusDegree: number
  kind: CalibrationKind
  params: ReturnType<typeof calibrationParams>
  program: ReturnType<typeof calibrationProgram>['program']
  inputs: Record<string, Uint8Array>
  keyBytes: Uint8Array | undefined
  /** Cost units he-core's model gives the program with these keys (what the server admits it at); a key upload: `keyUploadCost` of its `keyUploadSize`. */
  units: number
  /** The model's peak heap, bytes. */
  peakHeapBytes: number
}

/** The calibration server's MAX_POLY_DEGREE (its default): what keys checked without SEAL are inflated within. */
const MAX_POLY_DEGREE = 16384

/** Makes the keys and inputs of one cell and prices it (a key-upload cell: keys under other params than the server's search, checked without SEAL). */
export async function prepareCalibrationCase(
  scheme: CalibrationScheme,
  polyModulusDegree: number,
  kind: CalibrationKind,
  repeat: number,
): Promise<CalibrationCase> {
  const params = calibrationParams(scheme, polyModulusDegree)
  const ctx = await getHeContext(params)
  const cell = calibrationProgram(kind, scheme, polyModulusDegree, repeat)
  const needsKeys = cell.relin || cell.galoisSteps.length > 0
  const keys = KeySet.generate(ctx, {
    relin: cell.relin,
    ...(cell.galoisSteps.length > 0 ? { galois: { steps: cell.galoisSteps } } : {}),
  })
  try {
    const inputs = withScope((scope) =>
      Object.fromEntries(
        cell.program.inputs.map((input, i) => {
          const plain = encodeInput(ctx, i, scope)
          const object = input.kind === 'ciphertext' ? encryptSymmetric(keys, plain, scope) : plain
          const bytes = saveSealObject(object, {
            kind: input.kind,
            fingerprint: ctx.fingerprint,
            ...(input.kind === 'ciphertext' ? { keySetId: keys.id } : {}),
            compression: 'zstd',
          })
          return [input.name, bytes]
        }),
      ),
    )
    const resolved = parseParams(params)
    const primes = resolved.coeffModulusBits.length
    const keyBytes = needsKeys ? exportEvaluationKeys(keys) : undefined
    const uploaded =
      kind === 'keyUpload' && keyBytes ? keyUploadSize(keyBytes, { maxPolyModulusDegree: MAX_POLY_DEGREE }) : undefined
    const cost = uploaded
      ? { units: keyUploadCost(uploaded), peakHeapBytes: keyUploadPeakHeapBytes(uploaded) }
      : programCost(parseProgram(cell.program).program, {
          scheme,
          polyModulusDegree,
          dataPrimes: primes - 1,
          galoisElements: cell.galoisSteps.map((step) => galoisElementOf(polyModulusDegree, step)),
        })
    return {
      name: `${scheme} n=${polyModulusDegree} ${kind}`,
      scheme,
      polyModulusDegree,
      kind,
      params,
      program: cell.program,
      inputs,
      keyBytes,
      units: cost.units,
      peakHeapBytes: cost.peakHeapBytes,
    }
  } finally {
    keys.dispose()
  }
}

function encodeInput(ctx: HeContext, seed: number, scope: Parameters<typeof encodeBatch>[2]) {
  const slots = 64
  if (ctx.scheme === 'ckks') {
    return encodeCkks(
      ctx,
      Array.from({ length: slots }, (_, i) => ((i * (seed + 3)) % 17) / 17 - 0.5),
      scope,
    )
  }
  return encodeBatch(
    ctx,
    Array.from({ length: slots }, (_, i) => ((i * (seed + 3)) % 97) - 40),
    scope,
  )
}
