// Public surface of @sealbox/he-core, the core entry: parameters, keys, codecs, encryption,
// HE programs and workspaces, errors and SEAL object scopes. Every export is named here by
// hand. Other audiences have their own entries (package.json `exports`): `./client` (HTTP
// contract and client, no SEAL), `./envelope` (the wire format), `./search`, `./codegen`,
// `./node` (file system helpers) and `./testing` (fakes and heap probes for tests).

export { type BatchCodecOptions, decodeBatch, encodeBatch } from './codecs/batchCodec.ts'
export { type CkksEncodeOptions, decodeCkks, encodeCkks } from './codecs/ckksCodec.ts'
export {
  type CiphertextInfo,
  decrypt,
  describeCiphertext,
  encrypt,
  encryptSymmetric,
  encryptSymmetricSeeded,
  noiseBudget,
} from './crypto/encrypt.ts'
// What the core's own signatures name (KeySet, exportKeys, decoded evaluation keys); the rest
// of the wire format is the `./envelope` entry.
export type { BytesLike } from './envelope/asPlainUint8Array.ts'
export type { Envelope } from './envelope/decodeEnvelope.ts'
export {
  ENVELOPE_COMPRESSIONS,
  ENVELOPE_KINDS,
  type EnvelopeCompression,
  type EnvelopeKind,
  type SealCompression,
} from './envelope/envelopeKinds.ts'
export { ENVELOPE_META_SCHEMAS, type EnvelopeMetaByKind } from './envelope/envelopeMeta.ts'
export type { EnvelopeHeader } from './envelope/readEnvelopeHeader.ts'
export { HeError, type HeErrorJSON } from './errors/HeError.ts'
export {
  HE_ERROR_CODES,
  HE_ERROR_HINTS,
  HE_ERROR_HTTP_STATUS,
  type HeErrorCode,
  isHeErrorCode,
} from './errors/heErrorCodes.ts'
export { plainDetails } from './errors/plainDetails.ts'
export { sealCall, sealExceptionCount, toHeError } from './errors/toHeError.ts'
export {
  type DecodedEvaluationKeys,
  decodeEvaluationKeys,
  EVALUATION_KEY_KINDS,
  type EvaluationKeyKind,
  EvaluationKeys,
} from './keys/EvaluationKeys.ts'
export {
  type ExportGaloisKeyOptions,
  type ExportKeyOptions,
  exportEvaluationKeys,
  exportGaloisKeys,
  exportPublicKey,
  exportRelinKeys,
  exportSecretKey,
  importSecretKey,
} from './keys/exportKeys.ts'
export { GaloisKeyChoice } from './keys/GaloisKeyChoice.ts'
export { galoisElementOf, normalizeSteps, powerOfTwoSteps } from './keys/galoisElements.ts'
export { type CompressionName, KeySet, type KeySetOptions, type KeyTimings } from './keys/KeySet.ts'
export { KEY_KINDS, type KeyKind } from './keys/keyKinds.ts'
export {
  acquireHeContext,
  ContextCache,
  type ContextCacheOptions,
  type ContextLease,
  getHeContext,
  paramsInputOf,
  sharedContextCache,
} from './params/ContextCache.ts'
export { BFV_DEFAULT_BITS, MAX_COEFF_BITS } from './params/coeffModulusTables.ts'
export { describeParams, type ExpectedSizes, type ParamsFacts } from './params/describeParams.ts'
export type { HasParmsId } from './params/HasParmsId.ts'
export { HeContext } from './params/HeContext.ts'
export type { ChainLevel, ModulusChainOwner } from './params/levelTable.ts'
export type { NeedsProblem, ParamsNeeds, ParamsSuggestion } from './params/ParamsNeeds.ts'
export {
  type ParamsInput,
  ParamsSpec,
  PlainModulusSpec,
  POLY_MODULUS_DEGREES,
  type ResolvedParams,
  SCHEMES,
  type SchemeName,
  SECURITY_LEVELS,
  type SecurityLevelName,
} from './params/ParamsSpec.ts'
export { type ParseParamsOptions, parseParams } from './params/parseParams.ts'
export { suggestParams } from './params/suggestParams.ts'
export {
  analyzeProgram,
  type ProgramAnalysis,
  type ProgramTarget,
  type StepAnalysis,
} from './program/analyzeProgram.ts'
export { type KeyLookup, type MissingKey, missingProgramKeys, type ProgramKeys } from './program/checkProgramKeys.ts'
export type { ProgramLimits } from './program/ProgramLimits.ts'
export {
  type ProgramInput,
  ProgramInputSpec,
  type ProgramOp,
  ProgramSpec,
  ProgramStep,
  type StepOf,
  ValueKind,
} from './program/ProgramSpec.ts'
export { type ParsedProgram, type ParseProgramOptions, parseProgram } from './program/parseProgram.ts'
export {
  type NoisePrediction,
  type NoiseTarget,
  predictNoise,
  type StepNoise,
  type ValueNoise,
} from './program/predictNoise.ts'
export {
  COST_UNIT_MS,
  type CostTarget,
  type ProgramCost,
  programCost,
  type StepCost,
} from './program/programCost.ts'
export { type ProgramKeyUse, programKeyUse } from './program/programKeyUse.ts'
export { PROGRAM_OPS, type ProgramOpInfo } from './program/programOps.ts'
export {
  type RunProgramOptions,
  type RunProgramResult,
  runAnalyzedProgram,
  runProgram,
  type StepReport,
} from './program/runProgram.ts'
export { centredMod, type PlainSlots, type PlainTarget, runProgramPlain } from './program/runProgramPlain.ts'
export { StepReportSchema } from './program/StepReport.ts'
export { adopt, disown, type SealHandle, SealScope, withScope } from './scope/SealScope.ts'
export {
  type LoadSealOptions,
  loadSeal,
  retireSeal,
  type Seal,
  sealWasmModule,
  wasmHeapBytes,
} from './seal/loadSeal.ts'
export { EXAMPLE_WORKSPACES } from './workspace/exampleWorkspaces.ts'
export { formatOutputLine, type OutputFormat } from './workspace/formatOutput.ts'
export {
  type ParsedWorkspace,
  type ParseWorkspaceOptions,
  parseWorkspace,
  type WorkspaceKeys,
} from './workspace/parseWorkspace.ts'
export {
  type RunWorkspaceOptions,
  runWorkspace,
  type WorkspaceOutput,
  type WorkspaceRun,
} from './workspace/runWorkspace.ts'
export {
  type WorkspaceInput,
  WorkspaceSpec,
  WorkspaceVariable,
} from './workspace/WorkspaceSpec.ts'
