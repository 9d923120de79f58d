import { type HeError, searchDatabaseSourceLabel } from '@sealbox/he-core/client'
import { embedText } from '@sealbox/he-core/search'
import { useState } from 'react'
import { useActivity, useSandbox, useServerView } from '../../app/SandboxContext.tsx'
import { runSearch } from '../../sandbox/actions/serverActions.ts'
import type { SearchRun } from '../../sandbox/serverView.ts'
import { ErrorNotice } from '../../ui/ErrorNotice.tsx'
import { FieldError } from '../../ui/FieldError.tsx'
import { formatBytes, formatInteger, formatMs } from '../../ui/format.ts'
import { Segmented } from '../../ui/Segmented.tsx'
import type { ExecutorChoice, SearchFacts } from '../../worker/serverProtocol.ts'
import { MetadataCells } from './MetadataCells.tsx'
import { metadataColumns } from './metadataColumns.ts'
import { EXECUTOR_OPTIONS } from './RemotePipelineCard.tsx'
import { TimingBreakdown } from './TimingBreakdown.tsx'

/**
 * Below this cosine the best hit is no match, whatever its rank. Measured on the demo
 * database: names, symbols, categories and phases score 0.36 and up on their element;
 * nonsense ("asdfgh": Holmium at 0.114, "zzz": 0.242) and random vectors stay under 0.25.
 */
const GOOD_MATCH_COSINE = 0.3

/** A query typed as words, turned into a vector with the demo's public embedding. */
function parseWords(text: string, dimension: number): { ok: true; vector: number[] } | { ok: false; message: string } {
  const vector = embedText(text, dimension)
  if (vector.every((v) => v === 0)) return { ok: false, message: 'Type a word: letters or digits.' }
  return { ok: true, vector }
}

function randomUnitVector(dimension: number): number[] {
  const values = Array.from({ length: dimension }, () => Math.random() * 2 - 1)
  const norm = Math.hypot(...values) || 1
  return values.map((v) => Number((v / norm).toFixed(4)))
}

function parseVector(text: string, dimension: number): { ok: true; vector: number[] } | { ok: false; message: string } {
  const parts = text
    .split(/[\s,;]+/)
    .map((p) => p.trim())
    .filter(Boolean)
  // A word where a number belongs is the first thing to say, whatever the count.
  const vector = parts.map(Number)
  const bad = vector.findIndex((v) => !Number.isFinite(v))
  if (bad >= 0) return { ok: false, message: `Component ${bad + 1} ("${parts[bad]}") is not a number.` }
  if (parts.length !== dimension) {
    return { ok: false, message: `The database vectors have ${dimension} components; you typed ${parts.length}.` }
  }
  if (vector.every((v) => v === 0)) return { ok: false, message: 'A zero vector has no direction to compare.' }
  return { ok: true, vector }
}

/**
 * The private search demo: a query vector encrypted here, scored against every row
 * of the server's database on ciphertexts, decrypted and ranked here.
 */
export function PrivateSearchCard() {
  const sandbox = useSandbox()
  const { connection, searches } = useServerView()
  const { job } = useActivity()
  const [text, setText] = useState('')
  const [words, setWords] = useState('')
  const [row, setRow] = useState('42')
  const [k, setK] = useState(5)
  const [executor, setExecutor] = useState<ExecutorChoice>('default')
  const [error, setError] = useState<HeError>()
  const facts = connection?.search

  if (!connection) {
    return (
      <section className="card" aria-label="Private search">
        <h2>Private search</h2>
        <p className="muted">Connect to a server to search its database with an encrypted query.</p>
      </section>
    )
  }
  if (!facts) {
    return (
      <section className="card" aria-label="Private search">
        <h2>Private search</h2>
        <p className="field-error">This server serves no private search: {connection.searchError}</p>
      </section>
    )
  }
  const demo = facts.source?.type === 'demo'
  const parsed = demo
    ? words.trim() === ''
      ? undefined
      : parseWords(words, facts.dimension)
    : text.trim() === ''
      ? undefined
      : parseVector(text, facts.dimension)
  const synthetic = facts.source?.type === 'synthetic'

  const fillFromRow = async () => {
    setError(undefined)
    const outcome = await sandbox.run(`Reading row ${row}`, () =>
      sandbox.worker.request({ type: 'searchRow', row: Number(row) }),
    )
    if (outcome.ok) setText(outcome.value.vector.map((v) => v.toFixed(4)).join(', '))
    else setError(outcome.error)
  }
  const search = async () => {
    if (!parsed?.ok) return
    setError(undefined)
    const outcome = await runSearch(sandbox, parsed.vector, k, executor)
    if (!outcome.ok) setError(outcome.error)
  }

  return (
    <section className="card" aria-label="Private search">
      <h2>Private search</h2>
      <p className="card-intro">
        Nearest neighbours over the server's {formatInteger(facts.rows)} vectors. Your query is encrypted here; the
        server scores every row on the ciphertext and never sees the query or the scores.
      </p>
      <SearchFactsLine facts={facts} />

      {demo ? (
        <div className="field">
          <label className="field-label" htmlFor="search-words">
            Search the elements for
          </label>
          <input
            id="search-words"
            type="search"
            value={words}
            spellCheck={false}
            aria-invalid={parsed !== undefined && !parsed.ok}
            aria-describedby="search-words-help"
            placeholder="e.g. noble gas, liquid, iron"
            onChange={(event) => setWords(event.target.value)}
          />
          <FieldError message={parsed && !parsed.ok ? parsed.message : undefined} />
          <p className="field-help" id="search-words-help">
            Your words become a vector of {facts.dimension} numbers here, with he-core's public embedText — the same
            hashing each element's name and symbol (weighted most, so "Fe" finds Iron) and its category and phase went
            through to make the server's rows. It matches words and their spelling, not meaning. Only the encrypted
            vector leaves this page.
          </p>
          {parsed?.ok ? (
            <details className="search-vector">
              <summary>The query vector</summary>
              <p className="mono" data-testid="search-vector">
                {parsed.vector.map((v) => v.toFixed(3)).join(', ')}
              </p>
            </details>
          ) : null}
        </div>
      ) : (
        <div className="field">
          <label className="field-label" htmlFor="search-query">
            Query vector ({facts.dimension} numbers)
          </label>
          <textarea
            id="search-query"
            rows={2}
            value={text}
            spellCheck={false}
            aria-invalid={parsed !== undefined && !parsed.ok}
            placeholder={`e.g. ${randomUnitVector(Math.min(facts.dimension, 4)).join(', ')}, …`}
            onChange={(event) => setText(event.target.value)}
          />
          <FieldError message={parsed && !parsed.ok ? parsed.message : undefined} />
          <div className="actions">
            <button
              type="button"
              className="button-small"
              onClick={() => setText(randomUnitVector(facts.dimension).join(', '))}
            >
              Random vector
            </button>
            {synthetic ? (
              <>
                <span className="muted">or row</span>
                <input
                  className="mono input-tiny"
                  aria-label="Database row"
                  inputMode="numeric"
                  value={row}
                  onChange={(event) => setRow(event.target.value)}
                />
                <button
                  type="button"
                  className="button-small"
                  disabled={job !== undefined}
                  onClick={() => void fillFromRow()}
                >
                  Use database row
                </button>
              </>
            ) : null}
          </div>
        </div>
      )}
      <div className="field-row">
        <div className="field">
          <label className="field-label" htmlFor="search-k">
            Top k
          </label>
          <input
            id="search-k"
            type="number"
            className="input-tiny"
            min={1}
            max={100}
            value={k}
            onChange={(event) => setK(Math.min(100, Math.max(1, Math.trunc(Number(event.target.value)) || 1)))}
          />
        </div>
        <fieldset className="field">
          <legend className="field-label">Executor</legend>
          <Segmented name="search-executor" value={executor} options={EXECUTOR_OPTIONS} onChange={setExecutor} />
        </fieldset>
      </div>
      <div className="actions">
        <button
          type="button"
          className="button-primary"
          disabled={!parsed?.ok || job !== undefined}
          onClick={() => void search()}
        >
          Search privately
        </button>
        {parsed === undefined ? (
          <span className="muted" data-testid="search-empty-hint">
            {demo ? 'Type some words first.' : 'Type a query vector first, or take a random one.'}
          </span>
        ) : null}
      </div>
      {error ? <ErrorNotice error={error} title="The search failed" onDismiss={() => setError(undefined)} /> : null}
      {searches.map((run) => (
        <SearchResult key={run.id} run={run} facts={facts} />
      ))}
    </section>
  )
}

function SearchFactsLine({ facts }: { facts: SearchFacts }) {
  return (
    <p className="search-facts">
      <span className="badge">
        {formatInteger(facts.rows)} × {facts.dimension}
      </span>
      <span className="badge">
        {facts.scheme.toUpperCase()} n = {facts.polyModulusDegree}
      </span>
      <span className="badge">{facts.metric}</span>
      <span className="badge" title="Baby step g and who computes the baby rotations">
        g = {facts.babyStep} ({facts.babySteps} baby steps)
      </span>
      <span className="badge">
        {facts.queryCiphertexts} query ciphertext{facts.queryCiphertexts === 1 ? '' : 's'}
      </span>
      <span className="badge">
        {facts.galoisSteps.length === 0 ? 'no Galois keys needed' : `Galois steps ${facts.galoisSteps.join(', ')}`}
      </span>
      {facts.source ? <span className="badge">{searchDatabaseSourceLabel(facts.source)}</span> : null}
    </p>
  )
}

function SearchResult({ run, facts }: { run: SearchRun; facts: SearchFacts }) {
  const oracle = run.oracleRows
  const agrees = oracle ? run.hits.every((hit, i) => oracle[i] === hit.row) : undefined
  const columns = metadataColumns(run.hits)
  return (
    <div className="remote-run" data-testid="search-result">
      <div className="remote-run-head">
        <strong>Run {run.id}</strong>
        <span className="badge badge-accent">search</span>
        {run.requested !== 'default' ? <span className="muted">asked for {run.requested}</span> : null}
      </div>
      <ol className="search-phases">
        <li>
          <strong>Keys</strong>{' '}
          {facts.galoisSteps.length === 0
            ? 'none needed: the query carries its own rotations.'
            : run.client.keyUploadMs !== undefined
              ? `Galois keys made here in ${formatMs(run.client.keygenMs ?? 0)}, uploaded (${formatBytes(run.client.keyBytes ?? 0)}) in ${formatMs(run.client.keyUploadMs)}.`
              : `already on the server (${formatBytes(run.client.keyBytes ?? 0)}).`}
        </li>
        <li>
          <strong>Encrypt</strong> {facts.queryCiphertexts} seeded ciphertext{facts.queryCiphertexts === 1 ? '' : 's'},{' '}
          {formatBytes(run.work.bytesUp)} up, in {formatMs(run.client.encryptMs)}.
        </li>
        <li>
          <strong>Server</strong> scored every row on the ciphertexts ({run.work.executor ?? 'executor not reported'}):
          <TimingBreakdown work={run.work} />
        </li>
        <li>
          <strong>Decrypt</strong> {formatBytes(run.work.bytesDown)} down, decrypted and ranked here in{' '}
          {formatMs(run.client.decryptMs)}; {run.minNoiseBudget} bits of noise budget left (exact scores).
        </li>
      </ol>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard (axe: scrollable-region-focusable) */}
      <section className="search-hits-scroll" tabIndex={0} aria-label={`Hits of run ${run.id}`}>
        <table className="data-table" data-testid="search-hits">
          <thead>
            <tr>
              <th>Rank</th>
              <th>Id</th>
              {columns.map((column) => (
                <th key={column}>{column}</th>
              ))}
              <th className="num">Score</th>
              <th className="num">{facts.metric === 'cosine' ? 'Cosine' : 'Dot product'}</th>
            </tr>
          </thead>
          <tbody>
            {run.hits.map((hit) => (
              <tr key={hit.rank}>
                <td>{hit.rank}</td>
                <td className="mono" title={`row ${hit.row}`}>
                  {String(hit.id)}
                </td>
                <MetadataCells metadata={hit.metadata} columns={columns} />
                <td className="num">{formatInteger(hit.score)}</td>
                <td className="num">{hit.similarity.toFixed(4)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      {facts.metric === 'cosine' ? (
        <p className="field-help" data-testid="cosine-note">
          Why a row searched for itself scores about 0.995, not 1: the server computes on integers, so every vector is
          scaled by {formatInteger(facts.scale)} and rounded before encryption. The rounding moves each vector a little,
          and that costs a little similarity — the ranking is what the encrypted search promises.
        </p>
      ) : null}
      {facts.metric === 'cosine' && (run.hits[0]?.similarity ?? 0) < GOOD_MATCH_COSINE ? (
        <p className="notice notice-warning search-no-match" role="status" data-testid="search-no-match">
          No good match: the best cosine is {(run.hits[0]?.similarity ?? 0).toFixed(3)}, and a real match scores above{' '}
          {GOOD_MATCH_COSINE}. The ranking below it says little. The demo matches words and their spelling, not meaning:
          try an element’s name or symbol, a category (noble gas, halogen) or a phase (liquid).
        </p>
      ) : null}
      {agrees !== undefined ? (
        <p className={agrees ? 'search-check ok' : 'search-check bad'} data-testid="search-oracle">
          {agrees
            ? '✓ Same ranking as the plaintext computation over the same (public) database.'
            : `✗ The plaintext ranking differs: ${oracle?.join(', ')}`}
        </p>
      ) : null}
    </div>
  )
}
