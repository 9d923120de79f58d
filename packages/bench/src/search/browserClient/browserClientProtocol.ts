/** What the browser client page answers the benchmark (plain JSON through Playwright). */
export interface BrowserClientSetup {
  keyBytes: number
  userAgent: string
}

/** One timed query in the browser (ms and bytes), as the Node client records it. */
export interface BrowserClientSample {
  encrypt: number
  request: number
  server: number
  decrypt: number
  up: number
  down: number
}

export interface BrowserClientRun {
  samples: BrowserClientSample[]
  topHitFound: boolean
  exact: boolean
  /** Samples whose response had a block with no noise budget left. */
  noiseExhausted: number
}
