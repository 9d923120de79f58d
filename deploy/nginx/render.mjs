#!/usr/bin/env node
// Renders sealbox-site.conf.template into an nginx `http { }` include.
//
//   node deploy/nginx/render.mjs --listen '443 ssl' --http2 --server-name sealbox.example.com \
//     --node 10.0.0.11:8080 --node 10.0.0.12:8080 \
//     --max-body 80m --read-timeout 40s \
//     --server-extra 'ssl_certificate /etc/ssl/sealbox.crt; ssl_certificate_key /etc/ssl/sealbox.key;' \
//     --hsts --redirect-http 80 \
//     > /etc/nginx/conf.d/sealbox.conf
//
// A sharded database (nodes started with SEARCH_SHARD=i/S): name each shard's nodes with
// --shard-node i=host:port (repeatable; replicas of a shard repeat its index). /shards/<i>/…
// goes to shard i's nodes (consistent hashing on the key set among its replicas, retries
// to the next replica), GET /api/v1/search/config answers the shard map clients fan out
// by, and the rest (key sets, sessions, health) goes to any node: every shard reads the
// key sets from the one shared PostgreSQL store.
//
//   node deploy/nginx/render.mjs --listen 443 --shard-node 0=10.0.0.11:8080 \
//     --shard-node 0=10.0.0.12:8080 --shard-node 1=10.0.0.13:8080 --shard-node 1=10.0.0.14:8080
//
// nginx answers some requests itself (the shard map; the JSON error when no node answered):
// when the nodes allow pages of other origins (CORS_ORIGINS), give the same origins with
// --cors-origin (repeatable) so those answers carry the CORS headers the nodes send, and a
// page can read them (a shard that is down: the coded error, not a failed fetch).
//
// /metrics answers 404 through this site unless --metrics-allow names who may read it
// (an address or CIDR, repeatable: --metrics-allow 10.0.0.0/8).
//
// --http2 writes what the installed nginx understands: `http2 on;` from nginx 1.25.1,
// `listen … http2` before (Debian 12 ships 1.22). The version comes from `nginx -v` on
// this host, or from --nginx-version when the site is rendered elsewhere.
//
// Plain JavaScript with no dependencies: runs on any Node, on the proxy host too.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const HERE = dirname(fileURLToPath(import.meta.url))
const USAGE =
  'usage: render.mjs --listen <addr> (--node <host:port> [--node …] | --shard-node <i>=<host:port> […]) [--server-name <name>] [--http2] [--nginx-version <x.y.z>] [--max-body 80m] [--read-timeout 40s] [--server-extra "<lines>"] [--hsts] [--redirect-http <port> (needs --server-name)] [--metrics-allow <cidr> …] [--cors-origin <origin> …] [--template <file>]'

/**
 * nginx counts a node down after MAX_FAILS failures within FAIL_TIMEOUT_S seconds, and
 * then skips it for FAIL_TIMEOUT_S seconds, even once it is back. When no node is left,
 * clients are told to come back after that window (plus one second: nginx counts in
 * whole seconds), so a retry finds the nodes tried again.
 */
const MAX_FAILS = 2
const FAIL_TIMEOUT_S = 5
const NO_NODE_RETRY_AFTER_S = FAIL_TIMEOUT_S + 1
/** The first nginx with the `http2` directive (before it, `listen … http2`). */
const HTTP2_DIRECTIVE_SINCE = [1, 25, 1]

function fail(message) {
  process.stderr.write(`render.mjs: ${message}\n${USAGE}\n`)
  process.exit(2)
}

const FLAGS = {
  listen: { type: 'string', default: '' },
  node: { type: 'string', multiple: true, default: [] },
  'shard-node': { type: 'string', multiple: true, default: [] },
  'server-name': { type: 'string', default: '' },
  http2: { type: 'boolean', default: false },
  'nginx-version': { type: 'string', default: '' },
  'max-body': { type: 'string', default: '80m' },
  'read-timeout': { type: 'string', default: '40s' },
  'server-extra': { type: 'string', default: '' },
  template: { type: 'string', default: '' },
  hsts: { type: 'boolean', default: false },
  'redirect-http': { type: 'string', default: '' },
  'metrics-allow': { type: 'string', multiple: true, default: [] },
  'cors-origin': { type: 'string', multiple: true, default: [] },
}
let flags
try {
  ;({ values: flags } = parseArgs({
    args: process.argv.slice(2),
    options: FLAGS,
    strict: true,
    allowPositionals: false,
  }))
} catch (error) {
  // parseArgs quotes what it refused; its codes say which mistake it was.
  const quoted = /'([^']*)'/.exec(error.message)?.[1] ?? ''
  const flag = /--[^\s,]+/.exec(quoted)?.[0] ?? quoted
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') fail(`unknown flag ${flag}`)
  if (error.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE')
    fail(
      FLAGS[flag.slice(2)]?.type === 'boolean'
        ? `${flag} takes no value`
        : `${flag} needs a value (--flag=value for one starting with -)`,
    )
  if (error.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') fail(`unexpected argument "${quoted}"`)
  fail(error.message)
}
const options = {
  listen: flags.listen,
  nodes: flags.node,
  shardNodes: flags['shard-node'],
  serverName: flags['server-name'],
  http2: flags.http2,
  nginxVersion: flags['nginx-version'],
  maxBody: flags['max-body'],
  readTimeout: flags['read-timeout'],
  serverExtra: flags['server-extra'],
  template: flags.template,
  hsts: flags.hsts,
  redirectHttp: flags['redirect-http'],
  metricsAllow: flags['metrics-allow'],
  corsOrigins: flags['cors-origin'],
}
if (options.listen === '') fail('--listen is required')
if (options.nodes.length === 0 && options.shardNodes.length === 0) fail('at least one --node is required')
if (options.nodes.length > 0 && options.shardNodes.length > 0) {
  fail('--node and --shard-node do not mix: a sharded database has every node in a shard')
}
for (const node of options.nodes) {
  if (!/^[A-Za-z0-9.[\]:-]+:\d{1,5}$/.test(node)) fail(`--node ${node}: expected host:port`)
}
/** Shard index → its nodes (replicas), from --shard-node i=host:port. */
const shards = []
for (const entry of options.shardNodes) {
  const match = /^(\d{1,4})=([A-Za-z0-9.[\]:-]+:\d{1,5})$/.exec(entry)
  if (!match) fail(`--shard-node ${entry}: expected <shard>=<host:port>, e.g. 0=10.0.0.11:8080`)
  const index = Number(match[1])
  shards[index] = [...(shards[index] ?? []), match[2]]
}
for (let i = 0; i < shards.length; i++) {
  if (!shards[i]) fail(`--shard-node: shard ${i} has no node (shards are numbered 0 … S−1, like SEARCH_SHARD=i/S)`)
}
if (!/^\d+[kmg]?$/i.test(options.maxBody)) fail(`--max-body ${options.maxBody}: expected a size like 80m`)
if (!/^\d+(ms|s|m)?$/.test(options.readTimeout)) fail(`--read-timeout ${options.readTimeout}: expected a time like 40s`)
if (/[{}]/.test(options.listen + options.serverExtra)) fail('--listen and --server-extra may not contain braces')
if (options.redirectHttp !== '' && !/^[A-Za-z0-9.[\]:-]*\d{1,5}$/.test(options.redirectHttp)) {
  fail(`--redirect-http ${options.redirectHttp}: expected a port like 80`)
}
if (options.serverName !== '' && !/^[A-Za-z0-9*.-]+( [A-Za-z0-9*.-]+)*$/.test(options.serverName)) {
  fail(`--server-name ${options.serverName}: expected host names separated by spaces`)
}
if (options.redirectHttp !== '' && options.serverName === '') {
  // Without a name, Debian's default site (default_server on port 80) answers instead.
  fail("--redirect-http needs --server-name (the name clients use), or Debian's default site answers port 80")
}
if (options.nginxVersion !== '' && !/^\d+\.\d+\.\d+$/.test(options.nginxVersion)) {
  fail(`--nginx-version ${options.nginxVersion}: expected a version like 1.22.1`)
}
for (const source of options.metricsAllow) {
  if (!/^[0-9A-Fa-f.:]+(\/\d{1,3})?$/.test(source)) fail(`--metrics-allow ${source}: expected an address or CIDR`)
}
for (const origin of options.corsOrigins) {
  if (!/^https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?$/.test(origin)) {
    fail(`--cors-origin ${origin}: expected an origin like https://app.example.com (the nodes' CORS_ORIGINS)`)
  }
}

/** The installed nginx's version from `nginx -v` (which prints to stderr), or undefined when there is none here. */
function installedNginxVersion() {
  for (const binary of ['nginx', '/usr/sbin/nginx']) {
    try {
      const out = execFileSync(binary, ['-v'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
      const match = /nginx\/(\d+\.\d+\.\d+)/.exec(out)
      if (match) return match[1]
    } catch (error) {
      const match = /nginx\/(\d+\.\d+\.\d+)/.exec(String(error.stderr ?? ''))
      if (match) return match[1]
    }
  }
  return undefined
}

function versionAtLeast(version, minimum) {
  const parts = version.split('.').map(Number)
  for (let i = 0; i < minimum.length; i++) {
    if ((parts[i] ?? 0) !== minimum[i]) return (parts[i] ?? 0) > minimum[i]
  }
  return true
}

// An nginx of unknown version gets `listen … http2`: every nginx with HTTP/2 accepts it
// (1.25.1 and later with a deprecation warning), while `http2 on;` fails `nginx -t` before 1.25.1.
const nginxVersion = options.http2 ? options.nginxVersion || installedNginxVersion() : undefined
const http2Directive = nginxVersion !== undefined && versionAtLeast(nginxVersion, HTTP2_DIRECTIVE_SINCE)
const listen = options.http2 && !http2Directive ? `${options.listen} http2` : options.listen
const serverName = options.serverName === '' ? '' : `server_name ${options.serverName};`

const headers = ['add_header X-Sealbox-Node $upstream_addr always;']
// HSTS goes with every answer (nginx drops server-level add_header where a location has its own).
if (options.hsts) headers.push('add_header Strict-Transport-Security "max-age=31536000" always;')
const metrics =
  options.metricsAllow.length === 0
    ? 'return 404;'
    : [...options.metricsAllow.map((source) => `allow ${source};`), 'deny all;'].join('\n        ')
const httpRedirect =
  options.redirectHttp === ''
    ? ''
    : `server {\n    listen ${options.redirectHttp};\n    ${serverName}\n    return 301 https://$host$request_uri;\n}\n`

const nodeLine = (node) => `server ${node} max_fails=${MAX_FAILS} fail_timeout=${FAIL_TIMEOUT_S}s;`
const allNodes = options.nodes.length > 0 ? options.nodes : [...new Set(shards.flat())]
// One upstream per shard: its replicas on a consistent-hash ring of the key set, like the whole site's.
const shardUpstreams = shards
  .map(
    (nodes, i) =>
      `upstream sealbox_shard_${i} {\n    hash $sealbox_route_key consistent;\n    zone sealbox_shard_${i} 64k;\n    ${nodes.map(nodeLine).join('\n    ')}\n    keepalive 32;\n}\n`,
  )
  .join('')
const headerLines = headers.join('\n        ')
/*
 * CORS of the shard map, which nginx answers itself: the same headers a node sends for its
 * CORS_ORIGINS (apps/server securityHeadersPlugin; renderShards.test.ts compares the two),
 * with Access-Control-Allow-Origin for the origins given with --cors-origin only.
 */
const CORS_METHODS = 'GET, HEAD, PUT, POST, DELETE'
const CORS_ALLOWED_HEADERS = 'authorization, content-type, x-sealbox-executor, x-sealbox-dropped-bits, if-none-match'
const CORS_EXPOSED_HEADERS =
  'server-timing, retry-after, www-authenticate, x-request-id, etag, x-sealbox-executor, x-sealbox-query-ms, x-sealbox-cost'
const corsMaps =
  options.corsOrigins.length === 0
    ? ''
    : [
        "# The origins of --cors-origin (the nodes' CORS_ORIGINS): the shard map answers them as a node would.",
        'map $http_origin $sealbox_cors_origin {',
        '    default "";',
        ...options.corsOrigins.map((origin) => `    "${origin}" $http_origin;`),
        '}',
        '',
      ].join('\n')
const corsLines = (preflight) =>
  options.corsOrigins.length === 0
    ? []
    : [
        'add_header Access-Control-Allow-Origin $sealbox_cors_origin always;',
        // The rest whatever the origin, as a node sends them (without Allow-Origin a browser refuses).
        'add_header Vary Origin always;',
        `add_header Access-Control-Expose-Headers "${CORS_EXPOSED_HEADERS}" always;`,
        ...(preflight
          ? [
              `add_header Access-Control-Allow-Methods "${CORS_METHODS}" always;`,
              `add_header Access-Control-Allow-Headers "${CORS_ALLOWED_HEADERS}" always;`,
              'add_header Access-Control-Max-Age 600 always;',
            ]
          : []),
      ]
const shardMap = JSON.stringify({ shards: shards.map((_, i) => ({ index: i, prefix: `/shards/${i}` })) })
const shardLocations =
  shards.length === 0
    ? ''
    : [
        `# The shard map: clients read it, then send each query to every shard and merge.`,
        `    location = /api/v1/search/config {`,
        `        default_type application/json;`,
        ...(options.corsOrigins.length === 0
          ? []
          : [
              `        if ($request_method = OPTIONS) {`,
              ...[...headers, ...corsLines(true)].map((line) => `            ${line}`),
              `            return 204;`,
              `        }`,
            ]),
        ...[...headers, ...corsLines(false)].map((line) => `        ${line}`),
        `        return 200 '${shardMap}';`,
        `    }`,
        ...shards.flatMap((_, i) => [
          `    location /shards/${i}/ {`,
          `        proxy_pass http://sealbox_shard_${i}/;`,
          `        ${headerLines}`,
          `    }`,
          `    location ~ ^/shards/${i}(/api/v1/(search|evaluate))$ {`,
          `        client_body_buffer_size 4m;`,
          `        proxy_next_upstream error timeout http_502 http_503 non_idempotent;`,
          `        proxy_pass http://sealbox_shard_${i}$1$is_args$args;`,
          `        ${headerLines}`,
          `    }`,
        ]),
      ].join('\n')

const template = readFileSync(options.template || join(HERE, 'sealbox-site.conf.template'), 'utf8')
const values = {
  LISTEN: listen,
  HTTP2: http2Directive ? 'http2 on;' : '',
  SERVER_NAME: serverName,
  NODES: allNodes.map(nodeLine).join('\n    '),
  SHARD_UPSTREAMS: corsMaps + shardUpstreams,
  OWN_ANSWER_CORS: corsLines(false).join('\n        '),
  SHARD_LOCATIONS: shardLocations,
  RETRY_AFTER: String(NO_NODE_RETRY_AFTER_S),
  MAX_BODY: options.maxBody,
  READ_TIMEOUT: options.readTimeout,
  SERVER_EXTRA: options.serverExtra,
  HEADERS: headers.join('\n        '),
  METRICS: metrics,
  HTTP_REDIRECT: httpRedirect,
}
// A placeholder alone on its line that renders to nothing takes its line with it.
const rendered = template
  .replace(/^[ \t]*\{\{([A-Z0-9_]+)\}\}\n/gm, (line, name) => (values[name] === '' ? '' : line))
  .replace(/\{\{([A-Z0-9_]+)\}\}/g, (match, name) => {
    if (!(name in values)) fail(`the template has an unknown placeholder ${match}`)
    return values[name]
  })
process.stdout.write(rendered)
