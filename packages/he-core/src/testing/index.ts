// `@sealbox/he-core/testing`: helpers for tests, kept out of the main entry. Forged SEAL
// payloads to prove the envelope checks refuse them, heap probes (live handles, WASM heap
// growth) to prove a loop of SEAL work gives back what it takes, and the one median and
// percentile that load tests and benchmarks share.

export { minCompressedPayloadBytes } from '../envelope/sealPayloadLimits.ts'
export { liveSealHandles } from '../scope/SealScope.ts'
export { fakeSealPayload, heErrorOf, rechecksum, scrambleParmsId } from './forgedEnvelopes.ts'
export { type HeapReport, measureHeap } from './measureHeap.ts'
export { median, percentile } from './sampleStats.ts'
