import { ms, table } from './searchReportFormat.ts'
import type { SearchTarget } from './searchTargets.ts'

/** A native implementation's search time measured outside this benchmark (packages/bench/NATIVE-PEERS.md). */
export interface PublishedPeer {
  name: string
  babyStep: number
  /** Compute only, ms. */
  min: number
  median: number
}

/** Where and how the published peers were measured, in one sentence. */
export const PUBLISHED_PEERS_SOURCE =
  "measured outside this benchmark on 2026-11-29, on a quiet 2-core AMD EPYC with AVX-512 IFMA (this project's kind of machine, load average 0.1–0.2): a C++ twin of the same search at Apple's shape (BFV n = 4096 [27, 28, 28], one query ciphertext, server-side baby steps, best g), compute only — no decode, load or save (packages/bench/NATIVE-PEERS.md)"

/** The C++ twin of the search at Apple's shape, V = 4096, D = 128. */
export const PUBLISHED_PEERS: readonly PublishedPeer[] = [
  { name: 'SEAL 4.1.2 + Intel HEXL 1.2.5 (C++)', babyStep: 10, min: 4.54, median: 4.62 },
  { name: 'SEAL 4.1.2, plain build (C++)', babyStep: 12, min: 18.5, median: 18.7 },
]

/**
 * This run's default at Apple's shape (server total: decode + load + compute + save) over
 * each published peer's compute. Across runs and machines' loads, so the minimum (closest to
 * an idle core) is the comparable figure; empty when the run has no Apple-shape default.
 */
export function publishedPeerLines(targets: readonly SearchTarget[]): string[] {
  const apple = targets.find((t) => t.what === 'default config' && t.shape.includes("Apple's shape"))
  if (!apple) return []
  return [
    `Against native peers ${PUBLISHED_PEERS_SOURCE}. The default here is this run's server total, which counts what the twin does not; its minimum is the comparable figure (the median includes this run's wait for a core).`,
    '',
    table(
      [
        'peer (measured elsewhere)',
        'g',
        'peer min / median (ms)',
        "this run's default, min / median (ms)",
        '**default ÷ peer** (min / median)',
      ],
      PUBLISHED_PEERS.map((peer) => [
        peer.name,
        String(peer.babyStep),
        `${ms(peer.min)} / ${ms(peer.median)}`,
        `${ms(apple.wasm.totalMin)} / ${ms(apple.wasm.totalMedian)}`,
        `**${(apple.wasm.totalMin / peer.min).toFixed(2)}×** / ${(apple.wasm.totalMedian / peer.median).toFixed(2)}×`,
      ]),
    ),
  ]
}
