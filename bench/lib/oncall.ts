/**
 * On-call fixtures for the benches (contract §17–§18): a bench daemon with an oncall.yaml (and, when
 * asked, a `type: ack` and a `type: slack` source), pages written straight into its stopped store
 * through the store's own `applyPagePlan` (what the engine commits when a page opens), and the audit
 * trail read back for the checks.
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { loadOncall } from '../../src/oncall/load-oncall.js';
import { CHANNEL_TARGET } from '../../src/oncall/page.js';
import type { ResolveTargets } from '../../src/oncall/page-plan.js';
import { planOpen } from '../../src/oncall/page-plan.js';
import { policySha256 } from '../../src/oncall/policy-hash.js';
import { resolveAllTargets } from '../../src/oncall/targets.js';
import { newPageId } from '../../src/runtime/oncall/page-engine.js';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import type { BenchDaemon } from './daemon.js';
import { benchDaemon, freePort } from './daemon.js';
import { oncallYaml } from '../../test/support/oncall-yaml.js';

export const AGENT = 'oncall-escalator';
export const SLACK_USER = 'U0ALICE';

export interface OncallBenchDaemon extends BenchDaemon {
  /** http://127.0.0.1:<port>/ack/ when the daemon has an ack source. */
  ackBase: string | null;
  /** http://127.0.0.1:<port>/webhooks/slack-actions when it has a Slack interactivity source. */
  slackUrl: string | null;
  /** The PostgreSQL database the daemon's store is in; null: SQLite, the file in its home. */
  dbUrl: string | null;
}

/**
 * A bench daemon; with `oncall` its agent gets the oncall.yaml above; `ack` adds an ack-link source,
 * `slackApi` a slack channel at that (fake) Web API and a Slack interactivity source. The sources'
 * secrets are the webhook's HMAC key (what `d.secret` holds).
 */
export async function oncallDaemon(opts: { oncall?: { firstAfter: string; secondAfter: string }; ack?: boolean; slackApi?: string;
  dbUrl?: string }): Promise<OncallBenchDaemon> {
  const d = await benchDaemon(opts.dbUrl === undefined ? {} : { agentYaml: 'store:\n  kind: postgres\n  url: ${env:SVC_DATABASE_URL}' });
  if (opts.dbUrl !== undefined) d.env.SVC_DATABASE_URL = opts.dbUrl;
  // The page tests' oncall.yaml; alice has a Slack id when the agent has a slack channel.
  if (opts.oncall) {
    writeFileSync(join(d.dir, 'oncall.yaml'), oncallYaml(opts.oncall.firstAfter, opts.oncall.secondAfter, '',
      opts.slackApi === undefined ? '' : `slack-dm: ${SLACK_USER}`));
  }
  const sourcesFile = join(d.dir, 'event-sources.yaml');
  const secretRef = /secret: (\$\{secret:[^}]+\})/.exec(readFileSync(sourcesFile, 'utf8'))?.[1];
  if (secretRef === undefined) throw new Error('no secret reference in event-sources.yaml');
  let ackBase: string | null = null;
  let slackUrl: string | null = null;
  if (opts.ack) {
    const port = await freePort();
    appendFileSync(sourcesFile, `  - id: ack-links\n    type: ack\n    port: ${port}\n    secret: ${secretRef}\n`);
    ackBase = `http://127.0.0.1:${port}/ack/`;
  }
  if (opts.slackApi !== undefined) {
    const port = await freePort();
    appendFileSync(sourcesFile, `  - id: slack-actions\n    type: slack\n    port: ${port}\n    signingSecret: ${secretRef}\n`);
    appendFileSync(join(d.dir, 'channels.yaml'), ['  - id: slack-dm', '    type: slack', '    direction: outbound',
      '    token: ${env:SLACK_BOT_TOKEN}', '    user: U0ONCALL', `    apiUrl: ${opts.slackApi}`, ''].join('\n'));
    d.env.SLACK_BOT_TOKEN = 'xoxb-bench-0000000000-not-a-secret';
    slackUrl = `http://127.0.0.1:${port}/webhooks/slack-actions`;
  }
  return Object.assign(d, { ackBase, slackUrl, dbUrl: opts.dbUrl ?? null });
}

/** The daemon's store, opened from the bench (the daemon stopped, for SQLite). */
export function storeOf(d: OncallBenchDaemon): Promise<Store> {
  return d.dbUrl === null ? openSqliteStore({ path: join(d.home, 'svc.db') }) : openPostgresStore({ url: d.dbUrl });
}

/** The audit rows of one kind, through the store's own listing (either store), in seq order. */
export async function auditRowsOf(d: OncallBenchDaemon, kind: string): Promise<AuditLite[]> {
  const store = await storeOf(d);
  try {
    const rows: AuditLite[] = [];
    for (let cursor: string | null = null; ;) {
      const page = await store.listAudit({ limit: 1000, cursor, order: 'asc', sinceMs: null, untilMs: null }, { kind });
      for (const r of page.items) {
        const data = JSON.parse(r.dataText ?? '{}') as Record<string, unknown>;
        rows.push({ seq: r.seq, tsMs: Date.parse(r.ts), kind: r.kind, pageId: typeof data.pageId === 'string' ? data.pageId : null, data });
      }
      if (page.nextCursor === null) return rows;
      cursor = page.nextCursor;
    }
  } finally {
    await store.close();
  }
}

export interface PageWriter {
  /**
   * Opens one page per due time, each at step 1 with its next escalation due at that instant, as the
   * engine would have opened it one `after` earlier. The first round's notifications are left out
   * (they went out before the bench): the outbox starts empty, so what the daemon sends in the run is
   * what its timers fire. Returns the page ids in the given order.
   */
  open(dueAtMs: readonly number[]): Promise<string[]>;
  close(): Promise<void>;
}

/** Writes pages into the (stopped) daemon's store through the store's own applyPagePlan. */
export async function pageWriter(d: OncallBenchDaemon): Promise<PageWriter> {
  const config = loadOncall({ dir: d.dir, channels: [{ id: 'oncall-dm' }, { id: 'slack-dm' }], sources: [{ id: 'alertmanager' }, { id: 'ack-links' }, { id: 'slack-actions' }] },
    { env: d.env, home: d.home, nowMs: Date.now() });
  const policy = config?.policies.find((p) => p.id === 'default');
  if (config === null || policy === undefined) throw new Error('the bench daemon has no oncall.yaml');
  const resolve: ResolveTargets = (targets, atMs) => {
    const r = resolveAllTargets(config, targets, atMs, []);
    return { nobodyOnCall: r.nobodyOnCall,
      recipients: r.recipients.map((x) => ({ person: x.personId ?? CHANNEL_TARGET, channel: x.channelId, to: x.address })) };
  };
  const sha = policySha256(policy);
  const firstAfterMs = policy.steps[0]?.afterMs ?? 0;
  const store = await storeOf(d);
  let n = 0;
  return {
    async open(dueAtMs) {
      const ids: string[] = [];
      const BATCH = 500; // in flight at once: the writer thread commits them in groups
      for (let from = 0; from < dueAtMs.length; from += BATCH) {
        const batch = dueAtMs.slice(from, from + BATCH).map((due) => {
          n += 1;
          const p = planOpen({ pageId: newPageId(), agentId: AGENT, incidentKey: `bench/${n}`, policy, policySha256: sha,
            event: { id: `bench-event-${n}`, title: `bench page ${n}`, severity: 'P1' }, nowMs: due - firstAfterMs, resolve });
          ids.push(p.page.id);
          return store.oncall.applyPagePlan({ ...p, notifications: [], audit: p.audit.filter((a) => a.kind !== 'page.notified') }, Date.now());
        });
        for (const r of await Promise.all(batch)) if (!r.ok) throw new Error('a fixture page did not commit');
      }
      return ids;
    },
    close: () => store.close(),
  };
}

export interface AuditLite { seq: number; tsMs: number; kind: string; pageId: string | null; data: Record<string, unknown> }

/** The daemon's audit rows of these kinds, in seq order (read-only; WAL lets it read while the daemon writes). */
export function auditOf(d: BenchDaemon, kinds: readonly string[]): AuditLite[] {
  const db = new Database(join(d.home, 'svc.db'), { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare(`SELECT seq, ts, kind, data FROM audit WHERE kind IN (${kinds.map(() => '?').join(', ')}) ORDER BY seq`)
      .all(...kinds) as Array<{ seq: number; ts: string; kind: string; data: string }>;
    return rows.map((r) => {
      const data = JSON.parse(r.data) as Record<string, unknown>;
      return { seq: r.seq, tsMs: Date.parse(r.ts), kind: r.kind, pageId: typeof data.pageId === 'string' ? data.pageId : null, data };
    });
  } finally {
    db.close();
  }
}

/**
 * The §17.4 check, read from the audit trail: rows of `kinds` for a page written after that page's
 * `page.acknowledged` row (by seq: the chain's commit order). Zero is the contract. Not counted: the
 * ack's own notices — an ack tells the people already notified on channels that follow the page's
 * state (Slack updates its message, PagerDuty its incident; §18.4) in its own plan, whose
 * `page.notified` rows come right after the ack row (consecutive seqs), nor those notices' own
 * `message.delivered` rows (the same `deliveryId`). `rows` must hold the `page.acknowledged` and
 * `page.notified` rows for these to be told apart.
 */
export function afterAck(rows: readonly AuditLite[], kinds: readonly string[]): number {
  const ackSeq = new Map<string, number>();
  for (const r of rows) if (r.kind === 'page.acknowledged' && r.pageId !== null && !ackSeq.has(r.pageId)) ackSeq.set(r.pageId, r.seq);
  const ownNotice = new Set<AuditLite>();
  const ownDelivery = new Set<unknown>();
  const next = new Map(ackSeq); // page → the seq its ack's next own notice would have
  for (const r of rows) {
    if (r.kind !== 'page.notified' || r.pageId === null || next.get(r.pageId) !== r.seq - 1) continue;
    ownNotice.add(r);
    ownDelivery.add(r.data.deliveryId);
    next.set(r.pageId, r.seq);
  }
  const own = (r: AuditLite): boolean => ownNotice.has(r) || (r.kind === 'message.delivered' && ownDelivery.has(r.data.deliveryId));
  return rows.filter((r) => kinds.includes(r.kind) && r.pageId !== null && r.seq > (ackSeq.get(r.pageId) ?? Infinity) && !own(r)).length;
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
}

/** p50/p99 of a Prometheus histogram family from /metrics text: the upper bound of the bucket holding each. */
export function histogramQuantiles(metricsText: string, name: string): { count: number; p50: number; p99: number } {
  const buckets = new Map<number, number>();
  for (const line of metricsText.split('\n')) {
    const m = new RegExp(`^${name}_bucket\\{(?:.*,)?le="([^"]+)"(?:,.*)?\\} (\\S+)$`).exec(line);
    if (m) buckets.set(m[1] === '+Inf' ? Infinity : Number(m[1]), (buckets.get(m[1] === '+Inf' ? Infinity : Number(m[1])) ?? 0) + Number(m[2]));
  }
  const sorted = [...buckets.entries()].sort((a, b) => a[0] - b[0]);
  const count = sorted[sorted.length - 1]?.[1] ?? 0;
  const at = (q: number): number => sorted.find(([, c]) => c >= q * count)?.[0] ?? NaN;
  return { count, p50: at(0.5), p99: at(0.99) };
}
