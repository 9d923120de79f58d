/**
 * The sealbox HTTP contract: one zod module per route group. The server validates
 * and documents its routes with these schemas and `SealboxClient` parses replies
 * with them, so the contract is written once. Nothing here imports node-seal.
 */
export {}
