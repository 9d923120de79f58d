import { describe, expect, expectTypeOf, it } from 'vitest'
import {
  answers,
  type JobResult,
  type JobResultOf,
  RESULT_OF_JOB,
  type SearchJob,
  type WorkerJob,
} from './jobMessages.ts'

const search: SearchJob = { type: 'search', queries: [new Uint8Array(1)] }
const searchResult: JobResult = { type: 'searchResult', responses: [], queryMs: [] }

describe('a job and the result it answers with', () => {
  it("types a route's result by the job it sent", () => {
    expectTypeOf<JobResultOf<SearchJob>>().toEqualTypeOf<Extract<JobResult, { type: 'searchResult' }>>()
    expectTypeOf<JobResultOf<Extract<WorkerJob, { type: 'inspectKeys' }>>['type']>().toEqualTypeOf<'keysInspected'>()
  })

  it('accepts only the result type the table names for the job', () => {
    expect(answers(search, searchResult)).toBe(true)
    expect(answers(search, { type: 'faultSurvived' })).toBe(false)
    expect(answers({ type: 'fault', fault: 'crash' }, { type: 'faultSurvived' })).toBe(true)
    // Failure is not an answer: the hub hands it over as the job's error.
    expect(answers(search, { type: 'failed', error: { code: 'INTERNAL', message: 'x' } })).toBe(false)
    // Every result type but `failed` is some job's answer, and no two jobs share one.
    expect(new Set(Object.values(RESULT_OF_JOB)).size).toBe(Object.keys(RESULT_OF_JOB).length)
  })
})
