#!/usr/bin/env node
// Renders sealbox-site.conf.template into an nginx `http { }` include.
//
//   node deploy/nginx/render.mjs --listen '443 ssl' \
//     --node 10.0.0.11:8080 --node 10.0.0.12:8080 \
//     --max-body 80m --read-timeout 40s \
//     --server-extra 'ssl_certificate /etc/ssl/sealbox.crt; ssl_certificate_key /etc/ssl/sealbox.key;' \
//     > /etc/nginx/conf.d/sealbox.conf
//
// Plain JavaScript with no dependencies: runs on any Node, on the proxy host too.
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const HERE = dirname(fileURLToPath(import.meta.url))
const USAGE =
  'usage: render.mjs --listen <addr> --node <host:port> [--node …] [--max-body 80m] [--read-timeout 40s] [--server-extra "<lines>"] [--template <file>]'

function fail(message) {
  process.stderr.write(`render.mjs: ${message}\n${USAGE}\n`)
  process.exit(2)
}

const options = { listen: '', nodes: [], maxBody: '80m', readTimeout: '40s', serverExtra: '', template: '' }
const argv = process.argv.slice(2)
for (let i = 0; i < argv.length; i++) {
  const flag = argv[i]
  const value = argv[i + 1]
  if (value === undefined) fail(`${flag} needs a value`)
  i++
  if (flag === '--listen') options.listen = value
  else if (flag === '--node') options.nodes.push(value)
  else if (flag === '--max-body') options.maxBody = value
  else if (flag === '--read-timeout') options.readTimeout = value
  else if (flag === '--server-extra') options.serverExtra = value
  else if (flag === '--template') options.template = value
  else fail(`unknown flag ${flag}`)
}
if (options.listen === '') fail('--listen is required')
if (options.nodes.length === 0) fail('at least one --node is required')
for (const node of options.nodes) {
  if (!/^[A-Za-z0-9.[\]:-]+:\d{1,5}$/.test(node)) fail(`--node ${node}: expected host:port`)
}
if (!/^\d+[kmg]?$/i.test(options.maxBody)) fail(`--max-body ${options.maxBody}: expected a size like 80m`)
if (!/^\d+(ms|s|m)?$/.test(options.readTimeout)) fail(`--read-timeout ${options.readTimeout}: expected a time like 40s`)
if (/[{}]/.test(options.listen + options.serverExtra)) fail('--listen and --server-extra may not contain braces')

const template = readFileSync(options.template || join(HERE, 'sealbox-site.conf.template'), 'utf8')
const values = {
  LISTEN: options.listen,
  NODES: options.nodes.map((node) => `server ${node} max_fails=2 fail_timeout=5s;`).join('\n    '),
  MAX_BODY: options.maxBody,
  READ_TIMEOUT: options.readTimeout,
  SERVER_EXTRA: options.serverExtra,
}
const rendered = template.replace(/\{\{([A-Z_]+)\}\}/g, (match, name) => {
  if (!(name in values)) fail(`the template has an unknown placeholder ${match}`)
  return values[name]
})
process.stdout.write(rendered)
