/** The root of this checkout (the pnpm workspace). */
export const CHECKOUT_ROOT: string
/**
 * Copies the checkout at `from` (default: this one) to `into` as a clone of its working tree
 * with its dependencies installed (node_modules as links); `workspaces` limits the packages.
 * Returns `into`.
 */
export function copyCheckout(options: { into: string; from?: string; workspaces?: readonly string[] }): string
