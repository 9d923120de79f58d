#!/usr/bin/env node
import { parseArgs } from 'node:util'
import { z } from 'zod'
import { SealboxClient } from '../client/SealboxClient.ts'
import { HeError } from '../errors/HeError.ts'
import { describeParseArgsError } from './describeParseArgsError.ts'
import { sealboxSearch } from './sealboxSearch.ts'

/*
 * `sealbox-search --url https://sealbox.example.com --token … --text "noble gas"`: one
 * private search against a deployment, what an operator runs to try it. The token may come
 * from SEALBOX_TOKEN instead (kept out of `ps`); a private CA is Node's NODE_EXTRA_CA_CERTS.
 * Prints one line per hit: rank, id, similarity, metadata. Exit 1 with the server's coded
 * error on failure, 2 on a bad command line.
 */

const USAGE = `usage: sealbox-search --url <base URL> [--token <token>] (--text "<words>" | --vector <n,n,…>)
                      [--key-set <id>] [--top <k>]
  --url       the server or the nginx in front of it, e.g. https://sealbox.example.com
  --token     a bearer token of TOKENS_FILE (default: $SEALBOX_TOKEN)
  --text      embedded with he-core's embedText (the demo database's embedding)
  --vector    your own query vector, comma-separated, of the server's dimension
  --key-set   the id the search's Galois keys are uploaded as (default sealbox-search)
  --top       hits to print (default 5)
A private CA: NODE_EXTRA_CA_CERTS=/path/ca.crt sealbox-search …   (Node ≥ 22.19)`

const ArgsSchema = z
  .object({
    url: z.url({ protocol: /^https?$/, error: '--url must be an http:// or https:// URL' }),
    token: z.string().min(1).optional(),
    text: z.string().min(1).optional(),
    vector: z
      .string()
      .transform((text) => text.split(',').map((part) => Number(part.trim())))
      .refine((numbers) => numbers.every(Number.isFinite), '--vector must be comma-separated numbers')
      .optional(),
    'key-set': z.string().min(1).default('sealbox-search'),
    top: z.coerce.number().int().min(1).max(1000).default(5),
  })
  .refine(
    (args) => (args.text === undefined) !== (args.vector === undefined),
    'give exactly one of --text and --vector',
  )

async function main(argv: readonly string[]): Promise<number> {
  let raw: ReturnType<typeof parseArgs>['values']
  try {
    raw = parseArgs({
      args: [...argv],
      strict: true,
      options: {
        url: { type: 'string' },
        token: { type: 'string' },
        text: { type: 'string' },
        vector: { type: 'string' },
        'key-set': { type: 'string' },
        top: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values
  } catch (error) {
    process.stderr.write(`sealbox-search: ${describeParseArgsError(error, (name) => name === 'help')}\n${USAGE}\n`)
    return 2
  }
  if (raw.help) {
    process.stdout.write(`${USAGE}\n`)
    return 0
  }
  const parsed = ArgsSchema.safeParse(raw)
  if (!parsed.success) {
    process.stderr.write(`sealbox-search: ${parsed.error.issues.map((issue) => issue.message).join('; ')}\n${USAGE}\n`)
    return 2
  }
  const args = parsed.data
  const token = args.token ?? process.env.SEALBOX_TOKEN
  const client = new SealboxClient({ baseUrl: args.url, ...(token ? { token } : {}) })
  try {
    const result = await sealboxSearch({
      client,
      ...(args.text === undefined ? {} : { text: args.text }),
      ...(args.vector === undefined ? {} : { vector: args.vector }),
      keySet: args['key-set'],
      top: args.top,
    })
    process.stderr.write(
      `sealbox-search: ${result.rows} rows × ${result.dimension}, keys ${result.keyBytes} bytes, noise budget left ${result.minNoiseBudget} bits\n`,
    )
    for (const hit of result.hits) {
      const metadata = hit.metadata === undefined ? '' : `  ${JSON.stringify(hit.metadata)}`
      process.stdout.write(`${hit.rank}\t${String(hit.id)}\t${hit.similarity.toFixed(4)}${metadata}\n`)
    }
    return 0
  } catch (error) {
    const coded = error instanceof HeError ? `${error.code}: ${error.message}` : String(error)
    process.stderr.write(`sealbox-search: ${coded}\n`)
    return 1
  }
}

process.exitCode = await main(process.argv.slice(2))
