import { PROGRAM_OPS } from '@sealbox/he-core'
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

/** Every program op id ("multiply", "rotateRows"), longest first so "innerProductPlain" wins over "innerProduct". */
const OPS = Object.keys(PROGRAM_OPS).sort((a, b) => b.length - a.length)
const OP_SET = new Set(OPS)
const OP_ALTERNATIVES = OPS.join('|')
/** Ops written in camelCase are never English words: named wherever they appear. */
const CAMEL_OPS = new RegExp(`\\b(${OPS.filter((op) => /[A-Z]/.test(op)).join('|')})\\b`, 'g')
/** "step 4 (multiply)", as he-core labels a step. */
const STEP_LABEL = new RegExp(`\\b[Ss]tep (\\d+) \\((${OP_ALTERNATIVES})\\)`, 'g')
/** "(square)" or "(rotateRows)": an op named in parentheses. */
const OP_IN_PARENS = new RegExp(`\\((${OP_ALTERNATIVES})\\)`, 'g')
/** ": exponentiate needs CKKS…": the op as the subject of its step's message. */
const OP_SUBJECT = new RegExp(`: (${OP_ALTERNATIVES}) (needs|has|is|would)\\b`, 'g')
/** "use square/multiply with relinearize and rescaleToNext": advice naming ops up to the clause's end. */
const ADVICE = /\buse ([^;)]+)/g
const OP_WORD = new RegExp(`(^|[\\s/,(])(${OP_ALTERNATIVES})(?=$|[\\s/,.;)])`, 'g')
/** he-core's advice on operands at different levels or scales names the step's `align` field. */
const ALIGN_FIELD = /\bset align: true\b/g
const MOD_SWITCH_DOWN = /\bmodSwitch the higher one down\b/g
/** SEAL's security level names, as the form's Security level choices read ("128-bit"). */
const SECURITY = /\btc(128|192|256)\b/g

function quoted(op: string): string {
  return `“${opLabel(op)}”`
}

/**
 * A message from he-core in the words on the form: field paths become the form's labels
 * ("(coeffModulus)" → "(Coefficient modulus)", "scaleBits is at most 60" → "The scale is
 * at most 2^60"), ops the step menu's names ("step 4 (rotateRows)" → "Step 4 (Rotate
 * rows)", "rescaleToNext" → "“Rescale to next level”"), security levels the form's
 * ("tc128" → "128-bit security"), "coeff modulus" the form's "coefficient modulus" and
 * "set align: true" the step's checkbox ("tick “align levels” on the step").
 */
export function formWords(message: string): string {
  let text = message.replace(/\(([A-Za-z][\w.]*)(?:\[(\d+)\])?\)$/, (whole, field: string, index?: string) => {
    const label = FIELD_LABELS[field]
    if (!label) return whole
    return index === undefined ? `(${label})` : `(${label}, prime ${Number(index) + 1})`
  })
  text = text.replace(/\b[Ss]caleBits is at (most|least) (\d+)/g, 'The scale is at $1 2^$2')
  text = text.replace(
    /\b[Ss]caleBits is a whole number of bits \(the scale is 2\^scaleBits\)/g,
    'Scale (bits) takes a whole number: the scale is 2 to that power',
  )
  text = text.replace(/\bscaleBits\b/g, 'scale bits')
  text = text.replace(/\b([Cc])oeff modulus\b/g, (_whole, c: string) => `${c === 'C' ? 'C' : 'c'}oefficient modulus`)
  text = text.replace(/\bn=(\d+)/g, 'n = $1')
  text = text.replace(SECURITY, '$1-bit security')
  text = text.replace(MOD_SWITCH_DOWN, `bring the higher one down with ${quoted('modSwitchToNext')}`)
  text = text.replace(ALIGN_FIELD, 'tick “align levels” on the step')
  text = text.replace(STEP_LABEL, (_whole, index: string, op: string) => `Step ${index} (${opLabel(op)})`)
  text = text.replace(OP_IN_PARENS, (whole, op: string) => (OP_SET.has(op) ? `(${opLabel(op)})` : whole))
  text = text.replace(OP_SUBJECT, (_whole, op: string, verb: string) => `: ${quoted(op)} ${verb}`)
  text = text.replace(ADVICE, (_whole, advice: string) => {
    const named = advice.replace(OP_WORD, (_match, before: string, op: string) => `${before}${quoted(op)}`)
    return `use ${named}`
  })
  // Whatever camelCase op is left (outside advice and labels) is still an identifier.
  return text.replace(CAMEL_OPS, (op) => quoted(op))
}
