// `@sealbox/he-core/testing`: helpers for tests, kept out of the main entry. Forged SEAL
// payloads to prove the envelope checks refuse them, and heap probes (live handles, WASM heap
// growth) to prove a loop of SEAL work gives back what it takes.

export { liveSealHandles } from '../scope/SealScope.ts'
export { fakeSealPayload, heErrorOf, rechecksum, scrambleParmsId } from './forgedEnvelopes.ts'
export { type HeapReport, measureHeap } from './measureHeap.ts'
