// Public surface of @sealbox/he-core. Every export is named here by hand.

export { type BatchCodecOptions, batchRange, decodeBatch, encodeBatch, toBatchValues } from './codecs/batchCodec.ts'
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
export { HeError, type HeErrorJSON, isHeErrorJSON } from './errors/HeError.ts'
export {
  HE_ERROR_CODES,
  HE_ERROR_HINTS,
  HE_ERROR_HTTP_STATUS,
  type HeErrorCode,
  isHeErrorCode,
} from './errors/heErrorCodes.ts'
export { readSealError, type SealErrorInfo, sealCall, sealExceptionCount, toHeError } from './errors/toHeError.ts'
export { galoisElementOf, normalizeSteps, powerOfTwoSteps } from './keys/galoisElements.ts'
export { type CompressionName, KeySet, type KeySetOptions, type KeyTimings, newKeySetId } from './keys/KeySet.ts'
export { ContextCache, getHeContext, paramsInputOf, sharedContextCache } from './params/ContextCache.ts'
export { describeParams, type ExpectedSizes, type ParamsFacts } from './params/describeParams.ts'
export { type HasParmsId, HeContext } from './params/HeContext.ts'
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
export { adopt, disown, liveSealHandles, type SealHandle, SealScope, withScope } from './scope/SealScope.ts'
export { type LoadSealOptions, loadSeal, type Seal, sealSync, sealWasmModule, wasmHeapBytes } from './seal/loadSeal.ts'
export { type HeapReport, measureHeap } from './testing/measureHeap.ts'
