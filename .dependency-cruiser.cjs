/**
 * The layer rule (`pnpm lint` runs it): sealbox's packages form layers, and every arrow
 * points down.
 *
 *   packages/he-ring   ring arithmetic: depends on nothing of ours (nor on SEAL)
 *   packages/he-core   on he-ring only
 *   apps/*             on he-core and he-ring (their tests also on testkit)
 *   packages/testkit   test harnesses (server processes, PostgreSQL, nginx, browsers):
 *                      on he-core; starts the server by path, never imports an app
 *   packages/bench     on all of them; inside it, core/ ← load/ ← the programs (search/,
 *                      server/, keys/, …), which never import one another, and no cycles
 *
 * A package is reached through its name (`@sealbox/he-core/search`), which resolves to an
 * entry of its `exports` — never through a relative path into another package's files.
 * Workspace imports resolve with the `@sealbox/source` condition, to `src/`, as the tests do.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'ring-depends-on-nothing-of-ours',
      comment: 'he-ring is the bottom layer: no other sealbox package.',
      severity: 'error',
      from: { path: '^packages/he-ring/' },
      to: { path: ['^(packages/(?!he-ring/)[^/]+|apps/[^/]+)/', '^@sealbox/(?!he-ring$)'] },
    },
    {
      name: 'ring-has-no-runtime-dependencies',
      comment:
        'he-ring runs unchanged in browsers and Node with no dependency: no npm package (not SEAL) and no node: module outside its tests and build scripts.',
      severity: 'error',
      from: { path: '^packages/he-ring/src/', pathNot: '\\.test\\.ts$' },
      to: {
        dependencyTypes: [
          'npm',
          'npm-dev',
          'npm-optional',
          'npm-peer',
          'npm-no-pkg',
          'npm-unknown',
          'core',
          'undetermined',
          'unknown',
        ],
      },
    },
    {
      name: 'core-depends-on-ring-only',
      comment: 'he-core builds on he-ring; it never reaches up into the apps or the benchmarks.',
      severity: 'error',
      from: { path: '^packages/he-core/' },
      to: { path: ['^(packages/(?!he-core/|he-ring/)[^/]+|apps/[^/]+)/', '^@sealbox/(?!he-core|he-ring)'] },
    },
    {
      name: 'apps-depend-on-core-and-ring',
      comment: 'The apps bind he-core (and he-ring); the benchmarks measure the apps, not the other way round.',
      severity: 'error',
      from: { path: '^apps/' },
      to: { path: ['^packages/bench/', '^@sealbox/bench'] },
    },
    {
      name: 'testkit-below-the-apps',
      comment:
        'testkit starts the server as a process (by path) and never imports an app or the benchmarks: the server tests depend on it.',
      severity: 'error',
      from: { path: '^packages/testkit/' },
      to: {
        path: ['^(packages/(?!testkit/|he-core/|he-ring/)[^/]+|apps/[^/]+)/', '^@sealbox/(?!testkit|he-core|he-ring)'],
      },
    },
    {
      name: 'testkit-only-in-tests',
      comment:
        'Test harnesses are for tests and the benchmarks: no shipped file of he-ring, he-core or an app imports @sealbox/testkit (a test, a *TestKit.ts helper, an e2e folder may).',
      severity: 'error',
      from: {
        path: '^(packages/(he-ring|he-core)|apps/[^/]+)/src/',
        pathNot: ['\\.test\\.tsx?$', 'TestKit\\.ts$'],
      },
      to: { path: ['^packages/testkit/', '^@sealbox/testkit'] },
    },
    {
      name: 'no-server-for-test-helpers',
      comment: 'The web app never imports the server: its e2e suite starts one through @sealbox/testkit.',
      severity: 'error',
      from: { path: '^apps/web/' },
      to: { path: ['^apps/server/', '^@sealbox/server'] },
    },
    {
      name: 'no-other-package-internals',
      comment:
        'Another package is imported by its name (an entry of its package.json exports), never by a relative path into its files.',
      severity: 'error',
      from: { path: '^(packages|apps)/([^/]+)/' },
      to: { path: '^(packages|apps)/[^/]+/', pathNot: '^$1/$2/', dependencyTypes: ['local'] },
    },
    {
      name: 'bench-no-cycles',
      comment:
        'No import cycle inside packages/bench, type-only imports included: a shared piece moves down into core/ (or load/) instead.',
      severity: 'error',
      from: { path: '^packages/bench/' },
      to: { path: '^packages/bench/', circular: true },
    },
    {
      name: 'bench-core-below-everything',
      comment:
        "The bench's core (stats, CLI, report writing, child processes) depends on nothing else of the bench but BenchError.",
      severity: 'error',
      from: { path: '^packages/bench/src/core/' },
      to: { path: '^packages/bench/src/', pathNot: '^packages/bench/src/(core/|BenchError\\.ts$)' },
    },
    {
      name: 'bench-load-on-core-only',
      comment: 'The load generator and the workloads it replays build on the core only; the benchmarks use them.',
      severity: 'error',
      from: { path: '^packages/bench/src/load/' },
      to: { path: '^packages/bench/src/', pathNot: '^packages/bench/src/(core/|load/|BenchError\\.ts$)' },
    },
    {
      name: 'bench-programs-independent',
      comment:
        'One benchmark program never imports another (search from server, server from keys): what two share lives in core/, load/, harness/ or engines/.',
      severity: 'error',
      from: { path: '^packages/bench/src/(bgvChains|calibrate|keys|opTable|revisions|search|server|sizing)/' },
      to: {
        path: '^packages/bench/src/(bgvChains|calibrate|keys|opTable|revisions|search|server|sizing)/',
        pathNot: '^packages/bench/src/$1/',
      },
    },
    {
      name: 'no-unresolvable',
      comment:
        'Every import resolves: a package imports only what its package.json declares (an undeclared @sealbox/ package included).',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: {
      conditionNames: ['@sealbox/source', 'import', 'types', 'default'],
      exportsFields: ['exports'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'],
    },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist|\\.venv|\\.api-report)/' },
  },
}
