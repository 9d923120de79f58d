/** Primes (and t) below 2^31: Shoup's products stay below 2p < 2^32 before their last correction. */
export const RNS_KERNEL_MAX_BITS = 31

/**
 * Whether the kernel takes these primes: at least one data prime and the special prime, all (and t) below 2^31.
 */
export function rnsKernelApplies(keyPrimes: readonly bigint[], plainModulus: bigint): boolean {
  const limit = 1n << BigInt(RNS_KERNEL_MAX_BITS)
  return keyPrimes.length >= 2 && plainModulus < limit && keyPrimes.every((p) => p < limit)
}
