import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { dailyShifts } from '../../../../test/support/oncall-config.js';
import { sharedSqliteStore } from '../../../../test/support/shared-store.js';
import { fakeClock } from '../../../core/clock.js';
import type { OncallConfig } from '../../../oncall/oncall-config.js';
import { planOpen, planResolve } from '../../../oncall/page-plan.js';
import { readReport } from '../../../report/read-report.js';
import type { Store } from '../../../store/store.js';
import { createChainWatermark } from '../../../store/chain-watermark.js';
import { createReadGate } from '../../read-gate.js';
import type { UiDeps } from './view-types.js';
import { reportsView } from './reports-view.js';

const NOW = Date.parse('2026-11-30T00:00:00Z');
const MIN = 60_000;
const config: OncallConfig = { ...dailyShifts({ alice: { push: 'a' }, bob: { push: 'b' } }),
  policies: [{ id: 'default', steps: [{ notify: [{ kind: 'schedule', id: 'primary' }], afterMs: 5 * MIN }], repeat: 0, ackTimeoutMs: 0, onExhausted: [] }] };

describe('/ui/reports', () => {
  const shared = sharedSqliteStore('svc-reports-view-');
  const clock = fakeClock(NOW);
  let store: Store;
  let deps: UiDeps;
  before(async () => {
    store = await shared.fresh();
    const resolve = () => ({ nobodyOnCall: [], recipients: [{ person: 'alice', channel: 'push', to: 'a' }] });
    const source = { actor: 'agent:esc', by: 'source', via: 'source' as const };
    // Three pages of <Disk & "full">, two flapping; opened Friday 2026-11-27 around 23:00 in Berlin (sleep).
    for (const [i, after] of [[1, 2 * MIN], [2, 3 * MIN], [3, 40 * MIN]] as const) {
      const at = Date.parse('2026-11-27T22:00:00Z') + i * MIN;
      const opened = planOpen({ pageId: `pview000${i}`, agentId: 'esc', incidentKey: `k${i}`, policy: config.policies[0] as OncallConfig['policies'][number],
        policySha256: 'sha', nowMs: at, resolve, event: { id: `e${i}`, title: 'Disk', severity: 'P2', alertname: '<Disk & "full">' } });
      await store.oncall.applyPagePlan(opened, at);
      const done = planResolve(opened.page, source, null, null, at + after);
      assert.ok(done.ok && done.plan !== null);
      await store.oncall.applyPagePlan(done.plan, at + after);
    }
    const reports = { gate: createReadGate(1), sources: { store, configs: () => [{ agentId: 'esc', config }], channelTypes: () => new Map([['push', 'ntfy']]) } };
    deps = { store, gate: createReadGate(4), watermark: createChainWatermark(store, clock), snapshot: () => '{}', agents: () => ['esc'], reports,
      logPath: () => '/nonexistent', jsonLinks: true,
      oncall: { configs: reports.sources.configs, overrides: () => Promise.resolve([]), clock } };
  });
  after(() => shared.close());

  const view = async (query: string) => {
    const answer = await reportsView(deps, { url: new URL(`http://x/ui/reports${query}`), signal: new AbortController().signal, csrf: null, actingAs: null });
    assert.notEqual(answer.status, 0);
    return answer as Exclude<typeof answer, { status: 0 }>;
  };

  it('draws the numbers GET /report answers: SVG bars named by their <title>, each with its numbers beside it, names escaped', async () => {
    const answer = await view('?by=alert');
    assert.equal(answer.status, 200);
    const page = answer.body.text;
    const json = await readReport(deps.reports.sources, { sinceMs: NOW - 30 * 86_400_000, untilMs: NOW, agent: null, by: 'alert' });
    assert.equal(json.totals.pages, 3);
    assert.match(page, new RegExp(`<dt>Pages</dt><dd>${json.totals.pages} \\(acknowledged 0, resolved 3\\)</dd>`));
    assert.match(page, /<dt>Flapping<\/dt><dd>2 /);
    assert.match(page, /<dt>Interruptions<\/dt><dd>3 \(business hours 0, off hours 0, sleep 3\)<\/dd>/);
    assert.match(page, /<svg class="bar" role="img" viewBox="0 0 100 10" preserveAspectRatio="none" focusable="false"><title>alice: 3 interruptions, 0 in business hours, 0 off hours, 3 in sleep \(Europe\/Berlin\)<\/title><rect class="bar-sleep" x="0" y="0" width="100" height="10"><\/rect><\/svg><\/td><td class="num">3 \(0 business · 0 off hours · 3 sleep\)<\/td>/);
    assert.match(page, /<th scope="row">&lt;Disk &amp; &quot;full&quot;&gt;<\/th><td class="bar"><svg[^>]*><title>&lt;Disk &amp; &quot;full&quot;&gt;: 3 pages, 2 of them flapping<\/title>/);
    assert.match(page, /<td class="num">3 \(2 flapping\)<\/td>/);
    // Time to resolve: 2 m, 3 m, 40 m → p50 3m, p90 and max 40m; the longest bar is the whole width.
    assert.match(page, /<th scope="row">p50<\/th><td class="bar"><svg[^>]*><title>Time to resolve, p50: 3m<\/title><rect class="bar-time" x="0" y="0" width="7.5" height="10">/);
    assert.match(page, /<th scope="row">max<\/th><td class="bar"><svg[^>]*><title>Time to resolve, max: 40m<\/title><rect class="bar-time" x="0" y="0" width="100"/);
    assert.match(page, /<h2>By alert<\/h2>/);
    assert.doesNotMatch(page, /style=|<script|on[a-z]+=/i, 'nothing inline for the CSP to stop');
  });

  it('a refused value is named, and what was typed stays in the form', async () => {
    const answer = await view('?since=last+tuesday&by=person');
    assert.equal(answer.status, 400);
    assert.match(answer.body.text, /role="alert">invalid since: expected an ISO-8601 timestamp/);
    assert.match(answer.body.text, /name="since" value="last tuesday"/);
    assert.match(answer.body.text, /<option value="person" selected>person<\/option>/);
    assert.doesNotMatch(answer.body.text, /<figure/);
  });
});
