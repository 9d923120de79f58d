import { join } from 'node:path'
import type { EndToEndReport } from './EndToEndReport.ts'
import { renderEndToEndTwins } from './measureEndToEndTwins.ts'

/** The Markdown of the section. */
export function renderEndToEnd(report: EndToEndReport): string {
  const kb = (bytes: number) => (bytes / 1000).toFixed(1)
  const ms = (value: number | null | undefined) => (value === null || value === undefined ? '–' : value.toFixed(1))
  const lines = [
    '## End to end over a shaped link',
    '',
    `\`${report.command}\` — ${report.date}. Link shaped by ${report.shaper}. A real server process`,
    '(`EXECUTOR=pool`, one worker) per config; a client encrypts, sends the query through the link, waits,',
    'decrypts and ranks the top 10, as a user would: node-seal in Node (one thread), and for the rows',
    'marked Chromium he-core in a page of headless Chromium (another origin: CORS). Medians over the',
    `samples; upload and download are bytes ÷ rate (what the shaper enforces), "network" is the measured`,
    'request time minus the server total (both transfers and the round trip). "Exact": every score of',
    'every sample decrypted to the plaintext oracle (checked outside the timing). KB = 1000 bytes. Load',
    `average ${report.loadAverageBefore.join(' / ')} before, ${report.loadAverageAfter.join(' / ')} after.`,
    '',
    '| config | client | link | n [primes, bits] | baby steps | wire (query / response) | encrypt | upload | server total | download | network (measured) | decrypt + rank | **end to end** (min) | model | server CPU | query / response / keys KB | top hit | exact |',
    '| --- | --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |',
  ]
  for (const r of report.rows) {
    const link = `${r.link.name} ${r.link.upMbps}/${r.link.downMbps} Mbit/s, ${r.link.rttMs} ms${r.shapedBy === 'model' ? ' (modelled)' : ''}`
    lines.push(
      `| ${r.title} | ${r.client} | ${link} | ${r.config.polyModulusDegree} [${r.config.coeffModulusBits.join(', ')}] | ${r.config.babySteps} g=${r.config.babyStep} (${r.config.queryCiphertexts} up, keys ${r.config.galoisSteps.join(', ') || 'none'}) | ${r.config.wire} | ${ms(r.encryptMs)} | ${ms(r.uploadMs)} | ${ms(r.serverMs)} | ${ms(r.downloadMs)} | ${ms(r.networkMs)} | ${ms(r.decryptRankMs)} | **${ms(r.endToEndMs)}** (${ms(r.endToEndMinMs)}) | ${ms(r.modelMs)} | ${ms(r.serverCpuMs)} | ${kb(r.queryBytes)} / ${kb(r.responseBytes)} / ${kb(r.keyBytes)} | ${r.topHitFound ? 'yes' : 'NO'} | ${r.exact ? 'yes' : `NO${r.noiseExhausted > 0 ? ` (noise budget exhausted in ${r.noiseExhausted} of ${r.samples})` : ''}`} |`,
    )
  }
  for (const { title, reason } of report.skipped) lines.push('', `Not measured: ${title} — ${reason}.`)
  for (const { title, reason } of report.limits) {
    lines.push('', `Not measured, a limit of the server's defaults: ${title} — ${reason}.`)
  }
  const twins = report.twins.length > 0 ? `\n${renderEndToEndTwins(report.twins)}` : ''
  return `${lines.join('\n')}\n${twins}`
}

/** Where the section is written. */
export function endToEndPaths(outDir: string): { md: string; json: string } {
  return { md: join(outDir, 'search-end-to-end.md'), json: join(outDir, 'search-end-to-end.json') }
}
