import type { SchemeName } from '../params/ParamsSpec.ts'
import type { HelperName } from './emitStep.ts'

/** Source lines of the helper functions a generated program uses. */
export function emitHelpers(
  helpers: ReadonlySet<HelperName>,
  scheme: SchemeName,
  polyModulusDegree: number,
  ts: boolean,
): string[] {
  const t = (annotation: string) => (ts ? annotation : '')
  const lines: string[] = []
  const ckks = scheme === 'ckks'
  if (helpers.has('sumElements')) {
    const rotate = ckks
      ? 'evaluator.rotateVector(destination, step, galoisKeys, rotated)'
      : 'evaluator.rotateRows(destination, step, galoisKeys, rotated)'
    lines.push(
      '// node-seal 7 dropped sumElements: rotate and add, halving the distance each time,',
      `// so every slot ends up holding the sum of all ${ckks ? 'slots' : 'slots of its row; then add the swapped row'}.`,
      `const sumElements = (source${t(': Ciphertext')}, destination${t(': Ciphertext')})${t(': void')} => {`,
      '  const rotated = own(new seal.Ciphertext())',
      '  destination.assign(source)',
      `  for (let step = ${polyModulusDegree / 4}; step >= 1; step /= 2) {`,
      `    ${rotate}`,
      '    evaluator.addInplace(destination, rotated)',
      '  }',
    )
    if (!ckks)
      lines.push(
        '  evaluator.rotateColumns(destination, galoisKeys, rotated)',
        '  evaluator.addInplace(destination, rotated)',
      )
    lines.push('}', '')
  }
  if (helpers.has('alignCiphertexts') || helpers.has('alignPlain')) {
    lines.push(
      '// align: true — bring two operands to one level by mod-switching the higher one down (on a copy)',
      ...(ckks ? ['// and, for CKKS additions, give them one scale (they differ only by rescaling round-off).'] : []),
      `const levelOf = (value${t(': Ciphertext | Plaintext')})${t(': number')} => own(context.getContextData(own(value.parmsId()))).chainIndex()`,
      `const switchedTo = (ciphertext${t(': Ciphertext')}, target${t(': Ciphertext | Plaintext')})${t(': Ciphertext')} => {`,
      '  const copy = own(new seal.Ciphertext())',
      '  evaluator.cipherModSwitchTo(ciphertext, own(target.parmsId()), copy)',
      '  return copy',
      '}',
      '// SEAL compares scales up to one unit in the last place.',
      `const sameScale = (x${t(': number')}, y${t(': number')})${t(': boolean')} =>`,
      '  Math.abs(x - y) < Number.EPSILON * Math.max(1, Math.abs(x), Math.abs(y))',
    )
  }
  if (helpers.has('alignCiphertexts')) {
    lines.push(
      `const alignCiphertexts = (a${t(': Ciphertext')}, b${t(': Ciphertext')}, matchScale${t(': boolean')})${t(': [Ciphertext, Ciphertext]')} => {`,
      '  let x = a',
      '  let y = b',
      '  const levelA = levelOf(a)',
      '  const levelB = levelOf(b)',
      '  if (levelA > levelB) x = switchedTo(a, b)',
      '  else if (levelB > levelA) y = switchedTo(b, a)',
      '  if (matchScale && !sameScale(x.scale(), y.scale())) {',
      '    if (y === b) y = own(b.copy())',
      '    y.setScale(x.scale())',
      '  }',
      '  return [x, y]',
      '}',
    )
  }
  if (helpers.has('alignPlain')) {
    lines.push(
      `const alignPlain = (a${t(': Ciphertext')}, p${t(': Plaintext')}, matchScale${t(': boolean')})${t(': [Ciphertext, Plaintext]')} => {`,
      '  let x = a',
      '  let q = p',
      '  const levelA = levelOf(a)',
      '  const levelP = levelOf(p)',
      '  if (levelA > levelP) x = switchedTo(a, p)',
      '  else if (levelP > levelA) {',
      '    q = own(new seal.Plaintext())',
      '    evaluator.plainModSwitchTo(p, own(a.parmsId()), q)',
      '  }',
      '  if (matchScale && !sameScale(x.scale(), q.scale())) {',
      '    if (q === p) q = own(p.copy())',
      '    q.setScale(x.scale())',
      '  }',
      '  return [x, q]',
      '}',
    )
  }
  if (helpers.has('alignCiphertexts') || helpers.has('alignPlain')) lines.push('')
  return lines
}
