import { PROGRAM_OPS } from '@sealbox/he-core'

const OPS = Object.keys(PROGRAM_OPS)
const PATTERNS: readonly RegExp[] = [
  // Program ops in camelCase are identifiers wherever they appear.
  new RegExp(`\\b(${OPS.filter((op) => /[A-Z]/.test(op)).join('|')})\\b`, 'g'),
  // Any op id in parentheses ("(square)", "Step 2 (multiply)"): the step menu says "Square".
  new RegExp(`\\((${OPS.join('|')})\\)`, 'g'),
  // he-core's field paths and key names.
  /\b(coeffModulus|plainModulus|scaleBits|polyModulusDegree|batchingBits|galoisKeys|relinKeys|secretKey|publicKey)\b/g,
  // SEAL's security level names and he-core's short "coeff modulus".
  /\btc(128|192|256)\b/g,
  /\b[Cc]oeff modulus\b/g,
  // A step's fields as he-core spells them: the step card has an "align levels" checkbox.
  /\balign: true\b/g,
  /\bmodSwitch\b/g,
  // The assistant's field ids in parentheses.
  /\((slots|multiplications|depth|plainBits|precisionBits|security)\)/g,
]

/**
 * The internal identifiers in a text a person reads (`rotateRows`, "(square)",
 * `tc128`, "(slots)"…), where the form and the step menu have words. Empty for a text in
 * the sandbox's words; the tests scan every message producer with it.
 */
export function rawIdentifiers(text: string): string[] {
  return PATTERNS.flatMap((pattern) => [...text.matchAll(pattern)].map((match) => match[0]))
}
