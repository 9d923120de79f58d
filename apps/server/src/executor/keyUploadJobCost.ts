import {
  type KeyLoadTarget,
  type KeyUploadSize,
  keyUploadCost,
  keyUploadPeakHeapBytes,
  keyUploadSize,
} from '@sealbox/he-core/envelope'
import type { JobCost } from './CostAdmission.ts'

/**
 * A key upload, priced and sized by what checking it inflates and loads — known from
 * its headers and meta before anything is inflated (`keyUploadSize`): keys under the
 * search parameters (`load`) by their full size, however small the compressed upload. An
 * upload whose framing does not read is refused by the worker before it inflates
 * anything: it costs a pass over its bytes. What the worker would refuse before inflating
 * anything is thrown here (`size.refusal`), with no worker time.
 */
export function keyUploadJobCost(
  bytes: Uint8Array,
  options: { load: KeyLoadTarget | undefined; maxPolyModulusDegree: number },
): JobCost {
  let size: KeyUploadSize
  try {
    size = keyUploadSize(bytes, { load: options.load, maxPolyModulusDegree: options.maxPolyModulusDegree })
  } catch {
    size = {
      uploadedBytes: bytes.byteLength,
      inflatedBytes: bytes.byteLength,
      loadedBytes: 0,
      loaded: false,
      galoisElements: 0,
    }
  }
  if (size.refusal) throw size.refusal
  const MiB = 2 ** 20
  const mib = (value: number) => Math.ceil(value / MiB).toLocaleString('en-US')
  const elements = size.galoisElements.toLocaleString('en-US')
  const peakHeapNote = size.loaded
    ? `its keys take ${mib(size.inflatedBytes)} MiB inflated and ${mib(size.loadedBytes)} MiB loaded into SEAL, the full size of the ${elements} Galois elements its meta lists, however small it is compressed: upload fewer Galois elements`
    : `its payloads are inflated to as much as ${mib(size.inflatedBytes)} MiB to check them`
  return { units: keyUploadCost(size), what: 'key upload', peakHeapBytes: keyUploadPeakHeapBytes(size), peakHeapNote }
}
