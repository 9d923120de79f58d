import {
  describeParams,
  HeError,
  MAX_COEFF_BITS,
  type ParamsFacts,
  type ParamsInput,
  parseParams,
  type ResolvedParams,
  SCHEMES,
} from '@sealbox/he-core'
import { z } from 'zod'

/** Security levels the sandbox offers (`none` is for benchmarks only). */
export const SANDBOX_SECURITY_LEVELS = ['tc128', 'tc192', 'tc256'] as const

/**
 * The Parameters form as typed: text fields stay text so a half-typed value
 * ("36, 3") is kept and explained rather than lost.
 */
export const ParamsDraft = z.object({
  scheme: z.enum(SCHEMES),
  security: z.enum(SANDBOX_SECURITY_LEVELS),
  polyModulusDegree: z.number().int(),
  coeffMode: z.enum(['default', 'custom']),
  /** Comma-separated prime bit sizes, special prime last (custom mode). */
  coeffBits: z.string(),
  /** BFV/BGV: t as a batching prime of `plainBits` bits, or exactly `plainValue`. */
  plainMode: z.enum(['bits', 'value']).default('bits'),
  /** BFV/BGV: bits of the batching prime t. */
  plainBits: z.string(),
  /** BFV/BGV: an explicit prime t ≡ 1 (mod 2n), e.g. 65537. */
  plainValue: z.string().default('65537'),
  /** CKKS: log2 of the scale; empty means the preset's. */
  scaleBits: z.string(),
})
export type ParamsDraft = z.infer<typeof ParamsDraft>

export const DEFAULT_PARAMS_DRAFT: ParamsDraft = {
  scheme: 'bfv',
  security: 'tc128',
  polyModulusDegree: 4096,
  coeffMode: 'default',
  coeffBits: '36, 36, 37',
  plainMode: 'bits',
  plainBits: '20',
  plainValue: '65537',
  scaleBits: '',
}

/** The outcome of validating a draft: resolved parameters and their facts, or the reason they are invalid. */
export type DraftCheck =
  | { ok: true; input: ParamsInput; resolved: ResolvedParams; facts: ParamsFacts }
  | { ok: false; field: string; message: string }

function parseInteger(text: string, field: string): number | { field: string; message: string } {
  const trimmed = text.trim()
  if (!/^-?\d+$/.test(trimmed)) return { field, message: `${field}: "${text}" is not a whole number` }
  return Number(trimmed)
}

/** The ParamsInput a draft describes, or the first field that cannot be read. */
export function draftToInput(draft: ParamsDraft): ParamsInput | { field: string; message: string } {
  const input: ParamsInput = {
    scheme: draft.scheme,
    polyModulusDegree: draft.polyModulusDegree,
    security: draft.security,
  }
  if (draft.coeffMode === 'custom') {
    // Commas, spaces or both, like the other list fields ("40 20 40", "40, 20, 40").
    const parts = draft.coeffBits.split(/[\s,;]+/).filter((part) => part !== '')
    if (parts.length === 0) {
      return { field: 'coeffModulus', message: 'coeffModulus: enter the prime bit sizes, e.g. 36, 36, 37' }
    }
    const bits: number[] = []
    for (const [index, part] of parts.entries()) {
      const value = parseInteger(part, `coeffModulus[${index}]`)
      if (typeof value !== 'number') return value
      bits.push(value)
    }
    input.coeffModulus = bits
  }
  if (draft.scheme === 'ckks') {
    if (draft.scaleBits.trim() !== '') {
      const scale = Number(draft.scaleBits.trim())
      if (!Number.isFinite(scale) || scale <= 0) {
        return { field: 'scaleBits', message: `scaleBits: "${draft.scaleBits}" is not a positive number` }
      }
      input.scaleBits = scale
    } else if (Array.isArray(input.coeffModulus) && input.coeffModulus.length >= 3) {
      // No scale typed, own primes: the scale follows the primes it is rescaled by (the
      // middle ones), as SEAL's examples pick it — not a preset's scale for other primes.
      const middle = input.coeffModulus.slice(1, -1)
      input.scaleBits = Math.min(...middle)
    }
  } else if (draft.plainMode === 'value') {
    const value = parseInteger(draft.plainValue, 'plainModulus.value')
    if (typeof value !== 'number') return value
    input.plainModulus = { value }
  } else {
    const bits = parseInteger(draft.plainBits, 'plainModulus.batchingBits')
    if (typeof bits !== 'number') return bits
    input.plainModulus = { batchingBits: bits }
  }
  return input
}

/**
 * CKKS: a scale above the primes it is rescaled by (the middle primes) grows with every
 * multiply-and-rescale until it no longer fits — SEAL accepts the parameters and a later
 * step fails. Said before anything is made, in words.
 */
function ckksScaleProblem(params: ResolvedParams): string | undefined {
  const scale = params.scaleBits
  const bits = params.coeffModulusBits
  if (params.scheme !== 'ckks' || scale === undefined || bits.length < 3) return undefined
  const middle = Math.min(...bits.slice(1, -1))
  if (scale <= middle) return undefined
  return `scaleBits: the scale 2^${scale} is larger than the ${middle}-bit primes a rescale divides by, so it grows with every multiplication until it overflows; use a scale of at most ${middle} bits, or primes of at least ${scale} bits between the first and the last`
}

/**
 * Validates a draft with he-core's own rules (pure, no SEAL): safe on every keystroke.
 * The message names the field and the limit, as `parseParams` words it.
 */
export function checkDraft(draft: ParamsDraft): DraftCheck {
  const input = draftToInput(draft)
  if ('message' in input) return { ok: false, ...input }
  try {
    const resolved = parseParams(input)
    const scaleProblem = ckksScaleProblem(resolved)
    if (scaleProblem) return { ok: false, field: 'scaleBits', message: scaleProblem }
    return { ok: true, input, resolved, facts: describeParams(resolved) }
  } catch (error) {
    if (error instanceof HeError) {
      const field = typeof error.details?.field === 'string' ? error.details.field : 'params'
      return { ok: false, field, message: error.message }
    }
    throw error
  }
}

/** One broken rule of a draft: the field it is about and he-core's message. */
export interface DraftProblem {
  field: string
  message: string
}

/** The draft with one form control set aside (back to its default), to look for the next broken rule. */
function setAside(draft: ParamsDraft, control: keyof ParamsDraft | 'params'): ParamsDraft | undefined {
  switch (control) {
    case 'coeffBits':
      return draft.coeffMode === 'custom' ? { ...draft, coeffMode: 'default' } : undefined
    case 'plainBits':
      if (draft.plainMode === 'value') return { ...draft, plainMode: 'bits', plainBits: DEFAULT_PARAMS_DRAFT.plainBits }
      return draft.plainBits === DEFAULT_PARAMS_DRAFT.plainBits
        ? undefined
        : { ...draft, plainBits: DEFAULT_PARAMS_DRAFT.plainBits }
    case 'scaleBits':
      return draft.scaleBits === '' ? undefined : { ...draft, scaleBits: '' }
    default:
      return undefined
  }
}

/**
 * Every broken rule of a draft at once, not only the first: after each problem its
 * field is set aside (its default) and the rest checked again, so a bad coefficient
 * modulus does not hide a bad plain modulus. Empty when the draft is valid.
 */
export function draftProblems(draft: ParamsDraft): DraftProblem[] {
  const problems: DraftProblem[] = []
  const seen = new Set<string>()
  let current: ParamsDraft | undefined = draft
  while (current) {
    const check = checkDraft(current)
    if (check.ok) break
    const control = draftFieldOf(check.field)
    if (seen.has(control)) break
    seen.add(control)
    problems.push({ field: check.field, message: check.message })
    if (/^coeffModulus\[\d+\]$/.test(check.field)) problems.push(...totalBitsProblem(current))
    current = setAside(current, control)
  }
  return problems
}

/**
 * A prime out of range stops he-core before it adds the primes up: say the total too
 * when it is over the secure budget ("61 61": each prime too big, and 122 > 109 bits).
 */
function totalBitsProblem(draft: ParamsDraft): DraftProblem[] {
  const input = draftToInput(draft)
  if ('message' in input || !Array.isArray(input.coeffModulus) || input.security === 'none') return []
  const total = input.coeffModulus.reduce((sum, bits) => sum + bits, 0)
  const max = MAX_COEFF_BITS[input.security ?? 'tc128']?.[input.polyModulusDegree]
  if (max === undefined || total <= max) return []
  return [
    {
      field: 'coeffModulus',
      message: `coeffModulus: coeff modulus totals ${total} bits; n=${input.polyModulusDegree} at ${input.security ?? 'tc128'} allows at most ${max}`,
    },
  ]
}

/** The field a validation message is about, mapped to the form control that should show it. */
export function draftFieldOf(field: string): keyof ParamsDraft | 'params' {
  if (field.startsWith('coeffModulus')) return 'coeffBits'
  if (field.startsWith('plainModulus')) return 'plainBits'
  if (field === 'scaleBits') return 'scaleBits'
  if (field === 'polyModulusDegree') return 'polyModulusDegree'
  if (field === 'security') return 'security'
  if (field === 'scheme') return 'scheme'
  return 'params'
}

/** The form state that describes `input` (e.g. to show an example's or an imported workspace's parameters). */
export function draftOf(input: ParamsInput): ParamsDraft {
  const resolved = parseParams(input)
  const custom = Array.isArray(input.coeffModulus)
  const plain = input.plainModulus
  return {
    scheme: input.scheme,
    security: input.security === 'tc192' || input.security === 'tc256' ? input.security : 'tc128',
    polyModulusDegree: input.polyModulusDegree,
    coeffMode: custom ? 'custom' : 'default',
    coeffBits: resolved.coeffModulusBits.join(', '),
    plainMode: plain && 'value' in plain ? 'value' : 'bits',
    plainBits: plain && 'batchingBits' in plain ? String(plain.batchingBits) : '20',
    plainValue: plain && 'value' in plain ? String(plain.value) : '65537',
    scaleBits: input.scaleBits === undefined ? '' : String(input.scaleBits),
  }
}
