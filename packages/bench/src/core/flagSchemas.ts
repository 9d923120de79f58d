import { resolve } from 'node:path'
import process from 'node:process'
import { z } from 'zod'

/**
 * A numeric flag (`--name 12`): read from the command line as text, coerced, then checked,
 * so a bad value is an error naming the flag (never NaN). Whole numbers unless `whole: false`.
 */
export function numberFlag(name: string, min: number, max: number, { whole = true } = {}) {
  const number = z.coerce.number({ error: `${name} must be a number` })
  return (whole ? number.int(`${name} must be a whole number`) : number)
    .min(min, `${name} must be at least ${min}`)
    .max(max, `${name} must be at most ${max}`)
}

/**
 * `--out <dir>`, where a program writes its report, as an absolute path. npm and pnpm run a
 * script in the package's folder, so a relative path is taken from the folder the command
 * was typed in (INIT_CWD), as a user means it.
 */
export function outFlag(description: string) {
  return z
    .string()
    .min(1)
    .transform((dir) => resolve(process.env.INIT_CWD ?? process.cwd(), dir))
    .optional()
    .meta({ value: 'dir', description: `${description}; a relative path is from where you ran the command` })
}

/** A comma-separated flag (`--rows a,b`), trimmed, empty parts dropped, at least one item. */
export function listFlag(what: string) {
  return z
    .string()
    .transform((value) =>
      value
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean),
    )
    .refine((items) => items.length > 0, `give at least one ${what}`)
}

/** A comma-separated flag whose items each parse with `item` (a number, an enum value). */
export function listFlagOf<T extends z.ZodType>(what: string, item: T) {
  // Each item reads the strings split above; its own input type is wider.
  return listFlag(what).pipe(z.array(item) as unknown as z.ZodType<Array<z.output<T>>, string[]>)
}
