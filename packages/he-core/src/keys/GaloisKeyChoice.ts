import { z } from 'zod'

/**
 * Which Galois (rotation) keys to make: none (`false`), SEAL's power-of-two set
 * (`'powerOfTwo'`, any step by composition), or exactly these rotation steps
 * (0 = column swap / conjugation). `KeySet` takes it, a workspace's `keys.galois` resolves
 * to it (`'auto'` and `'none'` decided), and a message that carries the choice parses it
 * with this schema.
 */
export const GaloisKeyChoice = z.union([
  z.literal(false),
  z.literal('powerOfTwo'),
  z.object({ steps: z.array(z.number().int()) }),
])
/** One Galois-key choice (see the schema). */
export type GaloisKeyChoice = z.infer<typeof GaloisKeyChoice>
