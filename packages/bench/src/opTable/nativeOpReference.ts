/**
 * Native SEAL's single operations at the search's parameters (n = 4096 [27, 28, 28], BGV),
 * measured outside this benchmark on a quiet machine of this project's kind (AMD EPYC with
 * AVX-512 IFMA, 2026-11): packages/bench/NATIVE-PEERS.md, "Single operations". µs, median.
 */
export const NATIVE_OP_REFERENCE = {
  source:
    'measured elsewhere (2026-11) on a quiet AMD EPYC with AVX-512 IFMA, n = 4096 [27, 28, 28]: packages/bench/NATIVE-PEERS.md',
  hexl: { rotateUs: 168, mulPlainNttUs: 3.1 },
  plain: { rotateUs: 480, mulPlainNttUs: 34.8 },
} as const
