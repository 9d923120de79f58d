import type { EndToEndCase } from './measureEndToEnd.ts'

/** The previous default: the client sends the 16 rotations of q (g = 16), zstd, so the server rotates little. */
const PREVIOUS_DEFAULT = { SEARCH_BABY_STEPS: 'client', SEARCH_BABY_STEP: '16' }

/**
 * The configs of the end-to-end section: Apple's PNNS shape (V = 4096, D = 128) and the
 * project's benchmark shape (V = 10,000, D = 16), each with today's default (chosen by
 * he-core for broadband) and the previous one; then embedding sizes with the default.
 */
export function endToEndCases(quick: boolean): EndToEndCase[] {
  const cases: EndToEndCase[] = [
    { title: "Apple's shape V=4096, D=128: default", rows: 4096, dimension: 128, env: {} },
    {
      title: 'Apple’s shape: previous default (client g=16, zstd queries)',
      rows: 4096,
      dimension: 128,
      env: PREVIOUS_DEFAULT,
      queryEncoding: 'zstd',
    },
    { title: 'V=10,000, D=16: default', rows: 10_000, dimension: 16, env: {} },
    {
      title: 'V=10,000, D=16: previous default (client g=16, zstd queries)',
      rows: 10_000,
      dimension: 16,
      env: PREVIOUS_DEFAULT,
      queryEncoding: 'zstd',
    },
  ]
  if (!quick) {
    cases.push(
      { title: 'V=10,000, D=384: default', rows: 10_000, dimension: 384, env: {} },
      { title: 'V=10,000, D=768: default', rows: 10_000, dimension: 768, env: {} },
    )
  }
  return cases
}
