import { analyzeProgram, HeError, type ProgramAnalysis, parseParams, type ResolvedParams } from '@sealbox/he-core'
import { decodeEvaluateRequest, type EvaluateRequest } from '@sealbox/he-core/client'
import { peekEnvelope } from '@sealbox/he-core/envelope'
import type { ServerConfig } from '../config/ServerConfig.ts'

/** An evaluate request read once on the event loop: everything later steps need, parsed. */
export interface ParsedEvaluateRequest {
  body: EvaluateRequest
  /** The body's parameters, validated: the hub prices the context build with them (no second parse). */
  params: ResolvedParams
  /** The program's static analysis under `params` (no SEAL). */
  analysis: ProgramAnalysis
  /** The key set named in the body or the URL. */
  keySet: string | undefined
  /** Key-set ids the input envelopes carry in their headers. */
  envelopeKeySetIds: Set<string>
}

/**
 * Reads an evaluate request's framing, parameters and program — no SEAL, nothing verified
 * that the worker verifies (each envelope's checksum and all): INVALID_INPUT for a keySet
 * the URL and the body disagree on, LIMIT_EXCEEDED above MAX_POLY_DEGREE or
 * MAX_PROGRAM_STEPS, so a bad program never reaches a worker.
 */
export function parseEvaluateRequest(
  bytes: Uint8Array,
  urlKeySet: string | undefined,
  config: Pick<ServerConfig, 'MAX_POLY_DEGREE' | 'MAX_PROGRAM_STEPS'>,
): ParsedEvaluateRequest {
  const body = decodeEvaluateRequest(bytes)
  // `?keySet=` works too, so a proxy can route by key set without reading the body (deploy/nginx).
  if (urlKeySet !== undefined && body.keySet !== undefined && urlKeySet !== body.keySet) {
    throw new HeError('INVALID_INPUT', `keySet "${urlKeySet}" in the URL and "${body.keySet}" in the body differ`)
  }
  const params = parseParams(body.params)
  if (params.polyModulusDegree > config.MAX_POLY_DEGREE) {
    throw new HeError(
      'LIMIT_EXCEEDED',
      `n=${params.polyModulusDegree} is above this server's limit of ${config.MAX_POLY_DEGREE} (MAX_POLY_DEGREE)`,
      { details: { limit: config.MAX_POLY_DEGREE } },
    )
  }
  const analysis = analyzeProgram(body.program, params, { limits: { maxSteps: config.MAX_PROGRAM_STEPS } })
  const envelopeKeySetIds = new Set(Object.values(body.inputs).flatMap((input) => peekEnvelope(input).keySetId ?? []))
  return { body, params, analysis, keySet: body.keySet ?? urlKeySet, envelopeKeySetIds }
}
