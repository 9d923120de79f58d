import { describe, expect, it } from 'vitest'
import { encodeEnvelope } from '../envelope/encodeEnvelope.ts'
import type { ParamsInput } from '../params/ParamsSpec.ts'
import type { ProgramInput } from '../program/ProgramSpec.ts'
import type { StepReport } from '../program/StepReport.ts'
import { fakeSealPayload, heErrorOf } from '../testing/forgedEnvelopes.ts'
import { EVALUATE_MAX_HEADER_BYTES, EVALUATE_MAX_INPUTS } from './contract/evaluateContract.ts'
import { writeEnvelopeMessage } from './envelopeMessage.ts'
import {
  decodeEvaluateReply,
  decodeEvaluateRequest,
  encodeEvaluateReply,
  encodeEvaluateRequest,
} from './evaluateRequestBody.ts'

const FP = '00112233445566778899aabbccddeeff'
const KS = 'fedcba98765432100123456789abcdef'
const ciphertext = (fill: number, bodyBytes = 40) =>
  encodeEnvelope({
    kind: 'ciphertext',
    fingerprint: FP,
    keySetId: KS,
    payload: fakeSealPayload(bodyBytes, 'none', fill),
  })

const PARAMS: ParamsInput = { scheme: 'bfv', polyModulusDegree: 4096 }
const PROGRAM: ProgramInput = {
  version: 1,
  inputs: [
    { name: 'x', kind: 'ciphertext' },
    { name: 'y', kind: 'ciphertext' },
  ],
  steps: [{ op: 'add', a: 'x', b: 'y', out: 'z' }],
  outputs: ['z'],
}
const request = () => ({ params: PARAMS, program: PROGRAM, inputs: { x: ciphertext(1), y: ciphertext(2, 300) } })

/** The prefix's uint32 header length, rewritten in place. */
function setHeaderLength(body: Uint8Array, length: number): Uint8Array {
  new DataView(body.buffer, body.byteOffset, body.byteLength).setUint32(8, length, true)
  return body
}

describe('the evaluate request body', () => {
  it('round-trips params, program, key set and every input envelope byte for byte', () => {
    const sent = { ...request(), keySet: 'mine' }
    const body = encodeEvaluateRequest(sent)
    const decoded = decodeEvaluateRequest(body)
    expect(decoded.params).toEqual(PARAMS)
    expect(decoded.program).toEqual(PROGRAM)
    expect(decoded.keySet).toBe('mine')
    expect(Object.keys(decoded.inputs)).toEqual(['x', 'y'])
    expect(decoded.inputs.x).toEqual(sent.inputs.x)
    expect(decoded.inputs.y).toEqual(sent.inputs.y)
    // Binary, not base64: the envelopes plus a small header.
    const envelopeBytes = sent.inputs.x.length + sent.inputs.y.length
    expect(body.length - envelopeBytes).toBeLessThan(400)
    // Decoded envelopes are views into the body, not copies.
    expect(decoded.inputs.x?.buffer).toBe(body.buffer)
  })

  it('refuses JSON (the old form) with a hint, a wrong magic, a version it does not know', () => {
    const json = new TextEncoder().encode(JSON.stringify({ params: PARAMS, program: PROGRAM, inputs: {} }))
    const refused = heErrorOf(() => decodeEvaluateRequest(json))
    expect(refused.code).toBe('INVALID_INPUT')
    expect(refused.message).toMatch(/looks like JSON.*binary/)
    expect(heErrorOf(() => decodeEvaluateRequest(new Uint8Array([1, 2, 3]))).code).toBe('INVALID_INPUT')
    const body = encodeEvaluateRequest(request())
    body[4] = 2
    expect(heErrorOf(() => decodeEvaluateRequest(body)).message).toMatch(/format version 2/)
    // A reply is not a request.
    const reply = encodeEvaluateReply({ outputs: { z: ciphertext(3) }, steps: [] })
    expect(heErrorOf(() => decodeEvaluateRequest(reply)).message).toMatch(/magic "SBXE"/)
  })

  it('refuses lengths that claim more than the body holds, or gigabytes, before allocating', () => {
    const body = encodeEvaluateRequest(request())
    for (const cut of [0, 5, 11, 40, body.length - 1]) {
      const error = heErrorOf(() => decodeEvaluateRequest(body.subarray(0, cut)))
      expect(['INVALID_INPUT', 'INVALID_ENVELOPE']).toContain(error.code)
    }
    const huge = heErrorOf(() => decodeEvaluateRequest(setHeaderLength(body.slice(), 0xffff_ffff)))
    expect(huge.code).toBe('LIMIT_EXCEEDED')
    expect(huge.details).toMatchObject({ limit: EVALUATE_MAX_HEADER_BYTES, found: 0xffff_ffff })
    const past = heErrorOf(() => decodeEvaluateRequest(setHeaderLength(body.slice(), 1000)))
    expect(past.message).toMatch(/truncated/)
    // An envelope whose payload length claims 2^40 bytes: refused from its frame alone.
    const forged = body.slice()
    const headerEnd = 12 + new DataView(forged.buffer).getUint32(8, true)
    new DataView(forged.buffer).setBigUint64(headerEnd + 40, 2n ** 40n, true)
    const claimed = heErrorOf(() => decodeEvaluateRequest(forged))
    expect(claimed.code).toBe('INVALID_ENVELOPE')
    expect(claimed.message).toMatch(/envelope 0 is truncated/)
  })

  it('refuses a header that is not JSON, names that do not match the envelopes, too many envelopes', () => {
    const body = encodeEvaluateRequest(request())
    const notJson = body.slice()
    notJson[12] = 0xff
    expect(heErrorOf(() => decodeEvaluateRequest(notJson)).message).toMatch(/not UTF-8 JSON/)

    const one = encodeEvaluateRequest({ ...request(), inputs: { x: ciphertext(1) } })
    const extra = new Uint8Array([...one, ...ciphertext(9)])
    expect(heErrorOf(() => decodeEvaluateRequest(extra)).message).toMatch(/names 1 envelopes \(x\), the body holds 2/)

    const many = Object.fromEntries(
      Array.from({ length: EVALUATE_MAX_INPUTS + 1 }, (_, i) => [`x${i}`, ciphertext(i % 256)]),
    )
    const tooMany = heErrorOf(() => encodeEvaluateRequest({ ...request(), inputs: many }))
    expect(tooMany.code).toBe('INVALID_INPUT')
    expect(tooMany.message).toMatch(/inputs: at most 64 inputs/)
    const framed = new Uint8Array([
      ...one,
      ...Array.from({ length: EVALUATE_MAX_INPUTS }, () => [...ciphertext(7)]).flat(),
    ])
    expect(heErrorOf(() => decodeEvaluateRequest(framed)).code).toBe('LIMIT_EXCEEDED')
  })

  it('checks the header: objects for params and program, names, key-set ids', () => {
    const bad = [
      { ...request(), params: 'bfv' },
      { ...request(), program: [] },
      { ...request(), keySet: '../etc' },
      { ...request(), inputs: { 'no spaces': ciphertext(1) } },
    ]
    for (const value of bad) {
      const error = heErrorOf(() => encodeEvaluateRequest(value as never))
      expect(error.code).toBe('INVALID_INPUT')
      expect(error.message).toMatch(/^evaluate request header: (params|program|keySet|inputs\.0)/)
    }
  })
})

describe('the evaluate reply body', () => {
  const step: StepReport = { index: 0, op: 'add', out: 'z', kind: 'ciphertext', timeMs: 0.5, level: 2, size: 2 }

  it('round-trips the outputs and the typed step reports (absent fields stay absent)', () => {
    const z = ciphertext(5, 120)
    const decoded = decodeEvaluateReply(
      encodeEvaluateReply({ outputs: { z }, steps: [{ ...step, noiseBudget: undefined }] }),
    )
    expect(decoded.outputs.z).toEqual(z)
    expect(decoded.steps).toEqual([step])
    expect('noiseBudget' in (decoded.steps[0] ?? {})).toBe(false)
  })

  it('refuses a step report outside the contract', () => {
    const forged = writeEnvelopeMessage(
      'SBXR',
      { outputs: ['z'], steps: [{ ...step, op: 'nop' }] },
      [ciphertext(5)],
      EVALUATE_MAX_HEADER_BYTES,
    )
    const error = heErrorOf(() => decodeEvaluateReply(forged))
    expect(error.code).toBe('INVALID_INPUT')
    expect(error.message).toMatch(/^evaluate reply header: steps\.0\.op/)
  })
})
