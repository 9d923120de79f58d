/** Saves bytes or text as a file through the browser's download (never to any server). */
export function downloadFile(name: string, data: Uint8Array | string, type = 'application/octet-stream'): void {
  const part: BlobPart = typeof data === 'string' ? data : new Uint8Array(data)
  const url = URL.createObjectURL(new Blob([part], { type }))
  const link = document.createElement('a')
  link.href = url
  link.download = name
  link.rel = 'noopener'
  document.body.append(link)
  link.click()
  link.remove()
  // Let the download start before the URL goes away.
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}

/** The bytes of a file the user picked. */
export async function readFileBytes(file: File): Promise<Uint8Array> {
  return new Uint8Array(await file.arrayBuffer())
}
