import { ADD_UNITS } from './add.ts'
import type { SumUnits } from './opKit.ts'
import { ROTATE_COLUMNS_UNITS } from './rotateColumns.ts'
import { ROTATE_ROWS_UNITS } from './rotateRows.ts'
import { ROTATE_VECTOR_UNITS } from './rotateVector.ts'

/** The ops summing all slots is made of. */
export const SUM_UNITS: SumUnits = {
  add: ADD_UNITS,
  rotateRows: ROTATE_ROWS_UNITS,
  rotateVector: ROTATE_VECTOR_UNITS,
  rotateColumns: ROTATE_COLUMNS_UNITS,
}
