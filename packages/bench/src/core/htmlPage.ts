import type { MarkdownColumn } from './markdownTable.ts'

/** Escapes text for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
}

/** `**bold**` and `code` spans of our own Markdown, as HTML (the rest escaped). */
export function inlineMarkdown(text: string): string {
  return escapeHtml(text)
    .replace(/\*\*(.+?)\*\*/g, '<strong>$1</strong>')
    .replace(/`(.+?)`/g, '<code>$1</code>')
}

/** Markdown bullet lines (`- …`) as an HTML list, each with its inline spans; `separator` goes between items. */
export function htmlList(lines: readonly string[], separator = ''): string {
  return `<ul>${lines.map((line) => `<li>${inlineMarkdown(line.replace(/^- /, ''))}</li>`).join(separator)}</ul>`
}

/** A plain HTML table of the columns a Markdown table has (right-aligned ones are numbers); cells are text (escaped). */
export function htmlTable(columns: readonly MarkdownColumn[], rows: readonly (readonly string[])[]): string {
  const num = (c: MarkdownColumn) => (c.align === 'right' ? ' class="num"' : '')
  const head = columns.map((c) => `<th${num(c)}>${escapeHtml(c.heading)}</th>`).join('')
  const body = rows
    .map((row) => `<tr>${columns.map((c, i) => `<td${num(c)}>${escapeHtml(row[i] ?? '')}</td>`).join('')}</tr>`)
    .join('\n')
  return `<table><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`
}

const STYLE = `
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto; max-width: 1200px; padding: 0 1rem; color: #1d1d1f; }
h1 { font-size: 1.6rem; } h2 { margin-top: 2.2rem; border-bottom: 1px solid #ddd; } h3 { margin-top: 1.6rem; }
table { border-collapse: collapse; margin: .6rem 0; font-size: 12.5px; }
th, td { border: 1px solid #ddd; padding: 2px 6px; } th { background: #f4f4f6; position: sticky; top: 0; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
details { margin: .8rem 0; } summary { cursor: pointer; font-weight: 600; }
.note { color: #555; } .bad { color: #b00020; } figure { margin: 1rem 0; overflow-x: auto; }
svg text { font-family: system-ui, sans-serif; }
`

/** A self-contained HTML document (inline CSS, no scripts, no external assets). */
export function htmlPage(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body>
${body}
</body></html>
`
}
