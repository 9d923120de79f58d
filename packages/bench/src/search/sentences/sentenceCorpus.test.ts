import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const SCRIPT = fileURLToPath(new URL('./sentenceCorpus.py', import.meta.url))
const HERE = fileURLToPath(new URL('.', import.meta.url))
const hasPython = spawnSync('python3', ['--version']).status === 0

/** sentenceCorpus.py's split of `text` (standard-library Python, run as the bench runs it). */
function split(text: string): string[] {
  const result = spawnSync('python3', [SCRIPT], { input: text, encoding: 'utf8' })
  expect(result.stderr).toBe('')
  expect(result.status).toBe(0)
  return JSON.parse(result.stdout) as string[]
}

describe.skipIf(!hasPython)('sentenceCorpus.py split_sentences', () => {
  it('splits at sentence ends before a capital or an opening quote, keeping closing quotes', () => {
    expect(
      split(
        'In the beginning God created the heavens and the earth. God said, "Let there be light," and there was light. He said, "Who told you that you were naked?" "Have you eaten from the tree?"',
      ),
    ).toEqual([
      'In the beginning God created the heavens and the earth.',
      'God said, "Let there be light," and there was light.',
      'He said, "Who told you that you were naked?"',
      '"Have you eaten from the tree?"',
    ])
  })

  it('collapses whitespace, turns the backtick apostrophe into one, and does not split before a lower-case word', () => {
    expect(split('God`s Spirit was\n  hovering over the waters. Is it so? yes it is, said the man.')).toEqual([
      "God's Spirit was hovering over the waters.",
      'Is it so? yes it is, said the man.',
    ])
  })

  it('cuts a sentence after each semicolon, and keeps a clause of fewer than 4 words out', () => {
    expect(
      split(
        'For Yahweh has comforted Zion; he has comforted all her waste places; joy shall be found; amen indeed. Next one here.',
      ),
    ).toEqual(['For Yahweh has comforted Zion;', 'he has comforted all her waste places;', 'joy shall be found;'])
  })

  it('drops sentences under 4 or over 64 words and keeps the first copy of each (case-insensitive)', () => {
    const long = `Word ${Array.from({ length: 64 }, () => 'word').join(' ')}.`
    expect(
      split(
        `Amen. Jesus wept bitterly there. ${long} The Lord is my shepherd. THE LORD IS MY SHEPHERD. Jesus wept bitterly there.`,
      ),
    ).toEqual(['Jesus wept bitterly there.', 'The Lord is my shepherd.'])
  })
})

/** `sentenceCorpus.<expression>` evaluated by python3 in this folder, as JSON. */
function python(expression: string): { status: number | null; stdout: string; stderr: string } {
  return spawnSync('python3', ['-c', `import json, sentenceCorpus; print(json.dumps(sentenceCorpus.${expression}))`], {
    cwd: HERE,
    encoding: 'utf8',
  })
}

describe.skipIf(!hasPython)('sentenceCorpus.py hold_out', () => {
  const sentences = Array.from({ length: 50 }, (_, i) => `Sentence number ${i} of the test.`)

  it('holds out a fixed set chosen by content: disjoint, complete, both in corpus order', () => {
    const run = () => python(`hold_out(${JSON.stringify(sentences)}, 7)`)
    const first = run()
    expect(first.stderr).toBe('')
    const [rows, held] = JSON.parse(first.stdout) as [number[], number[]]
    expect(held).toHaveLength(7)
    expect(rows).toHaveLength(43)
    expect([...rows, ...held].sort((a, b) => a - b)).toEqual(sentences.map((_, i) => i))
    expect(rows).toEqual([...rows].sort((a, b) => a - b))
    expect(held).toEqual([...held].sort((a, b) => a - b))
    expect(JSON.parse(run().stdout)).toEqual([rows, held])
    // Content-defined: the same sentences reversed hold out the same sentences.
    const reversed = python(`hold_out(${JSON.stringify([...sentences].reverse())}, 7)`)
    const heldReversed = (JSON.parse(reversed.stdout) as [number[], number[]])[1].map((i) => 49 - i)
    expect(heldReversed.sort((a, b) => a - b)).toEqual(held)
  })

  it('refuses a query count that leaves no database', () => {
    const result = python(`hold_out(${JSON.stringify(sentences.slice(0, 3))}, 3)`)
    expect(result.status).not.toBe(0)
    expect(result.stderr).toContain('queries: from 0 to 2, not 3')
  })
})
