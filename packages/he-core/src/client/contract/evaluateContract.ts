import { z } from 'zod'
import type { ParamsInput } from '../../params/ParamsSpec.ts'
import type { ProgramInput } from '../../program/ProgramSpec.ts'
import { ValueName } from '../../program/ProgramSpec.ts'
import { StepReportSchema } from '../../program/StepReport.ts'
import { KeySetIdSchema, KeySetQuerySchema } from './keySetContract.ts'
import { API_PREFIX, BinaryBodySchema, type RouteContract } from './routeContract.ts'

/** Most inputs one evaluate request may carry. */
export const EVALUATE_MAX_INPUTS = 64

/** Most bytes of an evaluate message's JSON header (params, program, names, step reports). */
export const EVALUATE_MAX_HEADER_BYTES = 1 << 20

const isObject = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value)

/** Names in order, each once: the envelopes that follow a header are matched to them by position. */
const uniqueNames = (what: string, max: number) =>
  z
    .array(ValueName)
    .max(max, `at most ${max} ${what}`)
    .refine((names) => new Set(names).size === names.length, `${what} names must be unique`)

/**
 * The JSON header of an evaluate request (see `encodeEvaluateRequest` for the body's
 * layout). `params` and `program` are only checked to be objects here: the server
 * validates them with `parseParams` and `analyzeProgram`, whose errors name the field
 * and the step (INVALID_PARAMS, INVALID_PROGRAM) — parsed once, not twice.
 */
export const EvaluateRequestHeaderSchema = z
  .object({
    /** An he-core ParamsSpec (scheme, polyModulusDegree, coeffModulus, plainModulus, …). */
    params: z.custom<ParamsInput>(isObject, 'params must be an object (an he-core ParamsSpec)'),
    /** An he-core ProgramSpec. */
    program: z.custom<ProgramInput>(isObject, 'program must be an object (an he-core ProgramSpec)'),
    /** The program input each envelope after the header is, in order. */
    inputs: uniqueNames('inputs', EVALUATE_MAX_INPUTS),
    /** The key set holding the relinearization / Galois keys the program needs (or `?keySet=`). */
    keySet: KeySetIdSchema.optional(),
  })
  .strict()
export type EvaluateRequestHeader = z.infer<typeof EvaluateRequestHeaderSchema>

/** The JSON header of an evaluate reply: the output names (envelopes follow, in order) and each step's report. */
export const EvaluateReplyHeaderSchema = z
  .object({
    outputs: uniqueNames('outputs', EVALUATE_MAX_INPUTS).min(1),
    steps: z.array(StepReportSchema),
  })
  .strict()
export type EvaluateReplyHeader = z.infer<typeof EvaluateReplyHeaderSchema>

/** The media type of both the evaluate request and its reply. */
export const EVALUATE_MEDIA_TYPE = 'application/octet-stream'

const LAYOUT =
  'bytes 0–3 magic (`SBXE` request, `SBXR` reply), 4 format version (1), 5–7 zero, 8–11 uint32 LE length h of the JSON header (at most 1 MiB), then h bytes of UTF-8 JSON, then one sealbox envelope per name in the header, in order, back to back (ENVELOPE.md)'

export const evaluateRoute = {
  method: 'POST',
  path: `${API_PREFIX}/evaluate`,
  tags: ['evaluate'],
  summary: 'Run an HE program on encrypted inputs',
  description: `Body (${EVALUATE_MEDIA_TYPE}): a JSON header \`{ params, program, inputs: [name…], keySet? }\` and the input envelopes, binary (no base64): ${LAYOUT}. \`SealboxClient.evaluate\` / \`encodeEvaluateRequest\` write it. A JSON body is refused (415). \`?keySet=\` works too, so a proxy can route by key set without reading the body. The program is analysed before any work: unknown ops, cycles, too many steps, n above MAX_POLY_DEGREE and missing keys are refused up front. Reply (${EVALUATE_MEDIA_TYPE}, same layout): the header \`{ outputs: [name…], steps: [step report…] }\` and the output envelopes.`,
  querystring: KeySetQuerySchema,
  consumes: [EVALUATE_MEDIA_TYPE],
  produces: [EVALUATE_MEDIA_TYPE],
  idempotent: true,
  response: { 200: BinaryBodySchema },
} as const satisfies RouteContract
