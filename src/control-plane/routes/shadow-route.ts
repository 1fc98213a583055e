/**
 * `GET /shadow[?since=T][&until=T][&agent=A]` (contract §22.3): per alert, who a shadow run would have
 * notified, when and through what (shadow-report.ts), read-only like every view. The answer:
 * `{"since", "until", "shadowAgents", "truncated", "items": [alert…], "people": [{"agentId", "id", "name",
 * "login"}]}` — `shadowAgents` the agents in a shadow run now, `truncated` true when the window held
 * more than MAX_ROWS shadowed messages (the oldest are listed; narrow the window), `people` everyone of
 * the agents' oncall.yaml (how `--compare` knows the old pager's users). A turn at the read gate, like
 * the paginated views.
 */
import { isoTs } from '../../core/clock.js';
import { errorText } from '../../core/errors.js';
import type { OncallConfig } from '../../oncall/oncall-config.js';
import type { PageRecord } from '../../oncall/page.js';
import type { Store } from '../../store/store.js';
import { isDamagedPage } from '../../store/oncall-store.js';
import { sendError, sendJson } from '../http-json.js';
import type { QueryResult } from '../query.js';
import { paramLabel, parseFilterParam, parseTimeParam, singleParam } from '../query.js';
import type { ReadGate } from '../read-gate.js';
import { takeTurn } from '../read-gate.js';
import type { RouteHandler } from '../route.js';
import type { ShadowRow, ShadowSources } from '../shadow-report.js';
import { shadowAlerts } from '../shadow-report.js';
import type { Report } from './view-route.js';

/** Shadowed messages one answer reads at most: a week of a busy team's pages, in a bounded answer. */
export const MAX_ROWS = 10_000;
const CHUNK = 1_000;

export interface ShadowRouteDeps {
  store: Store;
  gate: ReadGate;
  report: Report;
  /** The agents' oncall.yaml (people's names and logins, `incidents.key`). */
  configs: () => ReadonlyArray<{ agentId: string; config: OncallConfig }>;
  /** The agents in a shadow run now. */
  shadowAgents: () => readonly string[];
}

interface ShadowQuery { sinceMs: number | null; untilMs: number | null; agent: string | null }

const KNOWN = ['since', 'until', 'agent'];

export function parseShadowQuery(params: URLSearchParams): QueryResult<ShadowQuery> {
  const q: ShadowQuery = { sinceMs: null, untilMs: null, agent: null };
  for (const name of new Set(params.keys())) {
    if (!KNOWN.includes(name)) return { ok: false, error: `invalid ${paramLabel(name)}: unknown parameter (expected ${KNOWN.join(', ')})` };
    const single = singleParam(params, name);
    if (!single.ok) return single;
    const raw = single.value ?? '';
    const parsed = name === 'agent' ? parseFilterParam(name, raw) : parseTimeParam(name, raw);
    if (!parsed.ok) return parsed;
    if (name === 'agent') q.agent = parsed.value as string;
    else if (name === 'since') q.sinceMs = parsed.value as number;
    else q.untilMs = parsed.value as number;
  }
  if (q.sinceMs !== null && q.untilMs !== null && q.untilMs < q.sinceMs) return { ok: false, error: 'invalid until: earlier than since' };
  return { ok: true, value: q };
}

export function createShadowRoute(deps: ShadowRouteDeps): RouteHandler {
  return async ({ req, res, url, signal }) => {
    const parsed = parseShadowQuery(url.searchParams);
    if (!parsed.ok) return sendError(req, res, 400, parsed.error);
    const q = parsed.value;
    const leave = await takeTurn(deps.gate, signal);
    if (leave === null) return undefined;
    res.once('close', leave);
    try {
      const { store } = deps;
      const rows: ShadowRow[] = [];
      let cursor: string | null = null;
      let truncated = false;
      do {
        const page = await store.listAudit({ limit: CHUNK, cursor, order: 'asc', sinceMs: q.sinceMs, untilMs: q.untilMs },
          { kind: 'message.shadowed', ...(q.agent === null ? {} : { agent: q.agent }) });
        for (const r of page.items) {
          if (r.dataText === null || r.agentId === null) continue; // a corrupt row names no message
          if (rows.length === MAX_ROWS) {
            truncated = true;
            break;
          }
          rows.push({ tsMs: Date.parse(r.ts), agentId: r.agentId, data: JSON.parse(r.dataText) as Record<string, unknown> });
        }
        cursor = page.nextCursor;
      } while (cursor !== null && !truncated && !signal.aborted);
      // What the rows point at, each read once.
      const pages = new Map<string, PageRecord>();
      const events = new Map<string, { tsMs: number; payload: unknown; fingerprint: string | null }>();
      for (const r of rows) {
        const pageId = typeof r.data.pageId === 'string' ? r.data.pageId : null;
        const eventId = typeof r.data.eventId === 'string' ? r.data.eventId : null;
        if (pageId !== null) {
          if (!pages.has(pageId)) {
            const page = await store.oncall.getPage(pageId);
            // A page stored damaged (set aside, issue 33) has no people to show: its rows say who was told.
            if (page !== null && !isDamagedPage(page)) pages.set(pageId, page);
          }
        } else if (eventId !== null && !events.has(eventId)) {
          const event = await store.getEvent(eventId);
          if (event !== null) events.set(eventId, { tsMs: Date.parse(event.ts), payload: parsePayload(event.payloadText), fingerprint: event.fingerprint });
        }
      }
      const loaded = deps.configs();
      const configs = new Map(loaded.map((c) => [c.agentId, c.config]));
      const people = loaded.flatMap((c) => c.config.people.map((p) => ({ agentId: c.agentId, id: p.id, name: p.name, login: p.login })));
      const sources: ShadowSources = { page: (id) => pages.get(id), event: (id) => events.get(id), config: (id) => configs.get(id) };
      if (signal.aborted || res.destroyed) return undefined;
      sendJson(req, res, 200, { since: q.sinceMs === null ? null : isoTs(q.sinceMs), until: q.untilMs === null ? null : isoTs(q.untilMs),
        shadowAgents: deps.shadowAgents(), truncated, items: shadowAlerts(rows, sources), people });
    } catch (err) {
      deps.report(`control plane: GET /shadow failed: ${errorText(err)}`);
      if (!res.headersSent) sendError(req, res, 500, 'internal error');
    }
    return undefined;
  };
}

function parsePayload(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}
