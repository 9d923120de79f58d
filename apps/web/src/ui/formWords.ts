import { opLabel } from '../panels/functions/opGroups.ts'

/** he-core's field paths, named as the Parameters form names them. */
const FIELD_LABELS: Record<string, string> = {
  scheme: 'Scheme',
  polyModulusDegree: 'Poly modulus degree n',
  coeffModulus: 'Coefficient modulus',
  plainModulus: 'Plain modulus t',
  'plainModulus.value': 'Plain modulus t',
  'plainModulus.batchingBits': 'Plain modulus bits',
  scaleBits: 'Scale',
  security: 'Security level',
}

/** Program ops a message may name in camelCase, as he-core writes them. */
const OPS = [
  'rotateRows',
  'rotateColumns',
  'rotateVector',
  'rescaleToNext',
  'modSwitchToNext',
  'modSwitchToLast',
  'complexConjugate',
  'multiplyPlain',
  'addPlain',
  'subPlain',
  'sumElements',
  'innerProductPlain',
  'innerProduct',
]
const OP_SET = new Set(OPS)
const OP_WORDS = new RegExp(`\\b(${OPS.join('|')})\\b`, 'g')

/**
 * A message from he-core in the words on the form: field paths become the form's labels
 * ("(coeffModulus)" → "(Coefficient modulus)", "scaleBits is at most 60" → "The scale is
 * at most 2^60"), and op names the step menu's ("rescaleToNext" → "Rescale to next level").
 */
export function formWords(message: string): string {
  let text = message.replace(/\(([A-Za-z][\w.]*)(?:\[(\d+)\])?\)$/, (whole, field: string, index?: string) => {
    const label = FIELD_LABELS[field]
    if (!label) return whole
    return index === undefined ? `(${label})` : `(${label}, prime ${Number(index) + 1})`
  })
  text = text.replace(/\b[Ss]caleBits is at (most|least) (\d+)/g, 'The scale is at $1 2^$2')
  text = text.replace(/\bscaleBits\b/g, 'scale bits')
  // "Step 4 (rotateRows): …" names the step as its menu does; elsewhere the op is quoted.
  text = text.replace(/\((\w+)\)/g, (whole, word: string) => (OP_SET.has(word) ? `(${opLabel(word)})` : whole))
  return text.replace(OP_WORDS, (op) => `“${opLabel(op)}”`)
}
