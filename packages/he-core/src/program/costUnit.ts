/**
 * Milliseconds of a server worker thread's CPU time that one cost unit stands for on
 * this project's VM (2-core, Node 24, node-seal 7): the median ms per unit of the
 * calibration benchmark (`pnpm --filter @sealbox/bench benchmark:calibrate`, results in
 * packages/bench/results/calibration/), whose grid — schemes, n, grown ciphertexts, NAF
 * rotations, sums, plaintext operands, many inputs, key uploads and the server's search —
 * agrees within 2× around it: 0.21–0.22 ms at load averages up to 14; a worker's CPU time
 * per unit itself rises on a crowded machine (0.26 at load average 17, cores shared by
 * hyperthreads and caches), and its wall time more.
 * Searches are priced from their estimated milliseconds through it (`searchCost`), and the
 * server's priors (a slot's throughput before anything finished, an unseen inline job's
 * time) start from it.
 *
 * Its own module so the search cost model (reached from the client entry) can price in
 * the same units without importing the program cost model and, through it, the op table.
 */
export const COST_UNIT_MS = 0.22
