import { z } from 'zod'
import { parseTokenList } from './tokenRules.ts'

/** Bytes in a MiB. */
export const MiB = 2 ** 20

/** An integer setting in [min, max] (from a string of the environment or a flag, or a number). */
export const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max)
/** A yes/no setting: a boolean, or `true`/`false`, `1`/`0`, `yes`/`no`. */
export const bool = z.union([z.boolean(), z.enum(['true', 'false', '1', '0', 'yes', 'no'])]).transform((v) => {
  if (typeof v === 'boolean') return v
  return v === 'true' || v === '1' || v === 'yes'
})

/** `tenant:token` pairs, comma separated; tenant names lower case, tokens long and random enough to be secrets. */
export const tokenList = z
  .string()
  .transform((text, ctx) => {
    const parsed = parseTokenList(text)
    if (parsed.problem === undefined) return parsed.tokens
    ctx.addIssue({ code: 'custom', message: parsed.problem })
    return z.NEVER
  })
  .default([])

/** Browser origins allowed to call the API cross-origin, comma separated (`https://a.example,http://localhost:5173`). */
export const originList = z
  .string()
  .transform((text, ctx) => {
    const origins: string[] = []
    for (const entry of text.split(',').map((s) => s.trim())) {
      if (entry === '') continue
      let origin: string | undefined
      try {
        const url = new URL(entry)
        if ((url.protocol === 'http:' || url.protocol === 'https:') && url.origin === entry.replace(/\/$/, '')) {
          origin = url.origin
        }
      } catch {
        origin = undefined
      }
      if (origin === undefined) {
        ctx.addIssue({
          code: 'custom',
          message: `expected origins like "https://app.example.com" or "http://localhost:5173" (scheme, host, optional port; no path), got "${entry}"`,
        })
        return z.NEVER
      }
      origins.push(origin)
    }
    return origins
  })
  .default([])
