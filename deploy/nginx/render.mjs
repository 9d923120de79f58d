#!/usr/bin/env node
// Renders sealbox-site.conf.template into an nginx `http { }` include.
//
//   node deploy/nginx/render.mjs --listen '443 ssl' \
//     --node 10.0.0.11:8080 --node 10.0.0.12:8080 \
//     --max-body 80m --read-timeout 40s \
//     --server-extra 'ssl_certificate /etc/ssl/sealbox.crt; ssl_certificate_key /etc/ssl/sealbox.key;' \
//     --hsts --redirect-http 80 \
//     > /etc/nginx/conf.d/sealbox.conf
//
// /metrics answers 404 through this site unless --metrics-allow names who may read it
// (an address or CIDR, repeatable: --metrics-allow 10.0.0.0/8).
//
// Plain JavaScript with no dependencies: runs on any Node, on the proxy host too.
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const HERE = dirname(fileURLToPath(import.meta.url))
const USAGE =
  'usage: render.mjs --listen <addr> --node <host:port> [--node …] [--max-body 80m] [--read-timeout 40s] [--server-extra "<lines>"] [--hsts] [--redirect-http <port>] [--metrics-allow <cidr> …] [--template <file>]'

function fail(message) {
  process.stderr.write(`render.mjs: ${message}\n${USAGE}\n`)
  process.exit(2)
}

const FLAGS = {
  listen: { type: 'string', default: '' },
  node: { type: 'string', multiple: true, default: [] },
  'max-body': { type: 'string', default: '80m' },
  'read-timeout': { type: 'string', default: '40s' },
  'server-extra': { type: 'string', default: '' },
  template: { type: 'string', default: '' },
  hsts: { type: 'boolean', default: false },
  'redirect-http': { type: 'string', default: '' },
  'metrics-allow': { type: 'string', multiple: true, default: [] },
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
  maxBody: flags['max-body'],
  readTimeout: flags['read-timeout'],
  serverExtra: flags['server-extra'],
  template: flags.template,
  hsts: flags.hsts,
  redirectHttp: flags['redirect-http'],
  metricsAllow: flags['metrics-allow'],
}
if (options.listen === '') fail('--listen is required')
if (options.nodes.length === 0) fail('at least one --node is required')
for (const node of options.nodes) {
  if (!/^[A-Za-z0-9.[\]:-]+:\d{1,5}$/.test(node)) fail(`--node ${node}: expected host:port`)
}
if (!/^\d+[kmg]?$/i.test(options.maxBody)) fail(`--max-body ${options.maxBody}: expected a size like 80m`)
if (!/^\d+(ms|s|m)?$/.test(options.readTimeout)) fail(`--read-timeout ${options.readTimeout}: expected a time like 40s`)
if (/[{}]/.test(options.listen + options.serverExtra)) fail('--listen and --server-extra may not contain braces')
if (options.redirectHttp !== '' && !/^[A-Za-z0-9.[\]:-]*\d{1,5}$/.test(options.redirectHttp)) {
  fail(`--redirect-http ${options.redirectHttp}: expected a port like 80`)
}
for (const source of options.metricsAllow) {
  if (!/^[0-9A-Fa-f.:]+(\/\d{1,3})?$/.test(source)) fail(`--metrics-allow ${source}: expected an address or CIDR`)
}

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
    : `server {\n    listen ${options.redirectHttp};\n    return 301 https://$host$request_uri;\n}\n`

const template = readFileSync(options.template || join(HERE, 'sealbox-site.conf.template'), 'utf8')
const values = {
  LISTEN: options.listen,
  NODES: options.nodes.map((node) => `server ${node} max_fails=2 fail_timeout=5s;`).join('\n    '),
  MAX_BODY: options.maxBody,
  READ_TIMEOUT: options.readTimeout,
  SERVER_EXTRA: options.serverExtra,
  HEADERS: headers.join('\n        '),
  METRICS: metrics,
  HTTP_REDIRECT: httpRedirect,
}
const rendered = template.replace(/\{\{([A-Z_]+)\}\}/g, (match, name) => {
  if (!(name in values)) fail(`the template has an unknown placeholder ${match}`)
  return values[name]
})
process.stdout.write(rendered)
