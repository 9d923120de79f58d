/** base^exponent mod modulus, by square-and-multiply (exponent ≥ 0, modulus ≥ 1). */
export function powMod(base: bigint, exponent: bigint, modulus: bigint): bigint {
  let result = 1n
  let b = ((base % modulus) + modulus) % modulus
  let e = exponent
  while (e > 0n) {
    if (e & 1n) result = (result * b) % modulus
    b = (b * b) % modulus
    e >>= 1n
  }
  return result % modulus
}

/** value⁻¹ mod a prime `modulus` (Fermat: value^(p − 2)). */
export function modInverse(value: bigint, modulus: bigint): bigint {
  return powMod(value, modulus - 2n, modulus)
}
