/**
 * What a report reads (contract §23, store/report-rows.ts), the same on every store: the pages opened in
 * the window (half-open, of one agent or all) with their alert names, and their audit rows of the page
 * kinds in seq order — an ack or resolve after the window included; other pages' rows, other kinds and
 * rows whose data is not JSON left out; the daemon's kept facts (report/report-cache.ts), folded a little
 * at a time as rows are appended, are what a whole read of the rows says; their checkpoint
 * (store/report-facts.ts) is saved whole or not at all, never over a newer one, and a cache started from
 * it says what the rows say. storeContract runs it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Policy } from '../../src/oncall/oncall-config.js';
import type { PagePlan, PageRecord } from '../../src/oncall/page.js';
import type { Actor, PageEvent, ResolveTargets } from '../../src/oncall/page-plan.js';
import { planAck, planOpen, planResolve, planTimer } from '../../src/oncall/page-plan.js';
import { FACTS_VERSION, pageFacts } from '../../src/report/page-facts.js';
import type { PageFacts } from '../../src/report/page-facts.js';
import { reportFactsCache } from '../../src/report/report-cache.js';
import type { FactsMark, FactsRow, ReportFactsStore } from '../../src/store/report-facts.js';
import { decodeFactsLines } from '../../src/store/report-facts.js';
import type { ReportAuditRow, ReportReads, ReportRows, ReportWindow } from '../../src/store/report-rows.js';
import type { Store } from '../../src/store/store.js';

const T0 = Date.UTC(2026, 2, 1);
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

const policy: Policy = {
  id: 'default', repeat: 0, ackTimeoutMs: 0, onExhausted: [],
  steps: [{ notify: [{ kind: 'person', id: 'alice' }], afterMs: MIN }, { notify: [{ kind: 'person', id: 'bob' }], afterMs: MIN }],
};
/** Each person on two channels. */
const resolve: ResolveTargets = (targets) => ({ nobodyOnCall: [],
  recipients: targets.flatMap((t) => ['push', 'mail'].map((channel) => ({ person: t.id, channel, to: t.id }))) });
const bob: Actor = { actor: 'cli:bob', by: 'bob', via: 'cli' };
const source: Actor = { actor: 'agent:agent-a', by: 'source', via: 'source' };

let n = 0;
function open(agentId: string, atMs: number, event: Partial<PageEvent> = {}): PagePlan {
  n += 1;
  return planOpen({ pageId: `preport${String(n).padStart(6, '0')}`, agentId, incidentKey: `report-${n}`, policy, policySha256: 'abc', nowMs: atMs, resolve,
    event: { id: `report-event-${n}`, title: 'Disk full', severity: 'P1', ...event } });
}

function must<T>(r: { ok: true; plan: T | null } | { ok: false; reason: string }): T {
  assert.ok(r.ok && r.plan !== null, 'planned');
  return r.plan;
}

async function apply(store: Store, plan: PagePlan, atMs: number): Promise<PageRecord> {
  assert.deepEqual(await store.oncall.applyPagePlan(plan, atMs), { ok: true });
  return plan.page;
}

type Brief = [string, string, string | null, string | null, string | null, string | null];
const brief = (rows: readonly ReportAuditRow[]): Brief[] => rows.map((r) => [r.kind, r.pageId, r.person, r.channel, r.reason, r.via]);
const window = (agent: string | null = null): { sinceMs: number; untilMs: number; agent: string | null } => ({ sinceMs: T0, untilMs: T0 + DAY, agent });

/** Everything a load hands over, and its mark. */
async function loaded(facts: ReportFactsStore): Promise<{ mark: FactsMark | null; rows: FactsRow[] }> {
  const rows: FactsRow[] = [];
  const mark = await facts.load((text) => decodeFactsLines(text, (r) => rows.push(r)));
  return { mark, rows: rows.sort((x, y) => x.pageId.localeCompare(y.pageId)) };
}

/** A store's report reads, noting whether the window's pages were read whole (a cache that folds every row does). */
function watched(reads: ReportReads): { reads: ReportReads; filled: () => boolean } {
  let filled = false;
  return { filled: () => filled, reads: { ...reads, pageLines: (w) => { filled = true; return reads.pageLines(w); } } };
}

export function reportStoreContract(name: string, openStore: () => Promise<Store>, tamper: (seq: number, dataText: string) => Promise<void>): void {
  describe(`${name}: what a report reads (§23)`, () => {
    it('the window\'s pages with their alert names, and their page rows in seq order, a resolve after the window included', async () => {
      const store = await openStore();
      // Opened before the window: its escalation inside it is not the window's.
      const before = await apply(store, open('agent-a', T0 - HOUR, { alertname: 'Early' }), T0 - HOUR);
      await apply(store, planTimer(before, T0 + MIN, resolve) as PagePlan, T0 + MIN);
      let a = await apply(store, open('agent-a', T0 + HOUR, { alertname: 'DiskFull' }), T0 + HOUR);
      a = await apply(store, planTimer(a, T0 + HOUR + MIN, resolve) as PagePlan, T0 + HOUR + MIN);
      a = await apply(store, must(planAck(a, bob, null, T0 + HOUR + 3 * MIN)), T0 + HOUR + 3 * MIN);
      const c = await apply(store, open('agent-b', T0 + 2 * HOUR), T0 + 2 * HOUR);
      await apply(store, open('agent-a', T0 + DAY, { alertname: 'Tomorrow' }), T0 + DAY);
      await apply(store, must(planResolve(a, source, null, null, T0 + DAY + HOUR)), T0 + DAY + HOUR);

      const all: ReportRows = await store.oncall.reportRows(window());
      assert.deepEqual(all.pages.sort((x, y) => x.id.localeCompare(y.id)), [
        { id: a.id, agentId: 'agent-a', policy: 'default', openedAtMs: T0 + HOUR, alertname: 'DiskFull' },
        { id: c.id, agentId: 'agent-b', policy: 'default', openedAtMs: T0 + 2 * HOUR, alertname: null },
      ]);
      assert.deepEqual(brief(all.rows), [
        ['page.notified', a.id, 'alice', 'push', null, null],
        ['page.notified', a.id, 'alice', 'mail', null, null],
        ['page.escalated', a.id, null, null, 'timeout', null],
        ['page.notified', a.id, 'bob', 'push', null, null],
        ['page.notified', a.id, 'bob', 'mail', null, null],
        ['page.acknowledged', a.id, null, null, null, 'cli'],
        // Everyone notified hears the ack (§24.1 status updates).
        ['page.notified', a.id, 'alice', 'push', null, null],
        ['page.notified', a.id, 'alice', 'mail', null, null],
        ['page.notified', a.id, 'bob', 'push', null, null],
        ['page.notified', a.id, 'bob', 'mail', null, null],
        ['page.notified', c.id, 'alice', 'push', null, null],
        ['page.notified', c.id, 'alice', 'mail', null, null],
        ['page.resolved', a.id, null, null, null, 'source'],
        ['page.notified', a.id, 'alice', 'push', null, null],
        ['page.notified', a.id, 'alice', 'mail', null, null],
        ['page.notified', a.id, 'bob', 'push', null, null],
        ['page.notified', a.id, 'bob', 'mail', null, null],
      ]);
      assert.deepEqual(all.rows.map((r) => r.tsMs), [T0 + HOUR, T0 + HOUR, ...Array<number>(3).fill(T0 + HOUR + MIN),
        ...Array<number>(5).fill(T0 + HOUR + 3 * MIN), T0 + 2 * HOUR, T0 + 2 * HOUR, ...Array<number>(5).fill(T0 + DAY + HOUR)]);
      assert.ok(all.rows.every((r, i) => i === 0 || r.seq > (all.rows[i - 1] as ReportAuditRow).seq), 'in seq order');
      // Each round says what it was for: a page's steps `escalation`, the notices of a state change its kind.
      assert.deepEqual(all.rows.filter((r) => r.kind === 'page.notified').map((r) => r.round), [
        ...Array<string>(4).fill('escalation'), ...Array<string>(4).fill('acknowledged'), 'escalation', 'escalation', ...Array<string>(4).fill('resolved')]);
      assert.ok(all.rows.every((r) => !r.shadow));

      const onlyB = await store.oncall.reportRows(window('agent-b'));
      assert.deepEqual([onlyB.pages.map((p) => p.id), brief(onlyB.rows).map((r) => r[1])], [[c.id], [c.id, c.id]]);
      assert.deepEqual(await store.oncall.reportRows({ sinceMs: T0 + 3 * DAY, untilMs: T0 + 4 * DAY, agent: null }), { pages: [], rows: [] });
    });

    it('a page opened before page.opened named its alert takes the name from its opening event while that is stored', async () => {
      const store = await openStore();
      const ingest = async (payload: unknown): Promise<string> => {
        const r = await store.ingestEvent({ agentId: 'agent-a', sourceId: 'am', kind: 'alert', fingerprint: null, payloadText: JSON.stringify(payload) }, T0);
        assert.equal(r.outcome, 'accepted');
        return r.outcome === 'accepted' ? r.event.id : '';
      };
      const common = await ingest({ commonLabels: { alertname: 'FromCommon' }, alerts: [{ labels: { alertname: 'Other' } }] });
      const first = await ingest({ alerts: [{ labels: { alertname: 'FromFirst\tAlert' } }, { labels: { alertname: 'Second' } }] });
      const named = [await apply(store, open('agent-a', T0 + MIN, { id: common }), T0 + MIN),
        await apply(store, open('agent-a', T0 + 2 * MIN, { id: first }), T0 + 2 * MIN),
        await apply(store, open('agent-a', T0 + 3 * MIN, { id: 'event-long-gone' }), T0 + 3 * MIN),
        await apply(store, open('agent-a', T0 + 4 * MIN, { alertname: 'Tab\there\nand there' }), T0 + 4 * MIN)];
      const { pages } = await store.oncall.reportRows(window());
      assert.deepEqual(named.map((p) => pages.find((x) => x.id === p.id)?.alertname),
        ['FromCommon', 'FromFirst Alert', null, 'Tab here and there']);
    });

    it('a round\'s own kind and a shadow round are read as written; a row whose data is not JSON is left out (SQLite; PostgreSQL refuses to hold one)', async () => {
      const store = await openStore();
      const a = await apply(store, open('agent-a', T0 + MIN, { alertname: 'X' }), T0 + MIN);
      await store.appendAudit({ kind: 'page.notified', actor: 'agent:agent-a', agentId: 'agent-a',
        data: { pageId: a.id, step: 1, loop: 0, person: 'alice', channel: 'push', deliveryId: `${a.id}.2.alice.push`, kind: 'status', rule: 1, shadow: true } }, T0 + 2 * MIN);
      await store.appendAudit({ kind: 'page.notified', actor: 'agent:agent-a', agentId: 'agent-a',
        data: { pageId: a.id, person: 'bob', channel: 'push', shadow: false, kind: 7 } }, T0 + 3 * MIN);
      const damaged = await store.appendAudit({ kind: 'page.notified', actor: 'agent:agent-a', agentId: 'agent-a',
        data: { pageId: a.id, person: 'carol', channel: 'push' } }, T0 + 4 * MIN);
      await store.appendAudit({ kind: 'page.acknowledged', actor: 'cli:bob', agentId: 'agent-a', data: { pageId: a.id, by: 'bob', via: 'console' } }, T0 + 5 * MIN);
      // PostgreSQL refuses the damage itself (its indexes over what a row names read the data as JSON, issue 33): the row stays as written.
      const refused = await tamper(damaged.seq, `{"pageId":"${a.id}","person":"carol",`).then(() => false, (err: unknown) => {
        assert.match(String(err), /invalid input syntax for type json/);
        return true;
      });
      const { rows } = await store.oncall.reportRows(window());
      assert.deepEqual(rows.map((r) => [r.kind, r.person, r.round, r.shadow, r.via]), [
        ['page.notified', 'alice', 'escalation', false, null],
        ['page.notified', 'alice', 'escalation', false, null],
        ['page.notified', 'alice', 'status', true, null],
        ['page.notified', 'bob', null, false, null],
        ...(refused ? [['page.notified', 'carol', null, false, null]] : []),
        ['page.acknowledged', null, null, false, 'console'],
      ]);
    });

    it('a checkpoint of the kept facts is saved whole and read back with its mark; a save behind the stored one is refused and leaves it whole', async () => {
      const store = await openStore();
      const facts = store.oncall.reportFacts;
      assert.deepEqual(await loaded(facts), { mark: null, rows: [] });
      const row = (pageId: string, openedAtMs: number, text: string): FactsRow => ({ pageId, openedAtMs, facts: text });
      const mark = (seq: number, version = FACTS_VERSION): FactsMark => ({ seq, version, writtenAtMs: T0 + seq });
      // Any text the fold writes is kept as it is: JSON with escapes of a tab and a line feed, and non-ASCII.
      const odd = JSON.stringify({ n: 'a\tb\nc', é: '✓' });
      assert.equal(await facts.save({ mark: mark(10), pages: [row('pa', T0, '{"a":1}'), row('pb', T0 + HOUR, odd), row('pc', T0 - DAY, '{}')],
        keepFromMs: T0 - 2 * DAY, full: true }), 'saved');
      assert.deepEqual(await loaded(facts), { mark: mark(10), rows: [row('pa', T0, '{"a":1}'), row('pb', T0 + HOUR, odd), row('pc', T0 - DAY, '{}')] });
      // Pages changed since: upserted; pages opened before the kept span: deleted; the others kept.
      assert.equal(await facts.save({ mark: mark(20), pages: [row('pb', T0 + HOUR, '{"b":2}'), row('pd', T0 + 2 * HOUR, '{"d":4}')],
        keepFromMs: T0 - HOUR, full: false }), 'saved');
      const newer = { mark: mark(20), rows: [row('pa', T0, '{"a":1}'), row('pb', T0 + HOUR, '{"b":2}'), row('pd', T0 + 2 * HOUR, '{"d":4}')] };
      assert.deepEqual(await loaded(facts), newer);
      // A replica behind (seq 15, or the same 20) writes nothing: not its pages, not its pruning, not its mark.
      for (const seq of [15, 20]) {
        assert.equal(await facts.save({ mark: mark(seq), pages: [row('pa', T0, '{"stale":true}'), row('pe', T0, '{}')], keepFromMs: T0 + DAY, full: true }),
          'behind');
      }
      assert.deepEqual(await loaded(facts), newer);
      // A part of another format is refused; the whole of it replaces the checkpoint.
      assert.equal(await facts.save({ mark: mark(30, FACTS_VERSION + 1), pages: [row('pa', T0, '[]')], keepFromMs: T0 - DAY, full: false }), 'other-version');
      assert.deepEqual(await loaded(facts), newer);
      assert.equal(await facts.save({ mark: mark(30, FACTS_VERSION + 1), pages: [row('pe', T0, '[]')], keepFromMs: T0 - DAY, full: true }), 'saved');
      assert.deepEqual(await loaded(facts), { mark: mark(30, FACTS_VERSION + 1), rows: [row('pe', T0, '[]')] });
    });

    it('a cache started from the checkpoint and caught up says what a fresh fold of the rows says; one of another version is ignored', async () => {
      const store = await openStore();
      const now = { now: () => T0 + 2 * DAY };
      const byId = (facts: Iterable<PageFacts>): PageFacts[] => [...facts].sort((x, y) => x.page.id.localeCompare(y.page.id));
      const fresh = async (): Promise<PageFacts[]> => byId(pageFacts(await store.oncall.reportRows(window())).values());
      let a = await apply(store, open('agent-a', T0 + HOUR, { alertname: 'DiskFull' }), T0 + HOUR);
      a = await apply(store, planTimer(a, T0 + HOUR + MIN, resolve) as PagePlan, T0 + HOUR + MIN);
      // An ack stands last before the checkpoint: its notices come after it (the fold's noticeSeq is kept across).
      a = await apply(store, must(planAck(a, bob, null, T0 + HOUR + 3 * MIN)), T0 + HOUR + 3 * MIN);
      const first = watched(store.oncall.reportReads);
      await reportFactsCache(first.reads, now, { checkpoints: store.oncall.reportFacts }).refresh();
      assert.ok(first.filled(), 'no checkpoint yet: the rows were folded');
      const saved = await loaded(store.oncall.reportFacts);
      assert.deepEqual([saved.mark?.version, saved.rows.map((r) => r.pageId)], [FACTS_VERSION, [a.id]]);

      const b = await apply(store, open('agent-b', T0 + 2 * HOUR), T0 + 2 * HOUR);
      await apply(store, must(planResolve(b, source, null, null, T0 + 2 * HOUR + MIN)), T0 + 2 * HOUR + MIN);
      await apply(store, must(planResolve(a, bob, null, null, T0 + DAY + HOUR)), T0 + DAY + HOUR);
      const second = watched(store.oncall.reportReads);
      const restarted = reportFactsCache(second.reads, now, { checkpoints: store.oncall.reportFacts });
      assert.deepEqual(byId(await restarted.windowFacts(window()) ?? []), await fresh());
      assert.equal(second.filled(), false, 'started from the checkpoint, only the rows after its mark folded');

      // Another version's checkpoint (its facts in a format this fold does not read) is not read: the rows are folded, then saved whole.
      const head = (saved.mark?.seq ?? 0) + 1_000;
      assert.equal(await store.oncall.reportFacts.save({ mark: { seq: head, version: FACTS_VERSION + 1, writtenAtMs: T0 }, full: true,
        pages: [{ pageId: a.id, openedAtMs: T0 + HOUR, facts: '["a format to come"]' }], keepFromMs: T0 }), 'saved');
      const third = watched(store.oncall.reportReads);
      const upgraded = reportFactsCache(third.reads, now, { checkpoints: store.oncall.reportFacts });
      assert.deepEqual(byId(await upgraded.windowFacts(window()) ?? []), await fresh());
      assert.ok(third.filled(), 'the rows were folded');
    });

    it('the kept facts, folded as rows are appended, are what a whole read and fold of the rows says', async () => {
      const store = await openStore();
      const cache = reportFactsCache(store.oncall.reportReads, { now: () => T0 + 2 * DAY });
      const byId = (facts: Iterable<PageFacts>): PageFacts[] => [...facts].sort((x, y) => x.page.id.localeCompare(y.page.id));
      const same = async (w: ReportWindow, pages: number): Promise<void> => {
        const kept = await cache.windowFacts(w);
        assert.ok(kept !== null, 'a window the cache keeps');
        assert.equal(kept.length, pages);
        assert.deepEqual(byId(kept), byId(pageFacts(await store.oncall.reportRows(w)).values()));
      };
      let a = await apply(store, open('agent-a', T0 + HOUR, { alertname: 'DiskFull' }), T0 + HOUR);
      await same(window(), 1);
      a = await apply(store, planTimer(a, T0 + HOUR + MIN, resolve) as PagePlan, T0 + HOUR + MIN);
      await same(window(), 1);
      a = await apply(store, must(planAck(a, bob, null, T0 + HOUR + 3 * MIN)), T0 + HOUR + 3 * MIN);
      const b = await apply(store, open('agent-b', T0 + 2 * HOUR), T0 + 2 * HOUR);
      await same(window(), 2);
      await apply(store, must(planResolve(b, source, null, null, T0 + 2 * HOUR + MIN)), T0 + 2 * HOUR + MIN);
      await apply(store, must(planResolve(a, bob, null, null, T0 + DAY + HOUR)), T0 + DAY + HOUR);
      await same(window(), 2);
      await same(window('agent-b'), 1);
      const facts = byId(await cache.windowFacts(window()) ?? []);
      assert.deepEqual(facts.map((f) => [f.page.alertname, f.ackMs, f.resolveMs, f.flapping, f.escalations.timeout, f.rounds.length]),
        [['DiskFull', 3 * MIN, DAY, false, 1, 4], [null, null, MIN, true, 0, 2]]);
    });
  });
}
