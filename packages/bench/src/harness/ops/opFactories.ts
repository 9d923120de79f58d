import { BFV_OPS, BGV_OPS } from './batchSchemeOps.ts'
import { CKKS_OPS } from './ckksOps.ts'
import { KEYGEN_OPS } from './keygenOps.ts'
import type { OpFactory } from './PreparedOp.ts'
import { SEARCH_OPS } from './searchOps.ts'

/** Every op id of the catalog mapped to the code that prepares it. */
export const OP_FACTORIES: Readonly<Record<string, OpFactory>> = {
  ...KEYGEN_OPS,
  ...BFV_OPS,
  ...BGV_OPS,
  ...CKKS_OPS,
  ...SEARCH_OPS,
}
