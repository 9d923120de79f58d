// `@sealbox/he-core/search`: private vector search. The client encrypts a query and ranks the
// decrypted scores; the index (server side) evaluates encrypted dot products over a plaintext
// database. Specification: SEARCH.md.

// The bytes a user's Galois key words take in the kernel: what the server prices a key load by.
export { galoisKeyWordsBytes } from '@sealbox/he-ring'
export {
  type ClusterPlanConstraints,
  type ClusterSearchPlan,
  chooseClusterSearchPlan,
  clusterCountCandidates,
  countClusterSearchOperations,
} from './chooseClusterSearchPlan.ts'
export { plannedSearchKernel } from './chooseSearchKernel.ts'
export {
  chooseSearchPlan,
  type SearchPlan,
  type SearchPlanCandidate,
  type SearchPlanConstraints,
} from './chooseSearchPlan.ts'
export { type ClusterSearchDatabaseOptions, clusterSearchDatabase } from './clusterSearchDatabase.ts'
export {
  DEMO_DATABASE_NAME,
  demoSearchDatabase,
  type ElementMetadata,
  elementFields,
} from './demo/demoSearchDatabase.ts'
export type { ElementCategory, ElementPhase } from './demo/elements.ts'
export { DEMO_EMBEDDING_DIMENSION, type EmbeddingField, embedFields, embedText } from './demo/embedText.ts'
export { isKernelGaloisKeyBytes, KernelGaloisKeys, type KernelKeyContext } from './KernelGaloisKeys.ts'
export {
  PrivateSearchClient,
  type PrivateSearchClientOptions,
  type SearchDecryptOptions,
  type SearchHit,
  type SearchScores,
} from './PrivateSearchClient.ts'
export { PrivateSearchIndex } from './PrivateSearchIndex.ts'
export { encodeNpyFloat32, NPY_MAX_HEADER_BYTES, type NpyLayout, parseNpy, readNpyLayout } from './parseNpy.ts'
export { parseSearchCsv } from './parseSearchCsv.ts'
export {
  parseSearchDatabase,
  SEARCH_DATABASE_FORMATS,
  type SearchDatabaseFormat,
  searchDatabaseFormatOf,
} from './parseSearchDatabase.ts'
export { parseSearchJsonl } from './parseSearchJsonl.ts'
export { plaintextSearchScores } from './plaintextSearchScores.ts'
export type {
  ProcessSearchDatabaseOptions,
  SearchBlockRange,
  SearchDiagonalForm,
  SearchDiagonalSink,
  SearchProcessingReport,
} from './processSearchDatabase.ts'
export type { SearchBatchItem, SearchBatchResult } from './SearchBatchItem.ts'
export type { SearchBlockCache, SearchProcessingProgress } from './SearchBlockCache.ts'
export {
  checkSearchClustering,
  nearestClusters,
  type SearchClustering,
  SearchClusteringSchema,
} from './SearchClustering.ts'
export { type ResolveSearchOptions, resolveSearchConfig, type SearchConfig, searchShapeOf } from './SearchConfig.ts'
export { SEARCH_MAX_DIMENSION, SEARCH_MAX_ROWS, SearchConfigInput } from './SearchConfigInput.ts'
export { SearchConfigSchema } from './SearchConfigSchema.ts'
export {
  catalogOf,
  type SearchCatalog,
  type SearchDatabase,
  type SearchRowId,
  validateSearchDatabase,
} from './SearchDatabase.ts'
export type { SearchEvaluateOptions, SearchEvaluation, SearchEvaluationTimings } from './SearchEvaluation.ts'
export type { SearchKernelChoice, SearchKernelName } from './SearchKernel.ts'
export type { SearchKeys } from './SearchKeys.ts'
export { isSearchRowSource, type SearchRowSource, searchRowSourceOf } from './SearchRowSource.ts'
export { scaleDatabaseVectors, scaleQueryVector, scaleSearchRows } from './scaleVectors.ts'
export { type SearchClusterLayout, SearchClusterLayoutSchema } from './searchClusterLayout.ts'
export { searchConfigInputOf, verifySearchConfig } from './searchConfigInputOf.ts'
export {
  type BabyStepChoice,
  type BabyStepSide,
  chooseBabyStep,
  countSearchOperations,
  estimateServerMs,
  galoisStepsFor,
  SEARCH_KERNEL_UNIT_COSTS,
  SEARCH_UNIT_MS,
  SEARCH_WIRE_ENCODINGS,
  type SearchOperationCount,
  type SearchTransfer,
  type SearchWireEncoding,
  searchCost,
} from './searchCost.ts'
export {
  ciphertextWireBytes,
  estimateEndToEnd,
  estimateSearchWireBytes,
  resolveSearchLink,
  SEARCH_LINKS,
  type SearchEndToEndEstimate,
  type SearchLinkInput,
  type SearchLinkName,
  type SearchLinkRates,
  type SearchWireEstimate,
  transferMs,
} from './searchEndToEnd.ts'
export { planBlocks, type SearchBlock, type SearchShape } from './searchLayout.ts'
export {
  batchingPrime,
  defaultSearchProfile,
  NOISE_FALLBACK_PROFILE,
  SEARCH_PARAMS_PROFILES,
  SEARCH_PLAIN_MODULUS,
  SEARCH_SCHEMES,
  type SearchParamsProfileName,
  type SearchScheme,
  searchProfileParams,
} from './searchParams.ts'
export {
  SEARCH_MAX_KERNEL_DIAGONAL_BYTES,
  SEARCH_MAX_PROCESSED_BYTES,
  type SearchMemoryShape,
  type SearchProcessedMemory,
  searchMemoryPlace,
  searchProcessedMemory,
} from './searchProcessedMemory.ts'
export {
  type DroppedBitsContext,
  leavesResponseBudget,
  RESPONSE_NOISE_Z,
  type SearchResponseDroppedBits,
  searchResponseDroppedBits,
  searchResponseNoiseBound,
} from './searchResponseDroppedBits.ts'
export { maxSearchScale } from './searchScaleOf.ts'
export {
  parseSearchShard,
  type SearchShard,
  type SearchShardChoice,
  SearchShardSchema,
  searchShardOf,
} from './searchShard.ts'
export { type DecodedSearchResponse, decodeSearchResponse, mergeSearchResponses } from './searchWire.ts'
export {
  type SyntheticSearchDatabaseOptions,
  syntheticSearchDatabase,
  syntheticSearchQuery,
  syntheticSearchRows,
} from './syntheticSearchDatabase.ts'
export { topKIndices } from './topK.ts'
