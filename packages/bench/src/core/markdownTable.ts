/** Column alignment in a Markdown table. */
export type Align = 'left' | 'right' | 'center'

export interface MarkdownColumn {
  heading: string
  align?: Align
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ')
}

/** A GitHub-flavoured Markdown table (cells escaped; `align` defaults to left). */
export function markdownTable(columns: readonly MarkdownColumn[], rows: readonly (readonly string[])[]): string {
  const rule = (align: Align | undefined) => (align === 'right' ? '---:' : align === 'center' ? ':---:' : '---')
  const line = (cells: readonly string[]) => `| ${cells.map(escapeCell).join(' | ')} |`
  return [
    line(columns.map((c) => c.heading)),
    `|${columns.map((c) => rule(c.align)).join('|')}|`,
    ...rows.map((row) => line(columns.map((_, i) => row[i] ?? ''))),
  ].join('\n')
}
