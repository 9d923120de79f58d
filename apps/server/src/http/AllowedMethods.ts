import type { FastifyInstance } from 'fastify'

/** Methods a 405 may list; OPTIONS is left out (CORS answers it on every path, when enabled). */
const LISTED = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'])

interface RoutePattern {
  url: string
  pattern: RegExp
  methods: Set<string>
}

/**
 * The methods each registered path answers, so a wrong method on a known path is
 * 405 with `Allow` rather than 404. Fastify's router knows only "no route for this
 * method and path"; this mirrors its patterns (`/keysets/:id`, `/docs/*`) from the
 * `onRoute` hook. Call `track` on the root before any route is registered.
 */
export class AllowedMethods {
  readonly #routes = new Map<string, RoutePattern>()

  /** Records every route registered on `app` and its children from now on. */
  track(app: FastifyInstance): void {
    app.addHook('onRoute', (route) => {
      const methods = (Array.isArray(route.method) ? route.method : [route.method]).filter((m) => LISTED.has(m))
      if (methods.length === 0) return
      const entry = this.#routes.get(route.url) ?? { url: route.url, pattern: patternOf(route.url), methods: new Set() }
      for (const method of methods) entry.methods.add(method)
      this.#routes.set(route.url, entry)
    })
  }

  /** The methods registered for `path` (without its query), sorted; empty when the path is unknown. */
  for(path: string): string[] {
    const methods = new Set<string>()
    for (const route of this.#routes.values()) {
      if (route.pattern.test(path)) for (const method of route.methods) methods.add(method)
    }
    return [...methods].sort()
  }
}

/** find-my-way's syntax as a RegExp: `:name` is one segment, `*` the rest of the path. */
function patternOf(url: string): RegExp {
  const source = url
    .split('/')
    .map((segment) => {
      if (segment === '*') return '.*'
      if (segment.startsWith(':')) return '[^/]+'
      return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    })
    .join('/')
  return new RegExp(`^${source}$`)
}
