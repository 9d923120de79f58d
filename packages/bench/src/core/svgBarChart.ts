import { escapeHtml } from './htmlPage.ts'

/** One bar per category; `undefined` leaves a gap (engine skipped, row absent). */
export interface BarSeries {
  name: string
  color: string
  values: ReadonlyArray<number | undefined>
}

export interface BarChartOptions {
  title: string
  /** One band per category (e.g. an operation), top to bottom. */
  categories: readonly string[]
  series: readonly BarSeries[]
  scale: 'log' | 'linear'
  /** Axis caption, e.g. `µs per call (log scale)`. */
  axisLabel: string
  format: (value: number) => string
  /** A dashed vertical line, e.g. 1× on a ratio chart. */
  reference?: { value: number; label: string }
  width?: number
}

const BAR = 7
const BAND_GAP = 8
const LABEL_WIDTH = 230
const TOP = 56
const LEGEND_ROW = 18

function niceLinearMax(max: number): number {
  const power = 10 ** Math.floor(Math.log10(max))
  for (const step of [1, 2, 2.5, 5, 10]) if (step * power >= max) return step * power
  return 10 * power
}

/**
 * A horizontal grouped bar chart as a standalone `<svg>` string: categories down the
 * side, one bar per series in each band, log or linear value axis with grid lines,
 * values printed at the bar ends, a legend on top. No scripts, no external fonts.
 */
export function svgBarChart(options: BarChartOptions): string {
  const width = options.width ?? 1100
  const values = options.series.flatMap((s) => s.values.filter((v): v is number => v !== undefined && v > 0))
  if (options.reference) values.push(options.reference.value)
  if (values.length === 0) return `<p class="note">${escapeHtml(options.title)}: no data</p>`
  const plotLeft = LABEL_WIDTH
  const plotRight = width - 70
  const legendRows = Math.ceil(options.series.length / 5)
  // Room above the plot for the reference line's label.
  const top = TOP + (legendRows - 1) * LEGEND_ROW + (options.reference ? 14 : 0)
  const band = options.series.length * BAR + BAND_GAP
  const height = top + options.categories.length * band + 40

  const log = options.scale === 'log'
  const lo = log ? 10 ** Math.floor(Math.log10(Math.min(...values))) : 0
  const hi = log ? 10 ** Math.ceil(Math.log10(Math.max(...values)) + 1e-9) : niceLinearMax(Math.max(...values))
  const x = (v: number) => {
    const t = log ? (Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo) || 1) : v / (hi || 1)
    return plotLeft + Math.max(0, Math.min(1, t)) * (plotRight - plotLeft)
  }
  const ticks: number[] = []
  if (log) for (let p = Math.log10(lo); p <= Math.log10(hi) + 1e-9; p++) ticks.push(10 ** p)
  else for (let i = 0; i <= 5; i++) ticks.push((hi * i) / 5)

  const parts: string[] = []
  parts.push(`<text x="0" y="18" font-size="15" font-weight="600">${escapeHtml(options.title)}</text>`)
  options.series.forEach((s, i) => {
    const lx = (i % 5) * 200
    const ly = 38 + Math.floor(i / 5) * LEGEND_ROW
    parts.push(`<rect x="${lx}" y="${ly - 9}" width="12" height="10" fill="${s.color}"/>`)
    parts.push(`<text x="${lx + 16}" y="${ly}" font-size="12">${escapeHtml(s.name)}</text>`)
  })
  const axisY = height - 30
  for (const tick of ticks) {
    const tx = x(tick).toFixed(1)
    parts.push(`<line x1="${tx}" y1="${top - 4}" x2="${tx}" y2="${axisY}" stroke="#e3e3e8"/>`)
    parts.push(
      `<text x="${tx}" y="${axisY + 14}" font-size="11" text-anchor="middle">${escapeHtml(options.format(tick))}</text>`,
    )
  }
  parts.push(
    `<text x="${(plotLeft + plotRight) / 2}" y="${axisY + 28}" font-size="11" text-anchor="middle" fill="#555">${escapeHtml(options.axisLabel)}</text>`,
  )
  options.categories.forEach((category, c) => {
    const y0 = top + c * band
    if (c % 2 === 1) {
      parts.push(`<rect x="0" y="${y0 - BAND_GAP / 2}" width="${plotRight}" height="${band}" fill="#fafafc"/>`)
    }
    const labelY = y0 + (options.series.length * BAR) / 2 + 4
    parts.push(
      `<text x="${plotLeft - 6}" y="${labelY}" font-size="11" text-anchor="end">${escapeHtml(category)}</text>`,
    )
    options.series.forEach((s, i) => {
      const v = s.values[c]
      if (v === undefined || !(v > 0)) return
      const y = y0 + i * BAR
      const w = Math.max(1, x(v) - plotLeft)
      const tip = `${s.name} · ${category}: ${options.format(v)}`
      parts.push(
        `<rect x="${plotLeft}" y="${y}" width="${w.toFixed(1)}" height="${BAR - 1}" fill="${s.color}"><title>${escapeHtml(tip)}</title></rect>`,
      )
      parts.push(
        `<text x="${(plotLeft + w + 3).toFixed(1)}" y="${y + BAR - 1}" font-size="8" fill="#444">${escapeHtml(options.format(v))}</text>`,
      )
    })
  })
  if (options.reference) {
    const rx = x(options.reference.value).toFixed(1)
    parts.push(`<line x1="${rx}" y1="${top - 6}" x2="${rx}" y2="${axisY}" stroke="#b00020" stroke-dasharray="4 3"/>`)
    parts.push(
      `<text x="${rx}" y="${top - 9}" font-size="11" fill="#b00020" text-anchor="middle">${escapeHtml(options.reference.label)}</text>`,
    )
  }
  parts.push(`<line x1="${plotLeft}" y1="${top - 4}" x2="${plotLeft}" y2="${axisY}" stroke="#888"/>`)
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeHtml(options.title)}">${parts.join('')}</svg>`
}
