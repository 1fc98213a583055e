/**
 * The operator artefacts on top of the metrics (contract §8): dashboards/svc-fleet.json, docs/alerts.yml
 * and its promtool unit tests docs/alerts.test.yml.
 *
 * Every PromQL expression (panel targets, variable queries, alert rules) is parsed with the Prometheus
 * project's own lezer grammar, and a label-flow walk over the tree checks that it names only exported
 * families (metric-names.ts) and only labels those families carry. promtool then checks the rule file,
 * runs its unit tests, and type-checks the dashboard's expressions as recording rules.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parser } from '@prometheus-io/lezer-promql';
import { parse as parseYaml } from 'yaml';
import type { MetricFamily } from '../src/metrics/metric-names.js';
import { CIRCUIT_STATE_VALUES, METRIC_FAMILIES, PROCESS_METRIC_FAMILIES, SOURCE_DLQ_KINDS } from '../src/metrics/metric-names.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DASHBOARD_FILE = join(ROOT, 'dashboards', 'svc-fleet.json');
const ALERTS_FILE = join(ROOT, 'docs', 'alerts.yml');
const ALERTS_TEST_FILE = join(ROOT, 'docs', 'alerts.test.yml');

// ---------------------------------------------------------------------------------------------------
// The PromQL checker
// ---------------------------------------------------------------------------------------------------

type SyntaxNode = ReturnType<typeof parser.parse>['topNode'];

/** Labels Prometheus attaches to every scraped series (the scrape target); svc itself exports neither. */
const TARGET_LABELS = ['instance', 'job'] as const;
const HISTOGRAM_SUFFIXES = ['_bucket', '_sum', '_count'] as const;

type KnownFamily = Pick<MetricFamily, 'name' | 'type'> & { labels: readonly string[] };
/**
 * What an expression may name: svc's families, its process families (prom-client's collectors under
 * svc_), and `up`, the series Prometheus writes for every scrape target (how a daemon that is down,
 * and so exports nothing, is seen).
 */
const FAMILIES: ReadonlyMap<string, KnownFamily> = new Map<string, KnownFamily>([
  ...METRIC_FAMILIES.map((f): [string, KnownFamily] => [f.name, f]),
  ...PROCESS_METRIC_FAMILIES.map((f): [string, KnownFamily] => [f.name, f]),
  ['up', { name: 'up', type: 'gauge', labels: [] }],
]);
/** The families every replica reads from the one store: a dashboard takes their max, never their sum. */
const STORE_WIDE = ['svc_dispatch_backlog', 'source_inflight'];

interface Matcher { label: string; op: string; value: string }
interface Selector {
  /** As written, e.g. `mcp_server_drain_duration_ms_bucket`. */
  metric: string;
  /** The exported family it belongs to, if any. */
  family: string | undefined;
  matchers: Matcher[];
}
interface PromqlCheck {
  /** Families used (histogram sample names folded into their family). */
  families: Set<string>;
  /** Every label name used in a matcher or a grouping / vector-matching clause. */
  labels: Set<string>;
  selectors: Selector[];
  problems: string[];
}

/** Resolves a sample name to its family: exact, or a histogram's `_bucket`/`_sum`/`_count` series. */
function familyOf(metric: string): { family: KnownFamily; bucket: boolean } | undefined {
  const exact = FAMILIES.get(metric);
  if (exact) return { family: exact, bucket: false };
  for (const suffix of HISTOGRAM_SUFFIXES) {
    if (!metric.endsWith(suffix)) continue;
    const base = FAMILIES.get(metric.slice(0, -suffix.length));
    if (base?.type === 'histogram') return { family: base, bucket: suffix === '_bucket' };
  }
  return undefined;
}

/** A PromQL string literal's value ('…', "…" or `…`). */
function unquote(literal: string): string {
  if (literal.startsWith('`')) return literal.slice(1, -1);
  if (literal.startsWith("'")) return JSON.parse(`"${literal.slice(1, -1).replace(/\\'/g, "'").replace(/"/g, '\\"')}"`) as string;
  return JSON.parse(literal) as string;
}

function children(node: SyntaxNode): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  for (let c = node.firstChild; c; c = c.nextSibling) out.push(c);
  return out;
}

const isExpr = (n: SyntaxNode): boolean => n.type.is('Expr');

/** Stands for "any label" after a selector that was already reported, so one mistake is reported once. */
const ANY_LABEL = '*';

/**
 * Parses one expression and walks it. Each sub-expression yields the set of label names its result can
 * carry (an over-approximation: exact for selectors, narrowed by `by`, `without`, `on`, `ignoring`,
 * `histogram_quantile`), so a grouping label is checked against what actually reaches it, not merely
 * against some family somewhere in the expression.
 */
function checkPromql(expr: string): PromqlCheck {
  const result: PromqlCheck = { families: new Set(), labels: new Set(), selectors: [], problems: [] };
  const text = (n: SyntaxNode): string => expr.slice(n.from, n.to);
  const problem = (n: SyntaxNode, msg: string): void => { result.problems.push(`${msg} at ${n.from}: ${expr}`); };

  const tree = parser.parse(expr);
  tree.iterate({
    enter: (n) => {
      if (n.type.isError) result.problems.push(`parse error at ${n.from} (…${expr.slice(n.from, n.from + 20)}): ${expr}`);
    },
  });
  if (result.problems.length > 0) return result;

  const checkGrouping = (clause: SyntaxNode, available: ReadonlySet<string>, where: string): string[] => {
    const names = children(clause).map((c) => (c.name === 'QuotedLabelName' ? unquote(text(c)) : text(c)));
    for (const name of names) {
      result.labels.add(name);
      if (!available.has(name) && !available.has(ANY_LABEL)) problem(clause, `label "${name}" in ${where} is not carried by ${[...available].sort().join(', ') || 'anything'}`);
    }
    return names;
  };

  const selector = (n: SyntaxNode): Set<string> => {
    let metric: string | undefined;
    const matchers: Matcher[] = [];
    for (const c of children(n)) {
      if (c.name === 'Identifier') metric = text(c);
      if (c.name !== 'LabelMatchers') continue;
      for (const m of children(c)) {
        if (m.name === 'QuotedLabelName') { metric = unquote(text(m)); continue; } // {"metric.name", …}
        const name = m.firstChild;
        const op = m.getChild('MatchOp');
        const value = m.getChild('StringLiteral');
        if (!name || !op || !value) { problem(m, 'unreadable label matcher'); continue; }
        matchers.push({ label: name.name === 'QuotedLabelName' ? unquote(text(name)) : text(name), op: text(op), value: unquote(text(value)) });
      }
    }
    const byName = matchers.find((m) => m.label === '__name__');
    if (byName && metric === undefined && byName.op === '=') metric = byName.value;
    if (metric === undefined) { problem(n, 'selector without a fixed metric name'); return new Set([ANY_LABEL]); }
    const resolved = familyOf(metric);
    result.selectors.push({ metric, family: resolved?.family.name, matchers });
    if (!resolved) { problem(n, `"${metric}" is not an exported metric family`); return new Set([ANY_LABEL]); }
    result.families.add(resolved.family.name);
    const carried = new Set<string>([...resolved.family.labels, ...TARGET_LABELS, ...(resolved.bucket ? ['le'] : [])]);
    for (const m of matchers) {
      result.labels.add(m.label);
      if (m.label === '__name__') {
        if (m.op !== '=' || m.value !== metric) problem(n, `__name__ matcher ${m.op}"${m.value}" on ${metric}`);
      } else if (!carried.has(m.label)) {
        problem(n, `label "${m.label}" is not carried by ${metric} (${[...carried].sort().join(', ')})`);
      } else if (m.label === 'kind' && m.op === '=' && !(SOURCE_DLQ_KINDS as readonly string[]).includes(m.value)) {
        problem(n, `kind="${m.value}" is not a kind svc exports (${SOURCE_DLQ_KINDS.join(', ')})`);
      }
    }
    return carried;
  };

  const walk = (n: SyntaxNode): Set<string> => {
    const exprs = children(n).filter(isExpr);
    switch (n.name) {
      case 'VectorSelector':
        return selector(n);
      case 'NumberDurationLiteral':
      case 'StringLiteral':
        return new Set();
      case 'AggregateExpr': {
        const body = n.getChild('FunctionCallBody');
        const args = body ? children(body).filter(isExpr) : [];
        for (const param of args.slice(0, -1)) walk(param); // topk's k, quantile's φ, count_values' label
        const last = args.at(-1);
        const input = last ? walk(last) : new Set<string>();
        const op = text(n.getChild('AggregateOp') ?? n).toLowerCase();
        const modifier = n.getChild('AggregateModifier');
        const grouping = modifier?.getChild('GroupingLabels');
        let out: Set<string>;
        if (!modifier || !grouping) out = new Set();
        else if (modifier.getChild('By')) out = new Set(checkGrouping(grouping, input, `${op} by`));
        else {
          const without = checkGrouping(grouping, input, `${op} without`);
          out = new Set([...input].filter((l) => !without.includes(l)));
        }
        if (['topk', 'bottomk', 'limitk', 'limit_ratio'].includes(op)) out = input; // keep the series' labels
        const first = args[0];
        if (op === 'count_values' && first?.name === 'StringLiteral') out.add(unquote(text(first)));
        return out;
      }
      case 'BinaryExpr': {
        const [lhsNode, rhsNode] = exprs;
        if (!lhsNode || !rhsNode) { problem(n, 'binary expression without two operands'); return new Set(); }
        const lhs = walk(lhsNode);
        const rhs = walk(rhsNode);
        const both = new Set([...lhs, ...rhs]);
        const setOp = n.getChild('And') ?? n.getChild('Unless');
        const clause = n.getChild('MatchingModifierClause');
        if (!clause) return setOp ? lhs : both;
        const [matchingLabels, includeLabels] = clause.getChildren('GroupingLabels');
        let out = setOp ? lhs : both;
        if (matchingLabels && clause.getChild('On')) {
          const common = lhs.has(ANY_LABEL) ? rhs : rhs.has(ANY_LABEL) ? lhs : new Set([...lhs].filter((l) => rhs.has(l)));
          const on = checkGrouping(matchingLabels, common, 'on (both sides)');
          if (!clause.getChild('GroupLeft') && !clause.getChild('GroupRight') && !setOp) out = new Set(on);
        } else if (matchingLabels) {
          const ignoring = checkGrouping(matchingLabels, both, 'ignoring');
          if (!setOp) out = new Set([...out].filter((l) => !ignoring.includes(l)));
        }
        const extra = includeLabels ? checkGrouping(includeLabels, clause.getChild('GroupLeft') ? rhs : lhs, 'group_left/right') : [];
        if (clause.getChild('GroupLeft')) out = new Set([...lhs, ...extra]);
        if (clause.getChild('GroupRight')) out = new Set([...rhs, ...extra]);
        return out;
      }
      case 'FunctionCall': {
        const fn = text(n.getChild('FunctionIdentifier') ?? n);
        const body = n.getChild('FunctionCallBody');
        const args = body ? children(body).filter(isExpr) : [];
        const out = new Set<string>();
        for (const a of args) for (const l of walk(a)) out.add(l);
        if (fn === 'histogram_quantile') out.delete('le');
        const dst = args[1];
        if ((fn === 'label_replace' || fn === 'label_join') && dst?.name === 'StringLiteral') out.add(unquote(text(dst)));
        if (['vector', 'time', 'scalar'].includes(fn)) return new Set();
        return out;
      }
      default: {
        // PromQL, ParenExpr, MatrixSelector, SubqueryExpr, OffsetExpr, StepInvariantExpr, UnaryExpr, …:
        // the labels of the one expression inside.
        const out = new Set<string>();
        for (const e of exprs) for (const l of walk(e)) out.add(l);
        return out;
      }
    }
  };
  walk(tree.topNode);
  return result;
}

// ---------------------------------------------------------------------------------------------------
// The artefacts
// ---------------------------------------------------------------------------------------------------

interface DsRef { type?: string; uid?: string }
interface Target { expr?: string; refId?: string; datasource?: DsRef }
interface Panel {
  id: number;
  type: string;
  title: string;
  datasource?: DsRef;
  targets?: Target[];
  panels?: Panel[];
  gridPos: { x: number; y: number; w: number; h: number };
  fieldConfig?: { defaults?: { noValue?: string; mappings?: Array<{ type: string; options: Record<string, { text: string }> }> } };
}
interface Variable {
  name: string; type: string; multi?: boolean; includeAll?: boolean; datasource?: DsRef;
  query: string | { query: string }; definition?: string;
}
interface Dashboard {
  __inputs: Array<{ name: string; type: string; pluginId: string }>;
  uid: string; title: string; schemaVersion: number; panels: Panel[];
  templating: { list: Variable[] };
}
interface AlertRule { alert?: string; record?: string; expr: string; for?: string; labels?: Record<string, string>; annotations?: Record<string, string> }
interface RuleFile { groups: Array<{ name: string; rules: AlertRule[] }> }
interface RuleTestFile { rule_files: string[]; tests: Array<{ name?: string; alert_rule_test?: Array<{ alertname: string; exp_alerts: unknown[] }> }> }

const dashboard = JSON.parse(readFileSync(DASHBOARD_FILE, 'utf8')) as Dashboard;
const rules = parseYaml(readFileSync(ALERTS_FILE, 'utf8')) as RuleFile;
const ruleTests = parseYaml(readFileSync(ALERTS_TEST_FILE, 'utf8')) as RuleTestFile;

const ROW_TITLES = ['Overview', 'MCP health', 'Audit and SIEM export', 'Rate limits and dispatch', 'LLM', 'On-call'];
const VARIABLES = ['instance', 'server_id', 'agent', 'source'];
const DS_UID = '${DS_PROMETHEUS}';

/** Grafana's interval macros, replaced by a duration so that the text is plain PromQL. */
const GRAFANA_MACROS: Record<string, string> = { __rate_interval: '5m', __interval: '1m', __range: '1h' };

function grafanaToPromql(expr: string): string {
  return expr.replace(/\$\{?(__rate_interval|__interval|__range)\}?/g, (_m, name: string) => GRAFANA_MACROS[name] ?? _m);
}

/** `$name` / `${name}` / `${name:format}` references in a Grafana expression. */
function variableRefs(expr: string): string[] {
  return [...expr.matchAll(/\$(?:\{(\w+)(?::\w+)?\}|(\w+))/g)].map((m) => m[1] ?? m[2] ?? '');
}

/** Panels in layout order, each with the title of the row above it. */
function panelsByRow(d: Dashboard): Array<{ row: string | undefined; panel: Panel }> {
  const out: Array<{ row: string | undefined; panel: Panel }> = [];
  let row: string | undefined;
  for (const p of d.panels) {
    if (p.type === 'row') {
      row = p.title;
      for (const nested of p.panels ?? []) out.push({ row, panel: nested }); // a collapsed row holds its panels
      continue;
    }
    out.push({ row, panel: p });
  }
  return out;
}

function variableQuery(v: Variable): string {
  return typeof v.query === 'string' ? v.query : v.query.query;
}

/** `label_values(selector, label)` → its parts. */
function labelValues(query: string): { selector: string; label: string } {
  const m = /^label_values\(\s*(.+?)\s*,\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\)$/.exec(query.trim());
  assert.ok(m, `variable query is not label_values(selector, label): ${query}`);
  return { selector: m[1] as string, label: m[2] as string };
}

interface Expression { where: string; expr: string; promql: string }

function dashboardExpressions(): Expression[] {
  const out: Expression[] = [];
  for (const { panel } of panelsByRow(dashboard)) {
    for (const t of panel.targets ?? []) {
      out.push({ where: `panel "${panel.title}" ${t.refId ?? ''}`, expr: t.expr ?? '', promql: grafanaToPromql(t.expr ?? '') });
    }
  }
  for (const v of dashboard.templating.list) {
    const { selector } = labelValues(variableQuery(v));
    out.push({ where: `variable ${v.name}`, expr: selector, promql: grafanaToPromql(selector) });
  }
  return out;
}

function alertExpressions(): Expression[] {
  return rules.groups.flatMap((g) => g.rules.map((r) => ({ where: `alert ${r.alert ?? r.record ?? '?'}`, expr: r.expr, promql: r.expr })));
}

// ---------------------------------------------------------------------------------------------------
// promtool
// ---------------------------------------------------------------------------------------------------

const PROMTOOL_MISSING = 'promtool is not on PATH: install Debian\'s `prometheus` package (apt-get install prometheus); CI installs it';

function promtoolPresent(): boolean {
  const run = spawnSync('promtool', ['--version'], { encoding: 'utf8', timeout: 30_000 });
  if (run.error && (run.error as NodeJS.ErrnoException).code === 'ENOENT') return false;
  if (run.error) throw run.error;
  return true;
}

function promtool(args: string[]): { status: number | null; output: string } {
  const run = spawnSync('promtool', args, { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  if (run.error) throw run.error;
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

// ---------------------------------------------------------------------------------------------------

describe('PromQL checker', () => {
  it('accepts exported families, their labels, histogram series and target labels', () => {
    const check = checkPromql('histogram_quantile(0.95, sum by (le, server_id) (rate(mcp_server_drain_duration_ms_bucket{server_id=~"a|b"}[5m])))');
    assert.deepEqual(check.problems, []);
    assert.deepEqual([...check.families], ['mcp_server_drain_duration_ms']);
    assert.deepEqual([...check.labels].sort(), ['le', 'server_id']);
    assert.deepEqual(checkPromql('sum by (instance) (svc_audit_backpressure_active{job="svc"})').problems, []);
    assert.deepEqual(checkPromql('sum without (kind) (rate(source_messages_dlq_total{kind="dispatch"}[5m]))').problems, []);
  });

  it('reports an unknown metric name', () => {
    const check = checkPromql('sum by (agent) (rate(source_messages_dropped_total{agent="oncall"}[5m]))');
    assert.equal(check.problems.length, 1, check.problems.join('\n'));
    assert.match(check.problems[0] ?? '', /"source_messages_dropped_total" is not an exported metric family/);
    // the spec's unsuffixed source names are not what is exported, and a counter has no _bucket
    assert.match(checkPromql('source_messages_dlq').problems.join('\n'), /not an exported metric family/);
    assert.match(checkPromql('rate(mcp_server_restarts_total_bucket[5m])').problems.join('\n'), /not an exported metric family/);
  });

  it('reports labels the family does not carry, in matchers, grouping and vector matching', () => {
    const cases: Array<[string, RegExp]> = [
      ['mcp_server_restarts_total{agent="oncall"}', /label "agent" is not carried by mcp_server_restarts_total/],
      ['rate(svc_audit_export_acked_total{exporter_id="splunk"}[5m])', /label "exporter_id" is not carried/],
      ['sum by (tool) (source_inflight)', /label "tool" in sum by is not carried/],
      ['svc_audit_batch_rows_count{le="10"}', /label "le" is not carried by svc_audit_batch_rows_count/],
      // `le` is gone after the inner sum: a checker that only looks at the families would miss this
      ['histogram_quantile(0.9, sum by (le) (sum by (agent) (rate(svc_provider_rate_limit_wait_ms_bucket[5m]))))', /label "le" in sum by/],
      ['sum without (server_id) (source_inflight)', /label "server_id" in sum without/],
      ['source_inflight > on (kind) source_messages_dlq_total', /label "kind" in on \(both sides\)/],
      ['source_messages_dlq_total{kind="retry"}', /kind="retry" is not a kind svc exports/],
      ['{__name__=~"source_.*"}', /selector without a fixed metric name/],
    ];
    for (const [expr, want] of cases) assert.match(checkPromql(expr).problems.join('\n'), want, expr);
  });

  it('reports parse errors (lezer error nodes)', () => {
    for (const expr of ['sum by (agent (source_inflight)', 'rate(source_inflight[$__rate_interval])', 'source_inflight{agent=}', '']) {
      assert.match(checkPromql(expr).problems.join('\n'), /parse error/, JSON.stringify(expr));
    }
  });
});

describe('dashboards/svc-fleet.json', () => {
  it('is an importable dashboard with a Prometheus datasource input', () => {
    assert.equal(dashboard.uid, 'svc-fleet');
    assert.equal(dashboard.title, 'svc fleet');
    assert.ok(dashboard.schemaVersion >= 36 && dashboard.schemaVersion <= 41, `schemaVersion ${dashboard.schemaVersion}`);
    assert.deepEqual(dashboard.__inputs.map((i) => [i.name, i.type, i.pluginId]), [['DS_PROMETHEUS', 'datasource', 'prometheus']]);
    // The only ${…} placeholder is the input: anything else would be left unresolved on import.
    const placeholders = new Set([...readFileSync(DASHBOARD_FILE, 'utf8').matchAll(/\$\{(\w+)\}/g)].map((m) => m[1]));
    assert.deepEqual([...placeholders], ['DS_PROMETHEUS']);
  });

  it('has the rows of contract §8 and the LLM row (§14.4), in order, each with panels', () => {
    const rows = dashboard.panels.filter((p) => p.type === 'row').map((p) => p.title);
    assert.deepEqual(rows, ROW_TITLES);
    assert.equal(dashboard.panels[0]?.type, 'row', 'the first panel is a row');
    for (const title of ROW_TITLES) {
      assert.ok(panelsByRow(dashboard).filter((p) => p.row === title).length >= 3, `row "${title}" has panels`);
    }
    const ys = dashboard.panels.map((p) => p.gridPos.y);
    assert.deepEqual(ys, [...ys].sort((a, b) => a - b), 'panels are listed in layout order');
    const ids = panelsByRow(dashboard).map((p) => p.panel.id).concat(dashboard.panels.filter((p) => p.type === 'row').map((p) => p.id));
    assert.equal(new Set(ids).size, ids.length, 'panel ids are unique');
  });

  it('has the query variables instance, server_id, agent and source, multi-valued with All', () => {
    const vars = dashboard.templating.list;
    assert.deepEqual(vars.map((v) => v.name), VARIABLES);
    const expected: Record<string, string> = {
      instance: 'label_values(svc_build_info, instance)',
      server_id: 'label_values(mcp_server_circuit_state{instance=~"$instance"}, server_id)',
      agent: 'label_values(source_messages_received_total{instance=~"$instance"}, agent)',
      source: 'label_values(source_messages_received_total{instance=~"$instance", agent=~"$agent"}, source)',
    };
    for (const v of vars) {
      assert.equal(v.type, 'query', v.name);
      assert.equal(v.multi, true, v.name);
      assert.equal(v.includeAll, true, v.name);
      assert.deepEqual(v.datasource, { type: 'prometheus', uid: DS_UID }, v.name);
      assert.equal(variableQuery(v), expected[v.name], v.name);
      const { selector, label } = labelValues(variableQuery(v));
      assert.equal(label, v.name);
      const check = checkPromql(selector);
      assert.deepEqual(check.problems, []);
      const family = FAMILIES.get(check.selectors[0]?.family ?? '');
      assert.ok(family?.labels.some((l) => l === label) || (TARGET_LABELS as readonly string[]).includes(label), `${selector} carries ${label}`);
    }
  });

  it('gives every panel the Prometheus datasource and at least one query', () => {
    for (const { row, panel } of panelsByRow(dashboard)) {
      assert.ok(row, `panel "${panel.title}" sits in a row`);
      assert.ok(['timeseries', 'stat'].includes(panel.type), `panel "${panel.title}" type ${panel.type}`);
      assert.deepEqual(panel.datasource, { type: 'prometheus', uid: DS_UID }, panel.title);
      assert.ok((panel.targets ?? []).length > 0, `panel "${panel.title}" has targets`);
      for (const t of panel.targets ?? []) {
        assert.ok(t.expr && t.expr.trim() !== '', `panel "${panel.title}" target ${t.refId} has an expr`);
        assert.deepEqual(t.datasource, { type: 'prometheus', uid: DS_UID }, `${panel.title} ${t.refId}`);
      }
      const refIds = (panel.targets ?? []).map((t) => t.refId);
      assert.equal(new Set(refIds).size, refIds.length, `panel "${panel.title}" refIds are unique`);
    }
  });

  it('maps the circuit state values as metric-names.ts encodes them', () => {
    const panel = panelsByRow(dashboard).map((p) => p.panel).find((p) => p.targets?.some((t) => t.expr?.includes('mcp_server_circuit_state')));
    const options = panel?.fieldConfig?.defaults?.mappings?.find((m) => m.type === 'value')?.options ?? {};
    const mapped = Object.fromEntries(Object.entries(options).map(([value, o]) => [o.text, Number(value)]));
    assert.deepEqual(mapped, CIRCUIT_STATE_VALUES);
  });

  it('filters by the variables wherever the family carries the label, and shows every exported family', () => {
    const used = new Set<string>();
    for (const { row, panel } of panelsByRow(dashboard)) {
      for (const t of panel.targets ?? []) {
        const expr = t.expr ?? '';
        for (const ref of variableRefs(expr)) {
          assert.ok(VARIABLES.includes(ref) || ref in GRAFANA_MACROS, `"${panel.title}" uses unknown variable $${ref}`);
        }
        for (const s of checkPromql(grafanaToPromql(expr)).selectors) {
          const family = FAMILIES.get(s.family ?? '');
          assert.ok(family, s.metric);
          used.add(family.name);
          for (const label of VARIABLES) {
            if (!family.labels.some((l) => l === label) && !(TARGET_LABELS as readonly string[]).includes(label)) continue;
            assert.ok(s.matchers.some((m) => m.label === label && m.op === '=~' && m.value === `$${label}`),
              `"${panel.title}" (${row}): ${s.metric} is not filtered by ${label}=~"$${label}"`);
          }
          if (family.name === 'source_messages_dlq_total') {
            assert.ok(s.matchers.some((m) => m.label === 'kind' && m.op === '=' && m.value === 'dispatch'), `${panel.title}: kind="dispatch"`);
          }
        }
      }
    }
    assert.deepEqual(METRIC_FAMILIES.map((f) => f.name).filter((f) => !used.has(f)), [], 'every exported family is on the dashboard');
  });

  it('opens with an overview: up, ready, version, pages/hour, dead letters and the backlog', () => {
    const overview = panelsByRow(dashboard).filter((p) => p.row === 'Overview').map((p) => p.panel);
    assert.deepEqual(overview.map((p) => p.title), ['svc up', 'Ready', 'Version', 'Pages delivered / hour', 'Dead letters (24h)', 'Backlog now']);
    const families = overview.map((p) => [...checkPromql(grafanaToPromql(p.targets?.[0]?.expr ?? '')).families]);
    assert.deepEqual(families, [['up'], ['svc_ready'], ['svc_build_info'], ['svc_channel_messages_total'], ['source_messages_dlq_total'],
      ['svc_dispatch_backlog']]);
    assert.ok(overview.every((p) => p.type === 'stat'));
  });

  it('takes the max of what every replica reads from the one store, never the sum', () => {
    for (const { panel } of panelsByRow(dashboard)) {
      for (const t of panel.targets ?? []) {
        const check = checkPromql(grafanaToPromql(t.expr ?? ''));
        if (!STORE_WIDE.some((f) => check.families.has(f))) continue;
        assert.doesNotMatch(t.expr ?? '', /\bsum\b/, `"${panel.title}" sums a store-wide gauge`);
        assert.match(t.expr ?? '', /\bmax\b/, `"${panel.title}"`);
      }
    }
  });

  it('says something in every panel when there is no data: "not configured" for what a rules-only agent lacks', () => {
    for (const { row, panel } of panelsByRow(dashboard)) {
      const noValue = panel.fieldConfig?.defaults?.noValue;
      assert.ok(noValue !== undefined && noValue !== '', `"${panel.title}" has a noValue`);
      if (row === 'MCP health' || row === 'LLM' || row === 'Audit and SIEM export') assert.equal(noValue, 'not configured', panel.title);
      // Pushover's receipts need a pushover channel, not only an oncall.yaml.
      if (row === 'On-call') assert.equal(noValue, panel.title === 'Pushover receipts' ? 'not configured' : 'no oncall.yaml', panel.title);
    }
  });
});

describe('docs/alerts.yml', () => {
  const alerts = rules.groups.flatMap((g) => g.rules);

  it('has group svc with the specification\'s back-pressure rule', () => {
    assert.deepEqual(rules.groups.map((g) => g.name), ['svc']);
    const rule = alerts.find((r) => r.alert === 'SvcAuditBackpressurePaused');
    assert.ok(rule, 'SvcAuditBackpressurePaused exists');
    assert.equal(rule.expr.trim(), 'rate(svc_audit_backpressure_paused_total[5m]) > 0');
    assert.equal(rule.for, '5m');
  });

  it('gives every alert a severity, a summary and a description that use the labels', () => {
    assert.ok(alerts.length >= 6, `${alerts.length} alerts`);
    const names = alerts.map((r) => r.alert);
    assert.equal(new Set(names).size, names.length, 'alert names are unique');
    for (const r of alerts) {
      assert.ok(r.alert && /^Svc[A-Z][A-Za-z]+$/.test(r.alert), `alert name ${r.alert}`);
      assert.ok(['page', 'ticket'].includes(r.labels?.severity ?? ''), `${r.alert} severity`);
      assert.match(r.annotations?.summary ?? '', /\{\{ \$labels\.\w+ \}\}/, `${r.alert} summary`);
      assert.match(r.annotations?.description ?? '', /\{\{ \$labels\.\w+ \}\}/, `${r.alert} description`);
    }
  });

  it('watches svc itself: down, absent, not ready, unauthorized webhooks, a failing channel', () => {
    const byName = new Map(alerts.map((r) => [r.alert, r]));
    assert.equal(byName.get('SvcDown')?.expr.trim(), 'up{job="svc"} == 0');
    assert.equal(byName.get('SvcAbsent')?.expr.trim(), 'absent(up{job="svc"})');
    assert.equal(byName.get('SvcNotReady')?.expr.trim(), 'svc_ready == 0');
    assert.match(byName.get('SvcWebhookUnauthorized')?.expr ?? '', /svc_webhook_rejected_total\{reason="unauthorized"\}/);
    assert.match(byName.get('SvcChannelFailing')?.expr ?? '', /outcome="failed"/);
    for (const name of ['SvcDown', 'SvcAbsent', 'SvcNotReady', 'SvcWebhookUnauthorized', 'SvcChannelFailing', 'SvcDispatchDeadLetters']) {
      assert.equal(byName.get(name)?.labels?.severity, 'page', name);
    }
  });

  it('has a promtool unit test for every alert', () => {
    assert.deepEqual(ruleTests.rule_files, ['alerts.yml']);
    const tested = new Set(ruleTests.tests.flatMap((t) => (t.alert_rule_test ?? []).filter((a) => a.exp_alerts.length > 0).map((a) => a.alertname)));
    for (const r of alerts) assert.ok(tested.has(r.alert ?? ''), `${r.alert} has a test where it fires`);
  });
});

describe('every PromQL expression of the dashboard and the alerts', () => {
  const expressions = [...dashboardExpressions(), ...alertExpressions()];

  it('parses and names only exported families and the labels they carry', () => {
    assert.ok(expressions.length >= 30, `${expressions.length} expressions`);
    const problems: string[] = [];
    const families = new Set<string>();
    for (const e of expressions) {
      const check = checkPromql(e.promql);
      problems.push(...check.problems.map((p) => `${e.where}: ${p}`));
      assert.ok(check.families.size > 0 || check.problems.length > 0, `${e.where} names no metric`);
      for (const f of check.families) families.add(f);
    }
    assert.deepEqual(problems, []);
    assert.deepEqual(METRIC_FAMILIES.map((f) => f.name).filter((f) => !families.has(f)), [], 'every exported family is used');
  });
});

describe('promtool', () => {
  const present = promtoolPresent();

  it('check rules docs/alerts.yml', (t) => {
    if (!present) { t.skip(PROMTOOL_MISSING); return; }
    const run = promtool(['check', 'rules', 'docs/alerts.yml']);
    assert.equal(run.status, 0, run.output);
    assert.match(run.output, /SUCCESS: \d+ rules found/);
  });

  it('test rules docs/alerts.test.yml', (t) => {
    if (!present) { t.skip(PROMTOOL_MISSING); return; }
    const run = promtool(['test', 'rules', 'docs/alerts.test.yml']);
    assert.equal(run.status, 0, run.output);
    assert.match(run.output, /SUCCESS/);
  });

  it('type-checks the dashboard expressions (as recording rules)', (t) => {
    if (!present) { t.skip(PROMTOOL_MISSING); return; }
    const dir = mkdtempSync(join(tmpdir(), 'svc-dashboard-rules-'));
    try {
      const expressions = dashboardExpressions();
      const lines = ['groups:', '  - name: svc-dashboard', '    rules:'];
      expressions.forEach((e, i) => lines.push(`      - record: svc_dashboard:expr_${i}`, `        expr: ${JSON.stringify(e.promql)}`));
      const file = join(dir, 'dashboard.rules.yml');
      writeFileSync(file, `${lines.join('\n')}\n`);
      const run = promtool(['check', 'rules', file]);
      assert.equal(run.status, 0, run.output);
      assert.match(run.output, new RegExp(`SUCCESS: ${expressions.length} rules found`));
      // and the checker is not a rubber stamp: promtool rejects a range vector where a scalar belongs
      writeFileSync(file, 'groups:\n  - name: bad\n    rules:\n      - record: bad:expr\n        expr: "histogram_quantile(0.9, source_inflight[5m])"\n');
      assert.notEqual(promtool(['check', 'rules', file]).status, 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
