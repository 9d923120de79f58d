/**
 * A one-line description of anything thrown by node-seal: C++ exceptions arrive as
 * `WebAssembly.Exception` whose `message` is `[cppType, what]`; embind throws real Errors.
 */
export function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`
  const message = (error as { message?: unknown } | null)?.message
  if (Array.isArray(message)) return message.join(': ')
  return String(error)
}
