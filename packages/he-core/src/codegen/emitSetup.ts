import type { ResolvedParams } from '../params/ParamsSpec.ts'
import type { ParsedWorkspace } from '../workspace/parseWorkspace.ts'

/*
 * The set-up sections of a generated program: parameters and context, keys, and the
 * encode / encrypt / decrypt / decode / print helpers. Each returns source lines.
 */

/** Encryption parameters, context, evaluator and encoder. */
export function paramsSection(params: ResolvedParams): string[] {
  const n = params.polyModulusDegree
  const lines = [
    '// Encryption parameters',
    `const parms = own(new seal.EncryptionParameters(seal.SchemeType.${params.scheme}))`,
    `parms.setPolyModulusDegree(${n})`,
    `parms.setCoeffModulus(own(seal.CoeffModulus.Create(${n}, Int32Array.from([${params.coeffModulusBits.join(', ')}]))))`,
  ]
  const t = params.plainModulus
  if (t) {
    lines.push(
      'batchingBits' in t
        ? `parms.setPlainModulus(own(seal.PlainModulus.Batching(${n}, ${t.batchingBits})))`
        : `parms.setPlainModulus(own(new seal.Modulus(${t.value}n)))`,
    )
  }
  lines.push(
    '// Enum arguments must be the enum objects: a raw number silently means "no security".',
    `const context = own(new seal.SEALContext(parms, true, seal.SecLevelType.${params.security}))`,
    "if (!context.parametersSet()) throw new Error('SEAL rejected these encryption parameters')",
    'const evaluator = own(new seal.Evaluator(context))',
    params.scheme === 'ckks'
      ? 'const encoder = own(new seal.CKKSEncoder(context))'
      : 'const encoder = own(new seal.BatchEncoder(context))',
  )
  if (t) lines.push('const plainModulus = own(parms.plainModulus()).value()')
  return lines
}

/** Secret, public and evaluation keys (seeded ones loaded back), encryptor, decryptor. */
export function keysSection(parsed: ParsedWorkspace): string[] {
  const { keys, workspace } = parsed
  const lines = [
    '',
    '// Keys',
    'const keyGenerator = own(new seal.KeyGenerator(context))',
    'const secretKey = own(keyGenerator.secretKey())',
    'const publicKey = own(keyGenerator.createPublicKey())',
  ]
  const galoisArgs =
    keys.galois && keys.galois !== 'powerOfTwo' ? `Int32Array.from([${keys.galois.steps.join(', ')}])` : ''
  const galoisMethod = keys.galois === 'powerOfTwo' ? 'createGaloisKeys' : 'createGaloisKeysWithSteps'
  if (keys.seeded && (keys.relin || keys.galois)) {
    lines.push('// Seeded (half-size) evaluation keys, as a client uploads them, loaded back for use.')
  }
  if (keys.relin) {
    if (keys.seeded) {
      lines.push(
        'const relinKeys = own(new seal.RelinKeys())',
        'relinKeys.loadFromArray(context, own(keyGenerator.createRelinKeysSerializable()).saveToArray(seal.ComprModeType.zstd))',
      )
    } else lines.push('const relinKeys = own(keyGenerator.createRelinKeys())')
  }
  if (keys.galois) {
    if (keys.seeded) {
      const seededMethod =
        keys.galois === 'powerOfTwo' ? 'createGaloisKeysSerializable' : 'createGaloisKeysSerializableWithSteps'
      lines.push(
        'const galoisKeys = own(new seal.GaloisKeys())',
        `galoisKeys.loadFromArray(context, own(keyGenerator.${seededMethod}(${galoisArgs})).saveToArray(seal.ComprModeType.zstd))`,
      )
    } else {
      if (keys.galois !== 'powerOfTwo')
        lines.push('// Galois keys for exactly these rotation steps (0 = swap the rows / conjugate).')
      lines.push(`const galoisKeys = own(keyGenerator.${galoisMethod}(${galoisArgs}))`)
    }
  }
  lines.push(
    workspace.encryption === 'symmetric'
      ? 'const encryptor = own(new seal.Encryptor(context, publicKey, secretKey))'
      : 'const encryptor = own(new seal.Encryptor(context, publicKey))',
    'const decryptor = own(new seal.Decryptor(context, secretKey))',
  )
  return lines
}

/** Encoding (range-checked for BFV/BGV), encryption, decoding, and the output format of `formatOutputLine`. */
export function codecSection(parsed: ParsedWorkspace, ts: boolean): string[] {
  const t = (annotation: string) => (ts ? annotation : '')
  const ckks = parsed.params.scheme === 'ckks'
  const { slots, decimals } = parsed.workspace.display
  const encryptCall = parsed.workspace.encryption === 'symmetric' ? 'encryptSymmetric' : 'encrypt'
  const lines = ['', '// Encoding, encryption, decoding']
  if (ckks) {
    lines.push(
      `const encode = (values${t(': number[]')}, scale${t(': number')})${t(': Plaintext')} => {`,
      '  const plaintext = own(new seal.Plaintext())',
      '  encoder.encode(Float64Array.from(values), scale, plaintext)',
      '  return plaintext',
      '}',
    )
  } else {
    lines.push(
      '// SEAL silently reduces batch values mod t; refuse what does not fit, as sealbox does.',
      `const encode = (values${t(': bigint[]')})${t(': Plaintext')} => {`,
      '  const half = (plainModulus - 1n) / 2n',
      '  values.forEach((value, i) => {',
      '    if (value < -half || value > half) {',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the generated program's own template literal
      '      throw new RangeError(`value ${i} = ${value} does not fit the plain modulus ${plainModulus}`)',
      '    }',
      '  })',
      '  const plaintext = own(new seal.Plaintext())',
      '  encoder.encode(BigInt64Array.from(values), plaintext)',
      '  return plaintext',
      '}',
    )
  }
  lines.push(
    `const encrypt = (plaintext${t(': Plaintext')})${t(': Ciphertext')} => {`,
    '  const ciphertext = own(new seal.Ciphertext())',
    `  encryptor.${encryptCall}(plaintext, ciphertext)`,
    '  return ciphertext',
    '}',
    `const decrypt = (ciphertext${t(': Ciphertext')})${t(': Plaintext')} => {`,
    '  const plaintext = own(new seal.Plaintext())',
    '  decryptor.decrypt(ciphertext, plaintext)',
    '  return plaintext',
    '}',
    ckks
      ? `const decode = (plaintext${t(': Plaintext')})${t(': number[]')} => Array.from(encoder.decodeFloat64(plaintext)${t(' as Float64Array')})`
      : `const decode = (plaintext${t(': Plaintext')})${t(': bigint[]')} => Array.from(encoder.decodeBigInt64(plaintext)${t(' as BigInt64Array')})`,
    `// Printed like sealbox prints them: the first ${slots} slots${ckks ? `, ${decimals} decimals` : ''}.`,
  )
  if (ckks) {
    lines.push(
      `const formatSlot = (value${t(': number')})${t(': string')} => {`,
      `  const text = value.toFixed(${decimals})`,
      '  return /^-0(\\.0*)?$/.test(text) ? text.slice(1) : text',
      '}',
    )
  } else lines.push(`const formatSlot = (value${t(': bigint')})${t(': string')} => String(value)`)
  lines.push(
    `const formatLine = (name${t(': string')}, values${t(ckks ? ': number[]' : ': bigint[]')})${t(': string')} => {`,
    `  const shown = values.slice(0, ${slots}).map(formatSlot)`,
    `  return \`\${name} = [\${shown.join(', ')}\${values.length > ${slots} ? ', ...' : ''}]\``,
    '}',
  )
  return lines
}
