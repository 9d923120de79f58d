/** Python keywords, soft keywords and the builtins a generated program calls. */
const PYTHON_RESERVED = [
  'False',
  'None',
  'True',
  'and',
  'as',
  'assert',
  'async',
  'await',
  'break',
  'case',
  'class',
  'continue',
  'def',
  'del',
  'elif',
  'else',
  'except',
  'finally',
  'for',
  'from',
  'global',
  'if',
  'import',
  'in',
  'is',
  'lambda',
  'match',
  'nonlocal',
  'not',
  'or',
  'pass',
  'raise',
  'return',
  'try',
  'type',
  'while',
  'with',
  'yield',
  'abs',
  'enumerate',
  'float',
  'int',
  'len',
  'list',
  'max',
  'min',
  'print',
  'range',
  'str',
  'sum',
  'tuple',
  'object',
  'id',
  'map',
  'round',
  'zip',
  'bool',
  'dict',
  'set',
  'iter',
  'next',
]

/**
 * Names the generated program itself binds. Python has no block scope, so the
 * temporaries of a step (`left`, `right`, `product`) live beside the program's names.
 */
const PYTHON_GENERATED = [
  'seal',
  'np',
  'sys',
  'main',
  'parms',
  'context',
  'evaluator',
  'encoder',
  'plain_modulus',
  'half',
  'key_generator',
  'secret_key',
  'public_key',
  'relin_keys',
  'galois_keys',
  'encryptor',
  'decryptor',
  'encode',
  'encrypt',
  'decrypt',
  'decode',
  'format_slot',
  'format_line',
  'sum_elements',
  'level_of',
  'same_scale',
  'align_ciphertexts',
  'align_plain',
  'require_noise_budget',
  'left',
  'right',
  'product',
  'values',
  'value',
  'scale',
  'plaintext',
  'ciphertext',
  'message',
]

const TAKEN = new Set([...PYTHON_RESERVED, ...PYTHON_GENERATED])

/**
 * A Python identifier for every program name: the name itself when it is free,
 * otherwise the name with `_` appended until it clashes with nothing.
 */
export function pythonIdentifiersFor(names: readonly string[]): Map<string, string> {
  const result = new Map<string, string>()
  const used = new Set(names)
  for (const name of names) {
    let id = name
    if (TAKEN.has(id)) {
      do id = `${id}_`
      while (TAKEN.has(id) || used.has(id))
      used.add(id)
    }
    result.set(name, id)
  }
  return result
}
