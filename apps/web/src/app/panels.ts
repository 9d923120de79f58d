/** The sandbox's panels, in workflow order; the id is also the URL hash. */
export const PANELS = [
  { id: 'parameters', title: 'Parameters', blurb: 'Scheme, ring size, moduli' },
  { id: 'keys', title: 'Keys', blurb: 'Secret, public, relin, Galois' },
  { id: 'variables', title: 'Variables', blurb: 'Plaintexts and ciphertexts' },
  { id: 'functions', title: 'Functions', blurb: 'A pipeline of HE steps' },
  { id: 'code', title: 'Code', blurb: 'Export a runnable program' },
  { id: 'server', title: 'Server', blurb: 'Run remotely, private search' },
] as const

export type PanelId = (typeof PANELS)[number]['id']

export function isPanelId(value: string): value is PanelId {
  return PANELS.some((panel) => panel.id === value)
}
