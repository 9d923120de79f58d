import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { DEPLOY_NGINX_DIR, runCommand } from '@sealbox/testkit'
import { describe, expect, it } from 'vitest'
import { docBlock, substitute } from './deployDocKit.ts'

/*
 * render.mjs --shard-node: what it renders for a sharded database, and the mistakes it
 * refuses before nginx ever sees them. (nginx itself runs the rendered site in
 * shardedSearch.test.ts and shardDrills.test.ts.)
 */

function render(args: readonly string[]) {
  return runCommand(process.execPath, [join(DEPLOY_NGINX_DIR, 'render.mjs'), '--listen', '127.0.0.1:8443', ...args])
}

async function refusal(args: readonly string[]): Promise<string> {
  const error = await render(args).then(
    () => undefined,
    (failure: unknown) => failure,
  )
  expect(error).toBeDefined()
  return String((error as { stderr?: string }).stderr ?? error)
}

describe('render.mjs --shard-node', () => {
  it('renders one upstream per shard, its locations and the shard map', async () => {
    const { stdout } = await render([
      '--shard-node',
      '0=10.0.0.11:8080',
      '--shard-node',
      '1=10.0.0.13:8080',
      '--shard-node',
      '0=10.0.0.12:8080',
    ])
    expect(stdout).toMatch(
      /upstream sealbox_shard_0 \{\n {4}hash \$sealbox_route_key consistent;\n {4}zone sealbox_shard_0 64k;\n {4}server 10\.0\.0\.11:8080 [^\n]*\n {4}server 10\.0\.0\.12:8080 /,
    )
    expect(stdout).toContain('upstream sealbox_shard_1 {')
    expect(stdout).toContain(
      `return 200 '{"shards":[{"index":0,"prefix":"/shards/0"},{"index":1,"prefix":"/shards/1"}]}';`,
    )
    expect(stdout).toContain('location /shards/1/ {')
    expect(stdout).toContain('proxy_pass http://sealbox_shard_1$1$is_args$args;')
    // Key sets, sessions and health go to any node: the whole site's upstream lists all three.
    const site = /upstream sealbox_nodes \{[^}]*\}/.exec(stdout)?.[0] ?? ''
    expect(site.match(/server 10\.0\.0\.1\d:8080/g)).toHaveLength(3)
  })

  it('renders the deploy guide’s own shard command', async () => {
    const readme = await readFile(join(DEPLOY_NGINX_DIR, '..', 'README.md'), 'utf8')
    const command = substitute(docBlock(readme, 'shard-nginx'), [
      ['node deploy/nginx/render.mjs', `"${process.execPath}" "${join(DEPLOY_NGINX_DIR, 'render.mjs')}"`],
      ['> /etc/nginx/conf.d/sealbox.conf', ''],
    ])
    const { stdout } = await runCommand('/bin/bash', ['-euo', 'pipefail', '-c', command])
    expect(stdout).toContain('upstream sealbox_shard_0 {')
    expect(stdout).toContain('upstream sealbox_shard_1 {')
    expect(stdout.match(/server 10\.0\.0\.1[1-4]:8080 max_fails/g)).toHaveLength(8)
    expect(stdout).toContain('"prefix":"/shards/1"')
  })

  it('refuses a missing shard, a malformed entry and --node mixed in', async () => {
    expect(await refusal(['--shard-node', '1=10.0.0.13:8080'])).toContain('shard 0 has no node')
    expect(await refusal(['--shard-node', '10.0.0.13:8080'])).toContain('expected <shard>=<host:port>')
    expect(await refusal(['--shard-node', '0=10.0.0.13:8080', '--node', '10.0.0.14:8080'])).toContain('do not mix')
  })
})
