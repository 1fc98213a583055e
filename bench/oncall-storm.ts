/**
 * A storm (contract §21.7, issue 34): 2,000 Alertmanager alerts in 10 s across 200 incident keys (each
 * key's group grows by one alert a second, as Alertmanager re-sends a growing group) into one real
 * daemon (the built CLI, SQLite, file channels `push` and `sms`). Step 1 of the policy pages alice
 * (through the schedule) and carol; with personal rules each is woken by `push` at once and `sms`
 * 10 s later (a later step, a durable timer of the page). The baseline is the same storm, same run,
 * to people without rules (every contact at once). The load comes from bench/lib/storm-sender.mjs in a
 * process of its own, open-loop; its schedule lag and CPU, and the same storm against a bare POST
 * server, show it is not the bottleneck. Halfway through the storm 50 of the pages opened first are
 * acknowledged through the admin socket (as `svc ack`), 8 at a time, while their alerts keep coming.
 *
 * Measured (from the file channels' lines, their `ts` written when the line is, and the audit trail):
 *   - first step: the first line of the page's opening round − the 202 of the first alert of its key;
 *   - join notices: per page and person, the most `page.notified` rows of kind `join` in any 60 s
 *     (the opening notice is kind `escalation`), and the shortest gap between two, audit and file;
 *   - after the ack: for the acked pages, `page.notified` rows after `page.acknowledged` (by seq) and
 *     file lines stamped after that row, by their kind — status updates (`acknowledged`, `resolved`,
 *     `escalated-past`, …, §21.1) are allowed; `escalation` (rounds and personal steps, which carry
 *     `rule`) and `join` are not;
 *   - later steps: the sms lines of pages not acked, − the step's due time (the page opened + 10 s).
 *
 *   npm run build && node --import tsx bench/oncall-storm.ts [tailSeconds=70]
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { adminRequest } from '../src/cli/admin-client.js';
import { homePaths } from '../src/config/paths.js';
import { systemClock } from '../src/core/clock.js';
import { signBody } from '../src/ingest/signature.js';
import { STATUS_UPDATE_KINDS } from '../src/report/page-facts.js';
import { fileChannels, oncallSkeleton } from '../test/support/oncall-yaml.js';
import type { BenchDaemon } from './lib/daemon.js';
import { bareServer, benchDaemon, r3 } from './lib/daemon.js';
import type { AuditLite } from './lib/oncall.js';
import { auditOf, percentile } from './lib/oncall.js';

const TAIL_S = Number(process.argv[2] ?? 70);
const KEYS = 200;
const ALERTS = 2_000;
const STORM_MS = 10_000;
const SPACING_MS = STORM_MS / ALERTS;
const ACKS = 50;
const ACK_AT_MS = STORM_MS / 2;
const SMS_AFTER_S = 10;
const SENDER = fileURLToPath(new URL('./lib/storm-sender.mjs', import.meta.url));
const note = (line: string): void => { process.stderr.write(`oncall-storm: ${line}\n`); };
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** alice (on call in `primary`) and carol at step 1, bob after an hour; with `rules`, push now and sms later. */
function stormYaml(rules: boolean): string {
  const person = (id: string): string => `{ id: ${id}, contacts: { push: ${id}, sms: ${id} }${rules
    ? `, notify: [{ after: 0m, via: [push] }, { after: ${SMS_AFTER_S}s, via: [sms] }]` : ''} }`;
  return oncallSkeleton({ people: ['alice', 'carol', 'bob'].map(person),
    policies: { default: ['{ notify: [schedule:primary, person:carol], after: 1h }', '{ notify: [person:bob], after: 1h }'] } });
}

interface Sent { plannedMs: number; sentMs: number; answeredMs: number; status: number; eventId: string | null }

/** The storm's requests: alert i belongs to key i mod 200, its group re-sent with every alert so far. */
function stormRequests(fixture: string, secret: string): Array<{ body: string; headers: Record<string, string> }> {
  const base = JSON.parse(fixture) as { alerts: Array<Record<string, unknown>> } & Record<string, unknown>;
  const template = base.alerts[0] ?? {};
  return Array.from({ length: ALERTS }, (_, i) => {
    const key = i % KEYS;
    const upTo = Math.floor(i / KEYS);
    const alerts = Array.from({ length: upTo + 1 }, (_, j) => ({ ...template,
      labels: { ...(template.labels as object), alertname: `Storm${key}`, instance: `storm-${key}-${j}:8080` },
      fingerprint: `${key.toString(16).padStart(8, '0')}${j.toString(16).padStart(8, '0')}`,
      startsAt: new Date(Date.UTC(2026, 10, 29, 3, 0, j)).toISOString() }));
    const body = JSON.stringify({ ...base, groupKey: `{}:{alertname="Storm${key}"}`, groupLabels: { alertname: `Storm${key}` }, alerts });
    return { body, headers: { 'Content-Type': 'application/json', 'X-Signature': signBody(secret, body) } };
  });
}

/** Runs the sender in its own process against `url`, starting `leadMs` from now. */
async function storm(url: string, requests: ReturnType<typeof stormRequests>, leadMs: number): Promise<{ sent: Sent[]; cpuMs: number; startAt: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-storm-'));
  const file = join(dir, 'requests.json');
  writeFileSync(file, JSON.stringify(requests));
  const startAt = Date.now() + leadMs;
  const child = spawn(process.execPath, [SENDER, url, file, String(SPACING_MS), String(startAt)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let text = '';
  child.stdout.on('data', (c: Buffer) => { text += c.toString(); });
  await new Promise<void>((resolve) => child.once('exit', () => resolve()));
  rmSync(dir, { recursive: true, force: true });
  const out = JSON.parse(text) as { results: Sent[]; cpuMs: number };
  return { sent: out.results, cpuMs: out.cpuMs, startAt };
}

const q = (xs: number[]): { p50: number; p99: number; max: number; n: number } =>
  ({ p50: percentile(xs, 50), p99: percentile(xs, 99), max: xs.length === 0 ? NaN : Math.max(...xs), n: xs.length });
const lateness = (sent: Sent[]): ReturnType<typeof q> => q(sent.map((s) => s.sentMs - s.plannedMs));

interface Line { ts: string; channel: string; pageId?: string; to: string; deliveryId: string; pageKind?: string }
const linesOf = (d: BenchDaemon, channel: string): Line[] => {
  try {
    return readFileSync(join(d.dir, 'out', `${channel}.jsonl`), 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Line);
  } catch {
    return [];
  }
};

/** Every audit row naming the event, in seq order (where one alert's time went). */
function eventRows(d: BenchDaemon, eventId: string): Array<{ kind: string; tsMs: number }> {
  const db = new Database(join(d.home, 'svc.db'), { readonly: true, fileMustExist: true });
  try {
    return (db.prepare(`SELECT ts, kind FROM audit WHERE data LIKE ? ORDER BY seq`).all(`%${eventId}%`) as Array<{ ts: string; kind: string }>)
      .map((r) => ({ kind: r.kind, tsMs: Date.parse(r.ts) }));
  } finally {
    db.close();
  }
}

/** The most of `times` (ms) inside any half-open 60 s window, and the shortest gap between two. */
function perMinute(times: number[]): { max: number; minGapMs: number } {
  const t = [...times].sort((a, b) => a - b);
  let max = 0;
  let minGapMs = Infinity;
  for (let i = 0, j = 0; i < t.length; i++) {
    while ((t[i] as number) - (t[j] as number) >= 60_000) j += 1;
    max = Math.max(max, i - j + 1);
    if (i > 0) minGapMs = Math.min(minGapMs, (t[i] as number) - (t[i - 1] as number));
  }
  return { max, minGapMs };
}

async function run(rules: boolean): Promise<Record<string, unknown>> {
  const d = await benchDaemon({ channelsYaml: fileChannels(['push', 'sms']) });
  try {
    writeFileSync(join(d.dir, 'oncall.yaml'), stormYaml(rules));
    const requests = stormRequests(readFileSync(join(d.dir, 'fixtures/mock-alert.json'), 'utf8'), d.secret);
    await d.start();
    const load0 = loadavg()[0] ?? 0;
    const storming = storm(d.ingestUrl, requests, 1_000);
    // Halfway: ack the 50 pages opened first, 8 at a time, as `svc ack` does.
    await sleep(1_000 + ACK_AT_MS);
    const opened = auditOf(d, ['page.opened']).slice(0, ACKS).map((r) => r.pageId as string);
    const socket = homePaths(d.home).adminSocket;
    const ackMs: number[] = [];
    let refused = 0;
    let next = 0;
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (next < opened.length) {
        const page = opened[next++] as string;
        const t = performance.now();
        const answer = await adminRequest(socket, { op: 'page.act', page, action: 'ack', user: 'bench', as: 'alice' }, { clock: systemClock, timeoutMs: 60_000 });
        ackMs.push(performance.now() - t);
        if (answer === null || !answer.ok) refused += 1;
      }
    }));
    const { sent, cpuMs, startAt } = await storming;
    note(`${rules ? 'rules' : 'baseline'}: storm sent, ${opened.length} acked; waiting ${TAIL_S} s from its start for deferred join notices and later steps`);
    await sleep(Math.max(0, startAt + TAIL_S * 1000 - Date.now()));
    const load1 = loadavg()[0] ?? 0;
    await d.stop();

    const rows = auditOf(d, ['page.opened', 'page.notified', 'page.acknowledged']);
    const lines = [...linesOf(d, 'push'), ...linesOf(d, 'sms')];
    const byEvent = new Map(sent.map((s) => [s.eventId, s]));
    const firstAnswer = new Map<string, number>(); // page → the 202 of its key's first alert
    for (const r of rows) if (r.kind === 'page.opened' && r.pageId !== null) firstAnswer.set(r.pageId, byEvent.get(r.data.eventId as string)?.answeredMs ?? NaN);
    const firstLine = new Map<string, number>();
    for (const l of lines) {
      if (l.pageId === undefined || !l.deliveryId.startsWith(`${l.pageId}.1.`)) continue;
      firstLine.set(l.pageId, Math.min(firstLine.get(l.pageId) ?? Infinity, Date.parse(l.ts)));
    }
    const firstStep = [...firstAnswer].map(([page, at]) => (firstLine.get(page) ?? NaN) - at);
    // Where the time goes: the page's commit and its first round's row (audit ts: the transaction's start) after the 202.
    const openedRow = new Map(rows.filter((r) => r.kind === 'page.opened').map((r) => [r.pageId, r.tsMs]));
    const roundOneRow = new Map<string | null, number>();
    for (const r of rows) if (r.kind === 'page.notified' && (r.data.deliveryId as string).startsWith(`${r.pageId}.1.`) && !roundOneRow.has(r.pageId)) roundOneRow.set(r.pageId, r.tsMs);
    const toOpened = [...firstAnswer].map(([page, at]) => (openedRow.get(page) ?? NaN) - at);
    const toNotified = [...firstAnswer].map(([page, at]) => (roundOneRow.get(page) ?? NaN) - at);

    // Join notices per page and person, by the round's audit row and by the file line.
    const joins = (times: Map<string, number[]>): { max: number; minGapMs: number; notices: number } => {
      let max = 0;
      let minGapMs = Infinity;
      let notices = 0;
      for (const ts of times.values()) {
        const m = perMinute(ts);
        max = Math.max(max, m.max);
        minGapMs = Math.min(minGapMs, m.minGapMs);
        notices += ts.length;
      }
      return { max, minGapMs: Number.isFinite(minGapMs) ? minGapMs : null as unknown as number, notices };
    };
    const group = (items: Array<{ key: string; ts: number }>): Map<string, number[]> => {
      const m = new Map<string, number[]>();
      for (const it of items) m.set(it.key, [...(m.get(it.key) ?? []), it.ts]);
      return m;
    };
    const joinRows = rows.filter((r) => r.kind === 'page.notified' && r.data.kind === 'join');
    // One person hears a join on each of their contacts: a notice is the round, per person.
    const joinRounds = new Map<string, AuditLite>();
    for (const r of joinRows) joinRounds.set(`${r.pageId}/${r.data.person as string}/${(r.data.deliveryId as string).split('.')[1]}`, r);
    const joinAudit = joins(group([...joinRounds.values()].map((r) => ({ key: `${r.pageId}/${r.data.person as string}`, ts: r.tsMs }))));
    const joinFile = joins(group(lines.filter((l) => l.pageKind === 'join' && l.channel === 'push')
      .map((l) => ({ key: `${l.pageId}/${l.to}`, ts: Date.parse(l.ts) }))));

    // The slowest page's first event, row by row: ms after its 202.
    const slowest = [...firstAnswer].sort((a, b) => ((firstLine.get(b[0]) ?? 0) - b[1]) - ((firstLine.get(a[0]) ?? 0) - a[1]))[0];
    const slowEvent = slowest === undefined ? undefined : rows.find((r) => r.kind === 'page.opened' && r.pageId === slowest[0])?.data.eventId as string;
    const slowStory = slowEvent === undefined || slowest === undefined ? [] : eventRows(d, slowEvent).map((r) => `${r.kind} +${r.tsMs - slowest[1]}`);

    // After the ack: rows and lines of the acked pages, by kind.
    const acked = new Map<string, AuditLite>();
    for (const r of rows) if (r.kind === 'page.acknowledged' && r.pageId !== null && !acked.has(r.pageId)) acked.set(r.pageId, r);
    const count = (kinds: Array<string | undefined>): Record<string, number> => {
      const out: Record<string, number> = {};
      for (const k of kinds) out[k ?? 'none'] = (out[k ?? 'none'] ?? 0) + 1;
      return out;
    };
    const rowsAfter = rows.filter((r) => r.kind === 'page.notified' && r.pageId !== null && r.seq > (acked.get(r.pageId)?.seq ?? Infinity));
    const linesAfter = lines.filter((l) => l.pageId !== undefined && Date.parse(l.ts) > (acked.get(l.pageId)?.tsMs ?? Infinity));
    const allowed = (k: string | undefined): boolean => (STATUS_UPDATE_KINDS as readonly string[]).includes(k ?? '');
    // Rounds and personal steps are kind `escalation`; join notices are counted apart (see performance.md).
    const stepsAfterAck = rowsAfter.filter((r) => r.data.kind === 'escalation').length;
    const linesNotAllowed = linesAfter.filter((l) => !allowed(l.pageKind) && l.pageKind !== 'join').length;

    // Later steps of pages not acked: the sms line − its due time (the page opened + 10 s; page.opened's ts is the plan's instant).
    const laterLag = lines.filter((l) => l.pageId !== undefined && !acked.has(l.pageId) && l.channel === 'sms' && l.pageKind === 'escalation'
      && !l.deliveryId.startsWith(`${l.pageId}.1.`))
      .map((l) => Date.parse(l.ts) - ((openedRow.get(l.pageId as string) ?? NaN) + SMS_AFTER_S * 1000));

    return {
      people: rules ? 'personal rules (push now, sms +10 s)' : 'no rules (push and sms at once)',
      accepted: sent.filter((s) => s.status === 202).length, pages: firstAnswer.size,
      answerMs: q(sent.map((s) => s.answeredMs - s.sentMs)), senderLatenessMs: lateness(sent), senderCpuMs: Math.round(cpuMs),
      firstStepMs: q(firstStep), pageOpenedRowMs: q(toOpened), roundOneRowMs: q(toNotified), firstStepMissing: firstStep.filter((x) => Number.isNaN(x)).length,
      joinNoticesPerMinute: { audit: joinAudit, file: joinFile },
      acks: { acked: acked.size, refused, p50Ms: r3(percentile(ackMs, 50)), p99Ms: r3(percentile(ackMs, 99)),
        notifiedAfterAck: count(rowsAfter.map((r) => r.data.kind as string)), linesAfterAck: count(linesAfter.map((l) => l.pageKind)),
        stepsAfterAck, linesNotAllowed, joinsAfterAck: { rows: rowsAfter.filter((r) => r.data.kind === 'join').length,
          lines: linesAfter.filter((l) => l.pageKind === 'join').length } },
      laterStepMs: q(laterLag), laterStepRowMs: q(rows.filter((r) => r.kind === 'page.notified' && r.data.rule === 1 && r.data.channel === 'sms')
        .map((r) => r.tsMs - ((openedRow.get(r.pageId) ?? NaN) + SMS_AFTER_S * 1000))),
      slowestFirstEvent: slowStory, load: [r3(load0), r3(load1)],
    };
  } finally {
    await d.stop();
    d.cleanup();
  }
}

// The generator alone: the same storm against a bare POST server in its own process.
const bare = await bareServer('post');
const ceiling = await storm(`${bare.url}/webhooks/alertmanager`, stormRequests(JSON.stringify({ version: '4', groupKey: 'x', status: 'firing', alerts: [{}] }), 'x'), 500);
await bare.stop();
const generator = { senderLatenessMs: lateness(ceiling.sent), answerMs: q(ceiling.sent.map((s) => s.answeredMs - s.sentMs)), cpuMs: Math.round(ceiling.cpuMs) };

const baseline = await run(false);
const withRules = await run(true);
const fs = (x: Record<string, unknown>): ReturnType<typeof q> => x.firstStepMs as ReturnType<typeof q>;
const result = { bench: 'oncall-storm', alerts: ALERTS, keys: KEYS, stormMs: STORM_MS, acks: ACKS, generator, baseline, withRules,
  firstStepP50Ratio: r3(fs(withRules).p50 / fs(baseline).p50), firstStepP99Ratio: r3(fs(withRules).p99 / fs(baseline).p99), targetP99Ms: 1000 };
process.stdout.write(`${JSON.stringify(result)}\n`);
const line = (name: string, x: Record<string, unknown>): string => {
  const f = fs(x);
  const j = (x.joinNoticesPerMinute as { audit: { max: number; minGapMs: number } }).audit;
  const a = x.acks as { acked: number; stepsAfterAck: number; linesNotAllowed: number; joinsAfterAck: unknown };
  const s = x.senderLatenessMs as ReturnType<typeof q>;
  return `${name}: first step p50/p99/max ${f.p50}/${f.p99}/${f.max} ms (target p99 ≤ 1000) over ${f.n} pages; join notices ≤ ${j.max} a minute per page and person `
    + `(shortest gap ${j.minGapMs} ms); ${a.acked} acked mid-storm, rounds or steps after the ack ${a.stepsAfterAck}, file lines of them after it ${a.linesNotAllowed} `
    + `(target 0), join notices after it ${JSON.stringify(a.joinsAfterAck)}; sender lateness p99 ${s.p99} ms; load ${(x.load as number[]).join('→')}`;
};
process.stdout.write(`oncall-storm: ${ALERTS} alerts over ${KEYS} keys in ${STORM_MS / 1000} s; generator against a bare server: lateness p99 `
  + `${generator.senderLatenessMs.p99} ms, answer p99 ${generator.answerMs.p99} ms\n${line('  baseline (no rules)', baseline)}\n${line('  personal rules', withRules)}\n`
  + `  first step with rules vs without: ${result.firstStepP50Ratio}× p50, ${result.firstStepP99Ratio}× p99\n`);
if (fs(withRules).p99 > 1000 || (withRules.acks as { stepsAfterAck: number }).stepsAfterAck > 0) process.exitCode = 1;
