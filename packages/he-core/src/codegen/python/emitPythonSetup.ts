import type { ResolvedParams } from '../../params/ParamsSpec.ts'
import type { ParsedWorkspace } from '../../workspace/parseWorkspace.ts'

/*
 * The set-up sections of a generated Python program (seal-python 4.1): parameters and
 * context, keys, encode / encrypt / decrypt / decode / print, and the helpers a pipeline
 * uses. Each returns source lines at function-body depth.
 */

/** Encryption parameters, context, evaluator and encoder. */
export function pythonParamsSection(params: ResolvedParams): string[] {
  const n = params.polyModulusDegree
  const lines = [
    '# Encryption parameters',
    `parms = seal.EncryptionParameters(seal.scheme_type.${params.scheme})`,
    `parms.set_poly_modulus_degree(${n})`,
    `parms.set_coeff_modulus(seal.CoeffModulus.Create(${n}, [${params.coeffModulusBits.join(', ')}]))`,
  ]
  const t = params.plainModulus
  if (t) {
    lines.push(
      'batchingBits' in t
        ? `parms.set_plain_modulus(seal.PlainModulus.Batching(${n}, ${t.batchingBits}))`
        : `parms.set_plain_modulus(seal.Modulus(${t.value}))`,
    )
  }
  lines.push(
    `context = seal.SEALContext(parms, True, seal.sec_level_type.${params.security})`,
    'if not context.parameters_set():',
    "    raise SystemExit('SEAL rejected these encryption parameters: ' + context.parameter_error_message())",
    'evaluator = seal.Evaluator(context)',
    params.scheme === 'ckks' ? 'encoder = seal.CKKSEncoder(context)' : 'encoder = seal.BatchEncoder(context)',
  )
  if (t) lines.push('plain_modulus = parms.plain_modulus().value()')
  return lines
}

/** Secret, public and evaluation keys, encryptor, decryptor. */
export function pythonKeysSection(parsed: ParsedWorkspace): string[] {
  const { keys, workspace } = parsed
  const lines = [
    '',
    '# Keys',
    'key_generator = seal.KeyGenerator(context)',
    'secret_key = key_generator.secret_key()',
    'public_key = key_generator.create_public_key()',
  ]
  if (keys.seeded && (keys.relin || keys.galois)) {
    lines.push('# The workspace uploads seeded (half-size) keys; the wheel makes full ones, which compute the same.')
  }
  if (keys.relin) lines.push('relin_keys = key_generator.create_relin_keys()')
  if (keys.galois === 'powerOfTwo') lines.push('galois_keys = key_generator.create_galois_keys()')
  else if (keys.galois) {
    lines.push(
      '# Galois keys for exactly these rotation steps (0 = swap the rows / conjugate).',
      'galois_keys = seal.GaloisKeys()',
      `key_generator.create_galois_keys([${keys.galois.steps.join(', ')}], galois_keys)`,
    )
  }
  lines.push(
    workspace.encryption === 'symmetric'
      ? 'encryptor = seal.Encryptor(context, public_key, secret_key)'
      : 'encryptor = seal.Encryptor(context, public_key)',
    'decryptor = seal.Decryptor(context, secret_key)',
  )
  return lines
}

/** Encoding (range-checked for BFV/BGV), encryption, decoding, and `formatOutputLine`'s format. */
export function pythonCodecSection(parsed: ParsedWorkspace): string[] {
  const ckks = parsed.params.scheme === 'ckks'
  const { slots, decimals } = parsed.workspace.display
  const encryptCall = parsed.workspace.encryption === 'symmetric' ? 'encrypt_symmetric' : 'encrypt'
  const lines = ['', '# Encoding, encryption, decoding']
  if (ckks) {
    lines.push('def encode(values, scale):', '    return encoder.encode(np.array(values, dtype=np.float64), scale)')
  } else {
    lines.push(
      '# SEAL silently reduces batch values mod t; refuse what does not fit, as sealbox does.',
      'def encode(values):',
      '    half = (plain_modulus - 1) // 2',
      '    for i, value in enumerate(values):',
      '        if value < -half or value > half:',
      "            raise ValueError(f'value {i} = {value} does not fit the plain modulus {plain_modulus}')",
      '    return encoder.encode(np.array(values, dtype=np.int64))',
    )
  }
  lines.push(
    '',
    'def encrypt(plaintext):',
    `    return encryptor.${encryptCall}(plaintext)`,
    '',
    'def decrypt(ciphertext):',
    '    return decryptor.decrypt(ciphertext)',
    '',
    'def decode(plaintext):',
    '    return encoder.decode(plaintext).tolist()',
    '',
    `# Printed like sealbox prints them: the first ${slots} slots${ckks ? `, ${decimals} decimals` : ''}.`,
    'def format_slot(value):',
  )
  if (ckks) {
    lines.push(
      `    text = f'{value:.${decimals}f}'`,
      "    return text[1:] if text.startswith('-') and text.strip('-0.') == '' else text",
    )
  } else lines.push('    return str(int(value))')
  lines.push(
    '',
    'def format_line(name, values):',
    `    shown = ', '.join(format_slot(value) for value in values[:${slots}])`,
    `    return f"{name} = [{shown}{', ...' if len(values) > ${slots} else ''}]"`,
  )
  return lines
}

/** The helper functions a pipeline uses, as nested functions of `main`. */
export function pythonHelpersSection(
  helpers: ReadonlySet<'sum' | 'alignCipher' | 'alignPlain'>,
  params: ResolvedParams,
): string[] {
  const ckks = params.scheme === 'ckks'
  const lines: string[] = []
  if (helpers.has('sum')) {
    lines.push(
      '',
      '# sealbox rebuilds sumElements: rotate and add, halving the distance each time,',
      `# so every slot ends up holding the sum of all ${ckks ? 'slots' : 'slots of its row; then add the swapped row'}.`,
      'def sum_elements(source):',
      '    destination = seal.Ciphertext(source)',
      `    step = ${params.polyModulusDegree / 4}`,
      '    while step >= 1:',
      `        evaluator.add_inplace(destination, evaluator.${ckks ? 'rotate_vector' : 'rotate_rows'}(destination, step, galois_keys))`,
      '        step //= 2',
    )
    if (!ckks) lines.push('    evaluator.add_inplace(destination, evaluator.rotate_columns(destination, galois_keys))')
    lines.push('    return destination')
  }
  if (helpers.has('alignCipher') || helpers.has('alignPlain')) {
    lines.push(
      '',
      '# align: True — bring two operands to one level by mod-switching the higher one down (a copy)',
      ...(ckks ? ['# and, for CKKS additions, give them one scale (they differ only by rescaling round-off).'] : []),
      'def level_of(value):',
      '    return context.get_context_data(value.parms_id()).chain_index()',
      '',
      '# SEAL compares scales up to one unit in the last place.',
      'def same_scale(x, y):',
      '    return abs(x - y) < sys.float_info.epsilon * max(1.0, abs(x), abs(y))',
    )
  }
  for (const [name, helper, copy] of [
    ['align_ciphertexts', 'alignCipher', 'seal.Ciphertext'],
    ['align_plain', 'alignPlain', 'seal.Plaintext'],
  ] as const) {
    if (!helpers.has(helper)) continue
    lines.push(
      '',
      `def ${name}(a, b, match_scale):`,
      '    x, y = a, b',
      '    if level_of(a) > level_of(b):',
      '        x = evaluator.mod_switch_to(a, b.parms_id())',
      '    elif level_of(b) > level_of(a):',
      '        y = evaluator.mod_switch_to(b, a.parms_id())',
      '    if match_scale and not same_scale(x.scale(), y.scale()):',
      '        if y is b:',
      `            y = ${copy}(b)`,
      '        y.scale(x.scale())',
      '    return x, y',
    )
  }
  return lines
}
