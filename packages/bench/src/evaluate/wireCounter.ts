/** The body sizes of the last call made through `fetch`. */
export interface WireCounter {
  readonly fetch: typeof fetch
  readonly last: { up: number; down: number }
}

/**
 * A `fetch` for `SealboxClient` that records how many body bytes the last call sent
 * and received, whatever form the client chose for the body (JSON text or binary).
 */
export function wireCounter(): WireCounter {
  const last = { up: 0, down: 0 }
  const counting: typeof fetch = async (input, init) => {
    last.up = bodyBytes(init?.body)
    const response = await fetch(input, init)
    const bytes = new Uint8Array(await response.arrayBuffer())
    last.down = bytes.byteLength
    return new Response(bytes, { status: response.status, statusText: response.statusText, headers: response.headers })
  }
  return { fetch: counting, last }
}

function bodyBytes(body: BodyInit | null | undefined): number {
  if (body === undefined || body === null) return 0
  if (typeof body === 'string') return Buffer.byteLength(body)
  if (body instanceof Blob) return body.size
  if (ArrayBuffer.isView(body)) return body.byteLength
  if (body instanceof ArrayBuffer) return body.byteLength
  throw new TypeError(`cannot count a ${Object.prototype.toString.call(body)} body`)
}
