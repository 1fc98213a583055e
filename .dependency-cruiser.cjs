/**
 * The import rule of the house (docs/architecture.md): data flows one way, and so do imports. Each
 * folder of src/ may import only the folders listed for it; no import cycles, type-only imports
 * included. `npm run lint` runs it; test/architecture.test.ts proves a wrong-way import fails it.
 */
const LAYERS = {
  core: [],
  config: ['core'],
  audit: ['core'],
  auth: ['core', 'config'],
  logs: ['core', 'config'],
  metrics: ['core', 'config'],
  // The on-call domain (contract §17): pure schedules, routes, policies and page plans.
  oncall: ['core', 'config', 'audit'],
  store: ['core', 'config', 'audit', 'oncall'],
  // Moving in from another pager (contract §22): pure translations to the on-call domain, and their proof.
  import: ['core', 'config', 'oncall'],
  ingest: ['core', 'config', 'logs', 'metrics', 'store', 'oncall'],
  runtime: ['core', 'config', 'audit', 'logs', 'metrics', 'store', 'oncall'],
  export: ['core', 'config', 'audit', 'metrics', 'store'],
  // Reports (contract §23): a read model, pure aggregation over what the store reads.
  report: ['core', 'config', 'oncall', 'store'],
  'control-plane': ['core', 'config', 'audit', 'auth', 'logs', 'metrics', 'store', 'oncall', 'report'],
  // The composition root: the one place that knows every part.
  daemon: ['core', 'config', 'audit', 'auth', 'logs', 'metrics', 'oncall', 'store', 'ingest', 'runtime', 'export', 'report', 'control-plane'],
  cli: ['core', 'config', 'audit', 'auth', 'logs', 'metrics', 'oncall', 'import', 'store', 'ingest', 'runtime', 'export', 'report', 'control-plane', 'daemon'],
};

const alt = (names) => names.map((n) => n.replace(/[-]/g, '\\-')).join('|');

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle (type-only ones included) means two modules are really one, or the flow runs back.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    ...Object.entries(LAYERS).map(([layer, allowed]) => ({
      name: `flow-${layer}`,
      severity: 'error',
      comment: `src/${layer}/ may import only ${allowed.length ? allowed.join(', ') : 'nothing outside itself'} (docs/architecture.md)`,
      from: { path: `^src/${alt([layer])}/`, pathNot: '\\.test\\.ts$' },
      to: { path: '^src/', pathNot: `^src/(${alt([layer, ...allowed])})/` },
    })),
    {
      name: 'flow-main',
      severity: 'error',
      comment: 'main.ts only starts the CLI.',
      from: { path: '^src/main\\.ts$' },
      to: { path: '^src/', pathNot: '^src/(cli|core)/' },
    },
    {
      name: 'no-test-code-in-src',
      severity: 'error',
      comment: 'Shipped code never imports tests or their helpers.',
      from: { path: '^src/', pathNot: '\\.test\\.ts$' },
      to: { path: '(^test/|\\.test\\.ts$)' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs'] },
  },
};
