/** One baby-step config native SEAL might be fastest with. */
export interface NativeCandidate {
  babySteps: 'client' | 'server'
  babyStep: number
}

/** Rotations of one full block with server-side baby steps: g − 1 baby and ⌈D'/g⌉ − 1 giant. */
function serverRotations(paddedDimension: number, g: number): number {
  return g - 1 + Math.ceil(paddedDimension / g) - 1
}

/**
 * The baby-step configs that could be native SEAL's fastest at padded dimension D', whatever
 * g he-core's cost model picks for WebAssembly (native's rotations cost another share of a
 * query than the key-switching kernel's):
 * - server-side (one ciphertext up): the powers of two in (√D'/2, 2√D'], and the g
 *   in the middle of those with the fewest rotations per block (g = 12 at D' = 128, as
 *   Apple's example has it);
 * - client-side (g ciphertexts up, fewer rotations, more to load): g = 8, 16 and 32 up to D'.
 * Each is worth trying seeded and unseeded (no seed expansion on load, twice the bytes).
 */
export function nativeCandidates(paddedDimension: number): NativeCandidate[] {
  const root = Math.sqrt(paddedDimension)
  const powers: number[] = []
  for (let g = 2; g <= paddedDimension; g *= 2) if (g > root / 2 && g <= 2 * root) powers.push(g)
  const all = Array.from({ length: paddedDimension }, (_, i) => i + 1)
  const least = Math.min(...all.map((g) => serverRotations(paddedDimension, g)))
  const tied = all.filter((g) => serverRotations(paddedDimension, g) === least)
  const middle = tied[Math.floor(tied.length / 2)] as number
  const server = [...new Set([...powers, middle])].filter((g) => g >= 2).sort((a, b) => a - b)
  const client = [8, 16, 32].filter((g) => g <= paddedDimension)
  if (client.length === 0) client.push(paddedDimension)
  return [
    ...server.map((babyStep) => ({ babySteps: 'server' as const, babyStep })),
    ...client.map((babyStep) => ({ babySteps: 'client' as const, babyStep })),
  ]
}
