/** How a load phase ended: every request sent, or its time ran out (in-flight requests finish). */
export type StoppedBy = 'requests' | 'time'

/** One phase of a load generator: how many requests, until when, and how to send one. */
export interface LoadPhase<Sample> {
  concurrency: number
  /** Requests to send, at most. */
  total: number
  /** `performance.now()` after which no request is sent. */
  deadline: number
  /** Sends request `index` (0 … total − 1) and returns what it measured. */
  send(index: number): Promise<Sample>
}

/**
 * The one load loop of the bench's load generators: keeps `concurrency` requests in
 * flight (each lane sends its next request when its last one is answered) until
 * `total` are sent or the deadline passes. Returns every sample in completion order.
 */
export async function runLoadPhase<Sample>(
  phase: LoadPhase<Sample>,
): Promise<{ samples: Sample[]; stoppedBy: StoppedBy }> {
  const samples: Sample[] = []
  let issued = 0
  let stoppedBy: StoppedBy = 'requests'
  const lane = async () => {
    for (;;) {
      if (issued >= phase.total) return
      if (performance.now() >= phase.deadline) {
        stoppedBy = 'time'
        return
      }
      samples.push(await phase.send(issued++))
    }
  }
  await Promise.all(Array.from({ length: Math.min(phase.concurrency, phase.total) }, lane))
  return { samples, stoppedBy }
}
