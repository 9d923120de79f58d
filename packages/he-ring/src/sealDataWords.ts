import { RingError } from './RingError.ts'

/**
 * The residues at the end of an uncompressed SEAL save of a ciphertext or plaintext
 * (`saveToArray(ComprModeType.none)`): SEAL writes its data array last, as a u64 word
 * count followed by the words. The count is checked, so a layout SEAL does not write
 * is refused rather than misread. Returns a view into `saved`.
 */
export function sealDataWords(saved: Uint8Array, words: number): Uint8Array {
  const dataBytes = words * 8
  const countAt = saved.byteLength - dataBytes - 8
  if (countAt < 0)
    throw new RingError('INTERNAL', `a SEAL save of ${saved.byteLength} bytes cannot hold ${words} words`)
  const count = new DataView(saved.buffer, saved.byteOffset + countAt, 8).getBigUint64(0, true)
  if (count !== BigInt(words)) {
    throw new RingError('INTERNAL', `a SEAL save holds ${count} words where ${words} were expected`)
  }
  return saved.subarray(countAt + 8)
}
