/**
 * What a report (contract §23) reads from the store, the one rule for both stores: the pages opened in
 * a window, and the audit rows of the page kinds from the window's start on, as plain rows that the
 * pure aggregation (src/report/) turns into numbers.
 *
 * The rows cross from the database as text, one line per row with tab-separated fields, in chunks:
 * at 100,000 pages (≈700,000 such rows) handing each row over as a row of the driver cost about ten
 * times more than the query itself (better-sqlite3: ≈9 µs a row on a loaded host, against ≈2 µs for
 * the whole scan and one text). Each store builds the line with its own SQL (`reportLineSql`), SQLite
 * out of an index on that very expression (no JSON is parsed when reading), PostgreSQL as it reads;
 * `reportLineOf` is the same line built in JavaScript, for rows PostgreSQL cannot parse. Every text
 * field has tab, line feed and carriage return replaced by spaces, so a line is always one row.
 */
import { alertNameOf } from '../oncall/label-name.js';

/** Pages opened in [sinceMs, untilMs) — of one agent, or of all when `agent` is null. */
export interface ReportWindow {
  sinceMs: number;
  untilMs: number;
  agent: string | null;
}

/** A page as a report sees it. */
export interface ReportPage {
  id: string;
  agentId: string;
  /** The policy it opened under. */
  policy: string;
  openedAtMs: number;
  /** The `alertname` label of the event that opened it; null when that event had none (or is gone). */
  alertname: string | null;
}

/** The audit kinds a report reads (§17.10). */
export const REPORT_AUDIT_KINDS = ['page.opened', 'page.notified', 'page.acknowledged', 'page.unacknowledged', 'page.resolved',
  'page.escalated', 'page.exhausted'] as const;
export type ReportAuditKind = (typeof REPORT_AUDIT_KINDS)[number];

/** One audit row of a page, with the fields of its data a report uses (absent ones null). */
export interface ReportAuditRow {
  seq: number;
  tsMs: number;
  kind: Exclude<ReportAuditKind, 'page.opened'>;
  pageId: string;
  /** page.notified: the person (`-` for a channel target) and the channel. */
  person: string | null;
  channel: string | null;
  /** page.escalated (`timeout` | `manual`) and page.unacknowledged (`ack-timeout` | `manual`). */
  reason: string | null;
  /** page.resolved and page.acknowledged: through what (`source`, `cli`, …). */
  via: string | null;
  /** page.notified: what the round was for (data `kind`), when the row says so. */
  round: string | null;
  /** page.notified in a shadow run (§22.3): recorded, sent to nobody. */
  shadow: boolean;
}

export interface ReportRows {
  pages: ReportPage[];
  /** The rows of those pages, in seq order. */
  rows: ReportAuditRow[];
}

/**
 * What a store reads for a report; `readReportRows` puts it together. Lines are in the formats below,
 * one per row, joined by `\n`.
 */
export interface ReportReads {
  /** `id \t agentId \t policy \t openedAtMs` of each page of the window. */
  pageLines(window: ReportWindow): Promise<string>;
  /** The same lines of these pages (those stored), whenever they opened. */
  pageLinesOf(ids: readonly string[]): Promise<string>;
  /** The seq of the first audit row at or after `sinceMs` (audit ts never goes back as seq grows); null when none. */
  firstSeqSince(sinceMs: number): Promise<number | null>;
  /** Up to `limit` report lines of the rows of REPORT_AUDIT_KINDS with seq > afterSeq, in seq order, and the last seq read. */
  auditLines(afterSeq: number, limit: number): Promise<{ text: string; lastSeq: number | null }>;
  /** The payload texts of these events (those still stored). */
  eventPayloads(ids: readonly string[]): Promise<Array<{ id: string; payloadText: string }>>;
}

/** Audit rows per read: a bounded answer, and other reads get their turn between chunks. */
export const REPORT_CHUNK_ROWS = 50_000;
/** Events looked up per read, for pages opened before page.opened carried the alert name. */
const PAYLOAD_LOOKUPS = 500;

/** The fields of an audit line, in order: `reportLineSql` and `reportLineOf` build exactly these. */
const LINE_FIELDS = ['seq', 'tsMs', 'kind', 'pageId', 'person', 'channel', 'reason', 'via', 'round', 'shadow', 'alertname', 'eventId'] as const;
/** The data fields of LINE_FIELDS 3..8 (`round` is data's `kind`), read as text: a value that is not a string is ''. */
const TEXT_FIELDS = ['pageId', 'person', 'channel', 'reason', 'via', 'kind'] as const;

export type SqlDialect = 'sqlite' | 'postgres';

/**
 * The SQL of an audit row's report line over the columns `seq`, `ts_ms`, `kind` and `data` (as JSON:
 * SQLite's `data`, PostgreSQL's `d`, the row's data cast to json). SQLite's index (sqlite/report-schema.ts)
 * is built on exactly this text: a change to it needs a migration that builds that index again.
 */
export function reportLineSql(dialect: SqlDialect): string {
  const tab = dialect === 'sqlite' ? 'char(9)' : `E'\\t'`;
  const clean = (sql: string): string => (dialect === 'sqlite'
    ? `replace(replace(replace(${sql}, char(9), ' '), char(10), ' '), char(13), ' ')` : `translate(${sql}, E'\\t\\n\\r', '   ')`);
  const text = (field: string): string => (dialect === 'sqlite'
    ? `CASE WHEN json_type(data, '$.${field}') = 'text' THEN ${clean(`json_extract(data, '$.${field}')`)} ELSE '' END`
    : `CASE WHEN json_typeof(d -> '${field}') = 'string' THEN ${clean(`d ->> '${field}'`)} ELSE '' END`);
  const shadow = dialect === 'sqlite' ? `CASE WHEN json_type(data, '$.shadow') = 'true' THEN 'true' ELSE '' END`
    : `CASE WHEN json_typeof(d -> 'shadow') = 'boolean' AND (d ->> 'shadow') = 'true' THEN 'true' ELSE '' END`;
  const parts = [
    dialect === 'sqlite' ? 'seq' : 'seq::text', dialect === 'sqlite' ? 'ts_ms' : 'ts_ms::text', 'kind',
    ...TEXT_FIELDS.map(text), shadow, text('alertname'), text('eventId'),
  ];
  return parts.join(` || ${tab} || `);
}

/** `kind IN (…)` of the report's audit kinds. */
export const REPORT_KINDS_SQL = `kind IN (${REPORT_AUDIT_KINDS.map((k) => `'${k}'`).join(', ')})`;

const clean = (value: unknown): string => (typeof value === 'string' ? value.replace(/[\t\n\r]/g, ' ') : '');

/**
 * The report line of a row whose data text PostgreSQL could not read as JSON, built as the SQL
 * builds it; null when the data is not a JSON object at all (the row is left out, as SQLite leaves it).
 */
export function reportLineOf(seq: number, tsMs: number, kind: string, dataText: string): string | null {
  let data: unknown;
  try {
    data = JSON.parse(dataText);
  } catch {
    return null;
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return null;
  const d = data as Record<string, unknown>;
  return [String(seq), String(tsMs), kind, ...TEXT_FIELDS.map((f) => clean(d[f])), d.shadow === true ? 'true' : '', clean(d.alertname),
    clean(d.eventId)].join('\t');
}

/** What a page's page.opened row says of its alert. */
export interface Opened { alertname: string | null; eventId: string | null }

const FIELD_COUNT = LINE_FIELDS.length;
/** Each field's index in LINE_FIELDS. */
const F = Object.fromEntries(LINE_FIELDS.map((name, i) => [name, i])) as Record<(typeof LINE_FIELDS)[number], number>;

/**
 * Where each field of the line at [start, end) starts (`cut[i]`; `cut[FIELD_COUNT]` is one past the
 * line's end): false when it has not exactly FIELD_COUNT fields. Offsets, not substrings: at 700,000
 * lines, slicing every field was most of a report's time in JavaScript.
 */
function cutLine(text: string, start: number, end: number, cut: Int32Array): boolean {
  let from = start;
  cut[0] = start;
  for (let i = 1; i < FIELD_COUNT; i++) {
    const tab = text.indexOf('\t', from);
    if (tab === -1 || tab >= end) return false;
    from = tab + 1;
    cut[i] = from;
  }
  const extra = text.indexOf('\t', from);
  if (extra !== -1 && extra < end) return false;
  cut[FIELD_COUNT] = end + 1;
  return true;
}

/**
 * Splits audit lines: page.opened rows (the first of each page) into `opened`, the others into
 * `rows`. Lines of pages `keep` refuses, of other kinds, or malformed, are skipped.
 */
export function decodeAuditLines(text: string, keep: (pageId: string) => boolean, opened: Map<string, Opened>, rows: ReportAuditRow[]): void {
  const cut = new Int32Array(FIELD_COUNT + 1);
  const at = (i: number): number => cut[i] as number;
  const field = (i: number): string | null => (at(i + 1) - 1 > at(i) ? text.slice(at(i), at(i + 1) - 1) : null);
  const is = (i: number, value: string): boolean => at(i + 1) - 1 - at(i) === value.length && text.startsWith(value, at(i));
  for (let start = 0; start < text.length;) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const whole = cutLine(text, start, end, cut);
    start = end + 1;
    if (!whole) continue;
    const pageId = field(F.pageId);
    if (pageId === null || !keep(pageId)) continue;
    if (is(F.kind, 'page.opened')) {
      if (!opened.has(pageId)) opened.set(pageId, { alertname: field(F.alertname), eventId: field(F.eventId) });
      continue;
    }
    const kind = REPORT_AUDIT_KINDS.find((k) => is(F.kind, k));
    if (kind === undefined || kind === 'page.opened') continue;
    const notified = kind === 'page.notified';
    rows.push({ seq: Number(field(F.seq)), tsMs: Number(field(F.tsMs)), kind, pageId, person: notified ? field(F.person) : null,
      channel: notified ? field(F.channel) : null, reason: field(F.reason), via: field(F.via), round: notified ? field(F.round) : null,
      shadow: is(F.shadow, 'true') });
  }
}

/** Pages of `pageLines` / `pageLinesOf` lines, by id. */
export function decodePageLines(text: string): Map<string, ReportPage> {
  const pages = new Map<string, ReportPage>();
  if (text === '') return pages;
  for (const line of text.split('\n')) {
    const [id, agentId, policy, opened] = line.split('\t');
    if (id === undefined || agentId === undefined || policy === undefined || opened === undefined) continue;
    pages.set(id, { id, agentId, policy, openedAtMs: Number(opened), alertname: null });
  }
  return pages;
}

/**
 * A report's rows, read through a store's `ReportReads`: the window's pages; the rows of the page
 * kinds from the window's start to the head (a page belongs to the window it opened in, §23.2: its
 * ack or resolve after the window still counts), those of other pages left out; each page's alert
 * name from its page.opened row, or — for pages opened before that row carried it — from the
 * opening event's payload while it is stored (oncall/label-name.ts `alertNameOf`, the rule the page
 * engine writes with).
 */
export async function readReportRows(reads: ReportReads, window: ReportWindow): Promise<ReportRows> {
  const pages = decodePageLines(await reads.pageLines(window));
  const rows: ReportAuditRow[] = [];
  if (pages.size === 0) return { pages: [], rows };
  const first = await reads.firstSeqSince(window.sinceMs);
  const opened = new Map<string, Opened>();
  const keep = (pageId: string): boolean => pages.has(pageId);
  for (let after = (first ?? Infinity) - 1; Number.isFinite(after);) {
    const chunk = await reads.auditLines(after, REPORT_CHUNK_ROWS);
    decodeAuditLines(chunk.text, keep, opened, rows);
    if (chunk.lastSeq === null) break;
    after = chunk.lastSeq;
  }
  // Each chunk comes in seq order; the aggregation folds a page's rows in that order.
  if (rows.some((r, i) => i > 0 && r.seq < (rows[i - 1] as ReportAuditRow).seq)) rows.sort((a, b) => a.seq - b.seq);
  await nameAlerts(reads, opened, pages);
  return { pages: [...pages.values()], rows };
}

/**
 * Sets each page's alert name from its page.opened row, or — for pages opened before that row
 * carried it — from the opening event's payload while it is stored (oncall/label-name.ts
 * `alertNameOf`, the rule the page engine writes with). Pages not in `pages` are left out.
 */
export async function nameAlerts(reads: Pick<ReportReads, 'eventPayloads'>, opened: ReadonlyMap<string, Opened>,
  pages: ReadonlyMap<string, ReportPage>): Promise<void> {
  const lookups = new Map<string, string[]>();
  for (const [pageId, o] of opened) {
    const page = pages.get(pageId);
    if (page === undefined) continue;
    if (o.alertname !== null) page.alertname = o.alertname;
    else if (o.eventId !== null) lookups.set(o.eventId, [...(lookups.get(o.eventId) ?? []), pageId]);
  }
  const ids = [...lookups.keys()];
  for (let i = 0; i < ids.length; i += PAYLOAD_LOOKUPS) {
    for (const { id, payloadText } of await reads.eventPayloads(ids.slice(i, i + PAYLOAD_LOOKUPS))) {
      let payload: unknown;
      try {
        payload = JSON.parse(payloadText);
      } catch {
        payload = null;
      }
      const name = alertNameOf(payload);
      for (const pageId of lookups.get(id) ?? []) (pages.get(pageId) as ReportPage).alertname = name;
    }
  }
}
