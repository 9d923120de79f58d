import type { OpGroup, Scheme } from '../protocol/benchProtocol.ts'

/**
 * When a row exists. sealbench registers keyswitching rows only when
 * `context.using_keyswitching()` and mod-switch/rescale rows only when the coeff modulus
 * has more than one prime — so n=1024/2048 (one prime each) have neither.
 */
export type OpRequirement = 'none' | 'keyswitching' | 'modChain'

/**
 * Where a row comes from: SEAL's sealbench (published table), sealbench's BGV file, the
 * sandbox's extra ops, or the one-off set-up cost (context construction).
 */
export type OpOrigin = 'sealbench' | 'sealbench-bgv' | 'sandbox' | 'setup'

/** One row of the operation table (for every n where its requirement holds). */
export interface OpSpec {
  /** `${group}/${op}`, the id used by `--ops`, the plan and the results. */
  id: string
  group: OpGroup
  /** sealbench's name, so rows line up with the published CSV. */
  op: string
  /** The context the row runs in (KeyGen rows use the CKKS context, as sealbench does). */
  scheme: Scheme
  requires: OpRequirement
  origin: OpOrigin
  /** What exactly sits between the two clock readings. */
  timed: string
  /** A row of he-ring's WebAssembly kernel: native SEAL has no such op (its cell stays empty). */
  wasmOnly?: true
}

type BatchOpName =
  | 'EncryptSecret'
  | 'EncryptPublic'
  | 'Decrypt'
  | 'EncodeBatch'
  | 'DecodeBatch'
  | 'EvaluateAddCt'
  | 'EvaluateAddPt'
  | 'EvaluateMulCt'
  | 'EvaluateMulPt'
  | 'EvaluateSquare'
  | 'EvaluateModSwitchInplace'
  | 'EvaluateRelinInplace'
  | 'EvaluateRotateRows'
  | 'EvaluateRotateCols'
  | 'EvaluateSubCt'
  | 'EvaluateSubPt'
  | 'EvaluateNegate'

const BATCH_OPS: ReadonlyArray<[BatchOpName, OpRequirement, string, boolean]> = [
  ['EncryptSecret', 'none', 'encryptor.encryptSymmetric(pt, ct)', false],
  ['EncryptPublic', 'none', 'encryptor.encrypt(pt, ct)', false],
  ['Decrypt', 'none', 'decryptor.decrypt(ct, pt)', false],
  ['EncodeBatch', 'none', 'batchEncoder.encode(BigUint64Array(n), pt)', false],
  ['DecodeBatch', 'none', 'batchEncoder.decodeBigUint64(pt) → BigUint64Array(n)', false],
  ['EvaluateAddCt', 'none', 'evaluator.add(ct, ct, dest)', false],
  ['EvaluateAddPt', 'none', 'evaluator.addPlain(ct, pt, dest)', false],
  ['EvaluateMulCt', 'none', 'evaluator.multiply(ct, ct, dest) (no relinearization)', false],
  ['EvaluateMulPt', 'none', 'evaluator.multiplyPlain(ct, pt, dest)', false],
  ['EvaluateSquare', 'none', 'evaluator.square(ct, dest)', false],
  ['EvaluateModSwitchInplace', 'modChain', 'evaluator.cipherModSwitchToNextInplace(fresh copy)', false],
  ['EvaluateRelinInplace', 'keyswitching', 'evaluator.relinearizeInplace(fresh size-3 copy, relinKeys)', false],
  ['EvaluateRotateRows', 'keyswitching', 'evaluator.rotateRows(ct, 1, galoisKeys, dest)', false],
  ['EvaluateRotateCols', 'keyswitching', 'evaluator.rotateColumns(ct, galoisKeys, dest)', false],
  ['EvaluateSubCt', 'none', 'evaluator.sub(ct, ct, dest)', true],
  ['EvaluateSubPt', 'none', 'evaluator.subPlain(ct, pt, dest)', true],
  ['EvaluateNegate', 'none', 'evaluator.negate(ct, dest)', true],
]

const CKKS_OPS: ReadonlyArray<[string, OpRequirement, string, boolean]> = [
  ['EncryptSecret', 'none', 'encryptor.encryptSymmetric(pt, ct)', false],
  ['EncryptPublic', 'none', 'encryptor.encrypt(pt, ct)', false],
  ['Decrypt', 'none', 'decryptor.decrypt(ct, pt)', false],
  ['EncodeDouble', 'none', 'ckksEncoder.encode(Float64Array(n/2), scale, pt)', false],
  ['DecodeDouble', 'none', 'ckksEncoder.decodeFloat64(pt) → Float64Array(n/2)', false],
  ['EvaluateAddCt', 'none', 'evaluator.add(ct, ct, dest)', false],
  ['EvaluateAddPt', 'none', 'evaluator.addPlain(ct, pt, dest)', false],
  ['EvaluateMulCt', 'none', 'evaluator.multiply(ct, ct, dest) (no relinearization)', false],
  ['EvaluateMulPt', 'none', 'evaluator.multiplyPlain(ct, pt, dest)', false],
  ['EvaluateSquare', 'none', 'evaluator.square(ct, dest)', false],
  ['EvaluateRescaleInplace', 'modChain', 'evaluator.rescaleToNextInplace(fresh copy)', false],
  ['EvaluateRelinInplace', 'keyswitching', 'evaluator.relinearizeInplace(fresh size-3 copy, relinKeys)', false],
  ['EvaluateRotate', 'keyswitching', 'evaluator.rotateVector(ct, 1, galoisKeys, dest)', false],
  ['EvaluateSubCt', 'none', 'evaluator.sub(ct, ct, dest)', true],
  ['EvaluateSubPt', 'none', 'evaluator.subPlain(ct, pt, dest)', true],
  ['EvaluateNegate', 'none', 'evaluator.negate(ct, dest)', true],
  ['EvaluateConjugate', 'keyswitching', 'evaluator.complexConjugate(ct, galoisKeys, dest)', true],
]

const KEYGEN_OPS: OpSpec[] = [
  {
    id: 'KeyGen/Secret',
    group: 'KeyGen',
    op: 'Secret',
    scheme: 'ckks',
    requires: 'none',
    origin: 'sealbench',
    timed: 'new KeyGenerator(context) (samples a secret key; sealbench calls the private generate_sk)',
  },
  {
    id: 'KeyGen/Public',
    group: 'KeyGen',
    op: 'Public',
    scheme: 'ckks',
    requires: 'none',
    origin: 'sealbench',
    timed: 'keygen.createPublicKey()',
  },
  {
    id: 'KeyGen/Relin',
    group: 'KeyGen',
    op: 'Relin',
    scheme: 'ckks',
    requires: 'keyswitching',
    origin: 'sealbench',
    timed: 'keygen.createRelinKeys()',
  },
  {
    id: 'KeyGen/Galois',
    group: 'KeyGen',
    op: 'Galois',
    scheme: 'ckks',
    requires: 'keyswitching',
    origin: 'sealbench',
    timed: 'keygen.createGaloisKeysWithSteps([one random step]) (one key, as sealbench; not the default set)',
  },
]

function schemeRows(
  group: 'BFV' | 'BGV' | 'CKKS',
  rows: ReadonlyArray<[string, OpRequirement, string, boolean]>,
): OpSpec[] {
  const scheme = group.toLowerCase() as Scheme
  return rows.map(([op, requires, timed, extra]) => ({
    id: `${group}/${op}`,
    group,
    op,
    scheme,
    requires,
    origin: extra ? 'sandbox' : group === 'BGV' ? 'sealbench-bgv' : 'sealbench',
    timed,
  }))
}

/**
 * SEAL and he-ring's WebAssembly kernel side by side at the private search's parameters
 * (the `bgv-search` context: n = 4096 only). The kernel rows time what the search runs
 * (he-core's keySwitchSearchKernel): a rotation is one key switch plus the automorphism on
 * residues already in the kernel's heap; the hoisted one shares one decomposition among the
 * seven baby steps of g = 8; the product is one NTT-form ciphertext times one NTT-form
 * plaintext, reduced. Native SEAL has no kernel rows (the kernel is WebAssembly).
 */
const SEARCH_OPS: OpSpec[] = [
  [
    'EvaluateRotateRows',
    'evaluator.rotateRows(ct, 1, galoisKeys, dest) (NTT-form BGV ciphertext, as the search holds it)',
  ],
  [
    'EvaluateMulPtNtt',
    'evaluator.multiplyPlain(ct, pt, dest), ct and pt in NTT form (pt transformed once, as the search stores its diagonals)',
  ],
  ['KernelRotate', 'he-ring RnsKernel.rotate(dst, src, galois element of step 1): one key switch and the automorphism'],
  [
    'KernelRotateHoisted',
    'he-ring RnsKernel.decompose(src) once, then rotateHoisted for steps 1..7; per rotation (decomposition included)',
  ],
  [
    'KernelMulPtNtt',
    'he-ring RnsKernel.innerProduct(dest, [ct], [pt]): one NTT-form product, both polynomials, reduced mod each prime',
  ],
].map(([op, timed]) => ({
  id: `Search/${op}`,
  group: 'Search',
  op: op as string,
  scheme: 'bgv-search',
  requires: 'keyswitching',
  origin: 'sandbox',
  timed: timed as string,
  ...((op as string).startsWith('Kernel') ? { wasmOnly: true as const } : {}),
}))

/** Context construction, timed once per engine as the environment is built (cold, no warm-up). */
const SETUP_OPS: OpSpec[] = (['BFV', 'CKKS', 'BGV'] as const).map((name) => ({
  id: `Setup/Context${name}`,
  group: 'Setup',
  op: `Context${name}`,
  scheme: name.toLowerCase() as Scheme,
  requires: 'none',
  origin: 'setup',
  timed: 'new SEALContext(parms, expandModChain=true, SecLevelType.none): one cold call',
}))

/** Every row, in display order within one n: KeyGen, BFV, CKKS (the published layout), then BGV, Search, Setup. */
export const OP_CATALOG: readonly OpSpec[] = [
  ...KEYGEN_OPS,
  ...schemeRows('BFV', BATCH_OPS),
  ...schemeRows('CKKS', CKKS_OPS),
  ...schemeRows('BGV', BATCH_OPS),
  ...SEARCH_OPS,
  ...SETUP_OPS,
]

const BY_ID = new Map(OP_CATALOG.map((spec) => [spec.id, spec]))

/** The catalog entry for an op id, or undefined. */
export function findOp(id: string): OpSpec | undefined {
  return BY_ID.get(id)
}

/** Whether a row exists at these parameters (sealbench's registration rules). */
export function opApplies(spec: OpSpec, facts: { usingKeyswitching: boolean; coeffModulusCount: number }): boolean {
  switch (spec.requires) {
    case 'none':
      return true
    case 'keyswitching':
      return facts.usingKeyswitching
    case 'modChain':
      return facts.coeffModulusCount > 1
    default: {
      const unreachable: never = spec.requires
      return unreachable
    }
  }
}

/** Why a row does not exist at these parameters, in sealbench's terms. */
export function skipReason(spec: OpSpec): string {
  return spec.requires === 'keyswitching'
    ? 'no keyswitching: the default coeff modulus has a single prime (sealbench registers no such row)'
    : 'single-prime coeff modulus: no modulus chain (sealbench registers no such row)'
}
