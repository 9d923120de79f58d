/** The text of .tools/bin/node for `nodeBin`: relative to the wrapper when inside `toolsDir`, else absolute. */
export function nodeShimText(nodeBin: string, toolsDir: string): string
