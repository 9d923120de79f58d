import { execFileSync } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { sourceRevision, stampJson, stampMarkdown } from './sourceRevision.ts'
import { writeStampedReport } from './writeReportFiles.ts'

const dirs: string[] = []
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })))
})

describe('sourceRevision', () => {
  it("is this checkout's short HEAD", () => {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim()
    expect(sourceRevision().commit).toBe(head)
  })

  it('puts the revision line under the title, replacing an older one', () => {
    const once = stampMarkdown('# Report\n\nBody 5 ms.\n', { commit: 'abc1234', dirty: false })
    expect(once).toBe('# Report\n\nSource: commit `abc1234` (clean working tree).\n\nBody 5 ms.\n')
    const twice = stampMarkdown(once, { commit: 'def5678', dirty: true })
    expect(twice).toBe('# Report\n\nSource: commit `def5678` (with uncommitted changes).\n\nBody 5 ms.\n')
  })

  it('records the revision first in a JSON object, and leaves other JSON alone', () => {
    const revision = { commit: 'abc1234', dirty: true }
    expect(Object.keys(stampJson({ date: 'd', rows: [] }, revision) as object)).toEqual(['revision', 'date', 'rows'])
    expect(stampJson([1, 2], revision)).toEqual([1, 2])
  })

  it('writeStampedReport writes both files with the same revision', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sealbox-stamp-'))
    dirs.push(dir)
    const markdownPath = join(dir, 'nested', 'r.md')
    const jsonPath = join(dir, 'nested', 'r.json')
    const written = await writeStampedReport({ markdownPath, jsonPath, markdown: '# R\n', json: { value: 1 } })
    const json = JSON.parse(await readFile(jsonPath, 'utf8')) as { revision: { commit: string; dirty: boolean } }
    expect(json.revision).toEqual(sourceRevision())
    expect(await readFile(markdownPath, 'utf8')).toBe(written)
    expect(written).toContain(`Source: commit \`${json.revision.commit}\``)
  })
})
