import { HeError } from '@sealbox/he-core'

/** The bounds on request bodies being received at once, in bytes. */
export interface ReceivingBounds {
  /** `RECEIVING_BYTES`: every body being received on this node together. */
  nodeBytes: number
  /** `ADDRESS_RECEIVING_BYTES`: the bodies one client address is sending. */
  addressBytes: number
  /** `TENANT_RECEIVING_BYTES`: the bodies one tenant is sending. */
  tenantBytes: number
  /** `REQUEST_TIMEOUT_MS`: a body not received by then is cut, so its bytes are free by then at the latest. */
  requestTimeoutMs: number
}

/** Bytes reserved for one body: grown as a body without Content-Length streams in, released once. */
export interface BodyReservation {
  /** Reserves `bytes` more; throws as `ReceivingBudget.reserve` does (nothing is reserved then). */
  grow(bytes: number): void
  /** Counts `bytes` of the body as arrived (for `/metrics`: what is buffered, not only promised). */
  arrived(bytes: number): void
  /** Frees what this body holds; later calls do nothing. */
  release(): void
}

/** Who is sending a body. */
export interface BodySender {
  address: string
  /** The authenticated tenant; absent on routes without a bearer token. */
  tenant?: string
}

interface Live {
  sender: BodySender
  bytes: number
  arrived: number
  startedAt: number
}

/** Totals for `/metrics`. */
export interface ReceivingStats {
  /** Bytes reserved by the bodies being received (declared lengths, or what streamed in). */
  reservedBytes: number
  /** Bytes of those bodies that have arrived. */
  arrivedBytes: number
  bodies: number
}

/**
 * Bounds the bytes of request bodies being received (issue 33, M1): a body is buffered
 * whole before any later check (the tenant's quota, the anonymous storage cap), so 40
 * uploads that each send 60 MiB of 64 MiB and stall held 2.4 GB. Every body reserves its
 * size here before a byte of it is read — its Content-Length, or chunk by chunk as it
 * arrives — against the client address's bound, the tenant's and the node's. Past one,
 * the body is refused before it is read: 429 RATE_LIMITED for an address or a tenant over
 * its own bound, 503 OVERLOADED for a full node, each with Retry-After (when the oldest
 * body holding that bound reaches its request deadline, where it is cut at the latest).
 * The reservation is freed when the answer is sent or the connection ends, however that
 * happens (a completed request, a client that went away, a timeout).
 */
export class ReceivingBudget {
  readonly #bounds: ReceivingBounds
  readonly #now: () => number
  readonly #byAddress = new Map<string, number>()
  readonly #byTenant = new Map<string, number>()
  readonly #live = new Set<Live>()
  #total = 0
  #arrived = 0

  constructor(bounds: ReceivingBounds, now: () => number = () => performance.now()) {
    this.#bounds = bounds
    this.#now = now
  }

  /** Reserves `bytes` for a body from `sender`; throws RATE_LIMITED or OVERLOADED when a bound would be passed. */
  reserve(sender: BodySender, bytes: number): BodyReservation {
    const live: Live = { sender, bytes: 0, arrived: 0, startedAt: this.#now() }
    this.#add(live, bytes)
    this.#live.add(live)
    return {
      grow: (more) => {
        if (this.#live.has(live)) this.#add(live, more)
      },
      arrived: (bytes) => {
        if (!this.#live.has(live)) return
        live.arrived += bytes
        this.#arrived += bytes
      },
      release: () => {
        if (!this.#live.delete(live)) return
        this.#arrived -= live.arrived
        this.#adjust(live.sender, -live.bytes)
      },
    }
  }

  /** What is reserved now. */
  stats(): ReceivingStats {
    return { reservedBytes: this.#total, arrivedBytes: this.#arrived, bodies: this.#live.size }
  }

  #add(live: Live, bytes: number): void {
    const { sender } = live
    const { nodeBytes, addressBytes, tenantBytes } = this.#bounds
    const address = this.#byAddress.get(sender.address) ?? 0
    if (address + bytes > addressBytes) {
      throw this.#refusal(
        'RATE_LIMITED',
        'this client address',
        address,
        addressBytes,
        'ADDRESS_RECEIVING_BYTES',
        (l) => l.sender.address === sender.address,
      )
    }
    if (sender.tenant !== undefined) {
      const tenant = this.#byTenant.get(sender.tenant) ?? 0
      if (tenant + bytes > tenantBytes) {
        throw this.#refusal(
          'RATE_LIMITED',
          'this tenant',
          tenant,
          tenantBytes,
          'TENANT_RECEIVING_BYTES',
          (l) => l.sender.tenant === sender.tenant,
        )
      }
    }
    if (this.#total + bytes > nodeBytes) {
      throw this.#refusal('OVERLOADED', 'this server', this.#total, nodeBytes, 'RECEIVING_BYTES', () => true)
    }
    live.bytes += bytes
    this.#adjust(sender, bytes)
  }

  #adjust(sender: BodySender, bytes: number): void {
    this.#total += bytes
    const address = (this.#byAddress.get(sender.address) ?? 0) + bytes
    if (address > 0) this.#byAddress.set(sender.address, address)
    else this.#byAddress.delete(sender.address)
    if (sender.tenant === undefined) return
    const tenant = (this.#byTenant.get(sender.tenant) ?? 0) + bytes
    if (tenant > 0) this.#byTenant.set(sender.tenant, tenant)
    else this.#byTenant.delete(sender.tenant)
  }

  #refusal(
    code: 'RATE_LIMITED' | 'OVERLOADED',
    who: string,
    held: number,
    bound: number,
    setting: string,
    holds: (live: Live) => boolean,
  ): HeError {
    let oldest = Number.POSITIVE_INFINITY
    for (const live of this.#live) if (live.bytes > 0 && holds(live)) oldest = Math.min(oldest, live.startedAt)
    const freeInMs = Number.isFinite(oldest) ? oldest + this.#bounds.requestTimeoutMs - this.#now() : 1000
    const retryAfterSeconds = Math.max(1, Math.ceil(freeInMs / 1000))
    return new HeError(
      code,
      `${who} is already sending ${mib(held)} of request bodies, and may send ${mib(bound)} at once (${setting}); finish or cancel an upload first, or retry in ${retryAfterSeconds} s`,
      { details: { retryAfterSeconds, receivingBytes: held, limit: bound, setting } },
    )
  }
}

function mib(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(1)} MiB`
}
