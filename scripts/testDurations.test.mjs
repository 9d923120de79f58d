import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { longestFirst } from './LongestFirstSequencer.mjs'
import { durationsOf, readDurations } from './testDurations.mjs'

const file = (moduleId, groupOrder = 0) => ({ moduleId, project: { config: { sequence: { groupOrder } } } })

describe('the suite order', () => {
  it('runs group by group, the longest first across projects, unknown files before known ones', () => {
    const files = [
      file('/r/apps/web/e2e/a.e2e.test.ts'),
      file('/r/packages/he-core/test/pack.e2e.test.ts', 1),
      file('/r/apps/server/test/b.e2e.test.ts'),
      file('/r/packages/he-core/src/new.test.ts'),
      file('/r/packages/he-ring/src/c.test.ts'),
    ]
    const seconds = {
      'apps/web/e2e/a.e2e.test.ts': 40,
      'apps/server/test/b.e2e.test.ts': 106,
      'packages/he-ring/src/c.test.ts': 0.1,
      'packages/he-core/test/pack.e2e.test.ts': 500,
    }
    expect(longestFirst(files, seconds, '/r').map((f) => f.moduleId)).toEqual([
      '/r/packages/he-core/src/new.test.ts',
      '/r/apps/server/test/b.e2e.test.ts',
      '/r/apps/web/e2e/a.e2e.test.ts',
      '/r/packages/he-ring/src/c.test.ts',
      '/r/packages/he-core/test/pack.e2e.test.ts',
    ])
  })

  it("reads whole-file durations from vitest's results cache, and an unreadable file as none", () => {
    const cache = {
      version: '4',
      results: [
        ['server:b.test.ts', { duration: 2460, failed: false }],
        ['he-core:a.test.ts', { duration: 49, failed: false }],
        ['server-serial:b.test.ts', { duration: 1000, failed: false }],
        ['web:c.test.ts', { failed: true }],
      ],
    }
    expect(durationsOf(cache)).toEqual({ 'a.test.ts': 0, 'b.test.ts': 2.5 })
    expect(Object.keys(durationsOf(cache))).toEqual(['a.test.ts', 'b.test.ts'])
    const dir = mkdtempSync(join(tmpdir(), 'sealbox-durations-'))
    try {
      const broken = join(dir, 'broken.json')
      writeFileSync(broken, '{ not json')
      expect(readDurations(broken)).toEqual({})
      expect(readDurations(join(dir, 'missing.json'))).toEqual({})
      const good = join(dir, 'good.json')
      writeFileSync(good, JSON.stringify({ note: '', seconds: { 'a.test.ts': 2 } }))
      expect(readDurations(good)).toEqual({ 'a.test.ts': 2 })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
