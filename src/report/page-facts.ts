/**
 * What happened to each page of a report's window, folded from its audit rows in seq order (contract
 * §23): when it was first acknowledged and first resolved, its escalations, whether it was exhausted or
 * flapped, and the page rounds that reached a person.
 *
 * A page round is a `page.notified` row that is not a status update. A row that says what its round
 * was for (data `kind`) is a status update when that is one of STATUS_UPDATE_KINDS. Rows written before
 * rounds said so are told apart by where they stand: the rows of one plan are consecutive in the chain
 * (both stores append a plan's rows together), so the `page.notified` rows right after a
 * `page.acknowledged`, a `page.resolved` or a manual `page.unacknowledged` of the same page — seq
 * following seq — are that change's notices (page-plan.ts planAck, planResolve, planUnack); the rounds
 * of an ack timeout (reason `ack-timeout`) page again and count. Shadow rounds (§22.3) reached nobody.
 */
import type { NotificationKind } from '../oncall/page.js';
import { CHANNEL_TARGET } from '../oncall/page.js';
import type { ReportAuditRow, ReportPage, ReportRows } from '../store/report-rows.js';

/** Resolved by the source this soon after opening, never acknowledged before: flapping (§23.1). */
export const FLAPPING_MS = 5 * 60_000;

/** What a round that tells of a state change says it is for (page.ts NotificationKind). */
export const STATUS_UPDATE_KINDS: readonly NotificationKind[] = ['acknowledged', 'unacknowledged', 'resolved', 'escalated-past',
  'joined-acked'];

/** A page round that reached a person, on any channel (which ones wake is the aggregation's question). */
export interface Round {
  person: string;
  channel: string;
  tsMs: number;
}

export interface PageFacts {
  page: ReportPage;
  /** Opening → first acknowledgement, ms; null when never acknowledged. */
  ackMs: number | null;
  /** Opening → first resolve, ms; null when not resolved. */
  resolveMs: number | null;
  escalations: { timeout: number; manual: number };
  exhausted: boolean;
  flapping: boolean;
  rounds: Round[];
  /** The time of its last row read (not its page.opened row); -Infinity before any. */
  lastTsMs: number;
}

/** A page's facts with the fold's own state: what it needs to go on folding (a checkpoint keeps it whole). */
export interface Folding extends PageFacts {
  /** The seq a status notice of the state change just seen would have; -1 after any other row. */
  noticeSeq: number;
}

function isStateChange(row: ReportAuditRow): boolean {
  return row.kind === 'page.acknowledged' || row.kind === 'page.resolved' || (row.kind === 'page.unacknowledged' && row.reason === 'manual');
}

function isStatusUpdate(row: ReportAuditRow, page: Folding): boolean {
  if (row.round !== null) return (STATUS_UPDATE_KINDS as readonly string[]).includes(row.round);
  return row.seq === page.noticeSeq;
}

function fold(f: Folding, row: ReportAuditRow): void {
  if (row.tsMs > f.lastTsMs) f.lastTsMs = row.tsMs;
  const sinceOpen = row.tsMs - f.page.openedAtMs;
  switch (row.kind) {
    case 'page.notified': {
      const notice = isStatusUpdate(row, f);
      f.noticeSeq = row.seq === f.noticeSeq ? row.seq + 1 : -1;
      if (!notice && !row.shadow && row.person !== null && row.person !== CHANNEL_TARGET && row.channel !== null) {
        f.rounds.push({ person: row.person, channel: row.channel, tsMs: row.tsMs });
      }
      return;
    }
    case 'page.acknowledged':
      f.ackMs ??= sinceOpen;
      break;
    case 'page.resolved':
      if (f.resolveMs === null) {
        f.resolveMs = sinceOpen;
        f.flapping = row.via === 'source' && f.ackMs === null && sinceOpen <= FLAPPING_MS;
      }
      break;
    case 'page.escalated':
      if (row.reason === 'timeout') f.escalations.timeout += 1;
      else if (row.reason === 'manual') f.escalations.manual += 1;
      break;
    case 'page.exhausted':
      f.exhausted = true;
      break;
    case 'page.unacknowledged':
      break;
  }
  f.noticeSeq = isStateChange(row) ? row.seq + 1 : -1;
}

/**
 * Pages' facts folded row by row, as the rows come (in seq order): a report's one read folds a
 * window's rows once; report-cache.ts keeps folding the rows appended since its last read.
 */
export interface FactsFolder {
  /** Starts a page's facts; a page already added is kept as it is. */
  addPage(page: ReportPage): void;
  has(pageId: string): boolean;
  /** Folds a row into its page's facts; a row of a page not added is left out. */
  fold(row: ReportAuditRow): void;
  /** Every page added, with what its rows said so far (live objects: later folds change them). */
  facts(): ReadonlyMap<string, PageFacts>;
  /** Forgets a page (the cache lets pages go once no window can hold them). */
  remove(pageId: string): void;
  /** Takes a page's facts as a checkpoint kept them (decodeFolding), in place of any it had. */
  restore(folding: Folding): void;
  /** A page's facts with the fold's state, to checkpoint (encodeFolding). */
  folding(pageId: string): Folding | undefined;
}

export function factsFolder(): FactsFolder {
  const facts = new Map<string, Folding>();
  return {
    addPage(page) {
      if (facts.has(page.id)) return;
      facts.set(page.id, { page, ackMs: null, resolveMs: null, escalations: { timeout: 0, manual: 0 }, exhausted: false, flapping: false, rounds: [],
        lastTsMs: -Infinity, noticeSeq: -1 });
    },
    has: (pageId) => facts.has(pageId),
    fold(row) {
      const f = facts.get(row.pageId);
      if (f !== undefined) fold(f, row);
    },
    facts: () => facts,
    remove: (pageId) => { facts.delete(pageId); },
    restore: (folding) => { facts.set(folding.page.id, folding); },
    folding: (pageId) => facts.get(pageId),
  };
}

/** Each page of the window with what its rows say (rows in seq order, as the store reads them). */
export function pageFacts(input: ReportRows): ReadonlyMap<string, PageFacts> {
  const folder = factsFolder();
  for (const page of input.pages) folder.addPage(page);
  for (const row of input.rows) folder.fold(row);
  return folder.facts();
}

/**
 * The format of encodeFolding: a checkpoint of another version is not read (report-cache.ts folds the
 * rows instead). Raise it with any change to what the fold keeps or means.
 */
export const FACTS_VERSION = 1;

/**
 * A page's folded facts as one JSON text (short keys: 100,000 of them are saved at once), with
 * `named`: whether its page.opened row was read (its alert name taken; a later one is a reopen).
 */
export function encodeFolding(f: Folding, named: boolean): string {
  const p = f.page;
  return JSON.stringify({ a: p.agentId, p: p.policy, n: p.alertname, k: f.ackMs, r: f.resolveMs, e: [f.escalations.timeout, f.escalations.manual],
    x: f.exhausted, f: f.flapping, o: f.rounds.map((r) => [r.person, r.channel, r.tsMs]), l: Number.isFinite(f.lastTsMs) ? f.lastTsMs : null,
    s: f.noticeSeq, m: named });
}

const isInt = (v: unknown): v is number => Number.isSafeInteger(v);
const intOrNull = (v: unknown): v is number | null => v === null || isInt(v);
const isRound = (v: unknown): v is [string, string, number] =>
  Array.isArray(v) && v.length === 3 && typeof v[0] === 'string' && typeof v[1] === 'string' && isInt(v[2]);

/** encodeFolding's text back, for the page with this id and opening time; null when any field is not what it wrote (the page is folded afresh). */
export function decodeFolding(pageId: string, openedAtMs: number, text: string): { folding: Folding; named: boolean } | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v) || !isInt(openedAtMs)) return null;
  const o = v as Record<string, unknown>;
  const { a, p, n, k, r, e, x, f, o: rounds, l, s, m } = o;
  if (typeof a !== 'string' || typeof p !== 'string' || (n !== null && typeof n !== 'string') || !intOrNull(k) || !intOrNull(r)
    || !Array.isArray(e) || e.length !== 2 || !isInt(e[0]) || !isInt(e[1]) || typeof x !== 'boolean' || typeof f !== 'boolean'
    || !Array.isArray(rounds) || !rounds.every(isRound) || !intOrNull(l) || !isInt(s) || typeof m !== 'boolean') return null;
  return { named: m, folding: { page: { id: pageId, agentId: a, policy: p, openedAtMs, alertname: n }, ackMs: k, resolveMs: r,
    escalations: { timeout: e[0], manual: e[1] }, exhausted: x, flapping: f, rounds: rounds.map(([person, channel, tsMs]) => ({ person, channel, tsMs })),
    lastTsMs: l ?? -Infinity, noticeSeq: s } };
}
