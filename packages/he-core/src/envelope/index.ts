// `@sealbox/he-core/envelope`: the wire format (ENVELOPE.md) for code that stores, forwards or
// checks SEAL objects as bytes — envelopes and bundles, their headers, metadata and kinds,
// CRC-32, the structural limits a payload is checked against before SEAL parses it, what a
// key upload costs to receive and load, and
// saving and loading SEAL objects through them. Key sets (`KeySet`, `exportEvaluationKeys`)
// in the core entry write and read these envelopes for you. Every export is named here by hand.

// The error a caller's `tooMany` returns (the same class as the core entry's).
export { HeError, type HeErrorJSON } from '../errors/HeError.ts'
export { HE_ERROR_CODES, type HeErrorCode } from '../errors/heErrorCodes.ts'
// What a key upload costs to receive and load, read from its envelopes' headers alone.
export {
  KEY_LOAD_UNITS_PER_MIB,
  keyUploadCost,
  keyUploadPeakHeapBytes,
} from '../keys/keyUploadCost.ts'
export {
  type KeyLoadTarget,
  type KeyUploadSize,
  keyUploadSize,
  unloadedKeyInflateBound,
} from '../keys/keyUploadSize.ts'
export type { BytesLike } from './asPlainUint8Array.ts'
export { base64ToBytes, bytesToBase64 } from './base64.ts'
export type { SealPayloadShape } from './checkSealPayload.ts'
export { crc32 } from './crc32.ts'
export { type Bundle, type BundleExpect, decodeBundle } from './decodeBundle.ts'
export { decodeEnvelope, type Envelope } from './decodeEnvelope.ts'
export { type EncodeBundleOptions, encodeBundle } from './encodeBundle.ts'
export { type EncodeEnvelopeInput, encodeEnvelope } from './encodeEnvelope.ts'
export type { EnvelopeExpect } from './envelopeExpect.ts'
export {
  ENVELOPE_COMPRESSIONS,
  ENVELOPE_KINDS,
  type EnvelopeCompression,
  type EnvelopeKind,
  type SealCompression,
  type SealObjectKind,
} from './envelopeKinds.ts'
export { ENVELOPE_META_SCHEMAS, type EnvelopeMetaByKind, type EnvelopeMetaInput } from './envelopeMeta.ts'
export {
  type ContextObjectKind,
  type EnvelopeSource,
  type LoadSealObjectExpect,
  type LoadSealObjectOptions,
  loadSealObject,
  type SealLoadContext,
  type SealLoadTargets,
} from './loadSealObject.ts'
export { type PreparedSealPayload, prepareSealPayload } from './prepareSealPayload.ts'
export { type EnvelopeHeader, peekEnvelope } from './readEnvelopeHeader.ts'
export {
  type SaveSealObjectOptions,
  type SealSavable,
  saveSealObject,
  sealCompressionMode,
} from './saveSealObject.ts'
export {
  type PayloadLimitsSource,
  payloadLimitsOf,
  type SealPayloadLimits,
  structuralPayloadLimits,
} from './sealPayloadLimits.ts'
export { type SplitEnvelopesOptions, splitEnvelopes } from './splitEnvelopes.ts'
