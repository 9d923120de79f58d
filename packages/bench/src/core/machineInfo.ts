import { cpus, freemem, loadavg, type as osType, release, totalmem } from 'node:os'

/** The machine a benchmark ran on, recorded next to every result. */
export interface MachineInfo {
  cpuModel: string
  /** Logical CPUs the OS reports. */
  cores: number
  memoryBytes: number
  freeMemoryBytes: number
  os: string
  arch: string
  node: string
}

/** Facts about this machine, right now. */
export function machineInfo(): MachineInfo {
  const list = cpus()
  return {
    cpuModel: list[0]?.model.trim() ?? 'unknown',
    cores: list.length,
    memoryBytes: totalmem(),
    freeMemoryBytes: freemem(),
    os: `${osType()} ${release()}`,
    arch: process.arch,
    node: process.version,
  }
}

/** 1, 5 and 15 minute load averages, rounded to 2 decimals. */
export function loadAverage(): [number, number, number] {
  const [one = 0, five = 0, fifteen = 0] = loadavg().map((value) => Math.round(value * 100) / 100)
  return [one, five, fifteen]
}
