import { HeError } from '@sealbox/he-core'
import { TENANT_ID } from '../config/ServerConfig.ts'

/** Throws unless `name` is safe as a path segment (tenant ids and key-set names). */
export function assertStoreName(name: string, what: string): void {
  if (!TENANT_ID.test(name)) {
    throw new HeError(
      'INVALID_INPUT',
      `${what} "${name.slice(0, 80)}" is not valid: use 1–64 letters, digits, _ . -, starting with a letter or digit`,
    )
  }
}
