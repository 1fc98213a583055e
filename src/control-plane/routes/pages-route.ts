/**
 * `GET /pages`, `GET /pages/<id>` and `GET /silences` (contract §17.9): pages paginated as §5 with the
 * filters `agent`, `state` and `policy`; one page with its `timeline` (its audit rows in order); the
 * silences live now or expired in the last 24 hours. Read-only.
 */
import { isoTs } from '../../core/clock.js';
import type { Clock } from '../../core/clock.js';
import { errorText } from '../../core/errors.js';
import type { PageRecord } from '../../oncall/page.js';
import { PAGE_ID_PATTERN, PAGE_STATES } from '../../oncall/page.js';
import { InvalidCursorError } from '../../store/cursor.js';
import type { PageFilter, StoredPage } from '../../store/oncall-store.js';
import { isDamagedPage } from '../../store/oncall-store.js';
import type { Store } from '../../store/store.js';
import { sendError, sendJson } from '../http-json.js';
import type { ViewSpec } from '../page-query.js';
import { parseViewQuery } from '../page-query.js';
import type { RouteHandler } from '../route.js';
import type { Report } from './view-route.js';

export const PAGES_VIEW: ViewSpec<keyof PageFilter> = { filters: ['agent', 'state', 'policy'], defaultOrder: 'desc', verify: false };
/** How long an expired silence is still listed. */
export const RECENTLY_MS = 24 * 3_600_000;

const iso = (ms: number | null): string | null => (ms === null ? null : isoTs(ms));

/**
 * A page as §17.9 shows it. A page stored damaged (its body unreadable) is listed with what its
 * columns say, `corrupt: true` and the other fields null, as /events lists a damaged event (§11.5).
 */
export function pageJson(stored: StoredPage): Record<string, unknown> {
  if (isDamagedPage(stored)) {
    return { id: stored.id, agentId: stored.agentId, incidentKey: stored.incidentKey, state: stored.state, exhausted: null, policy: stored.policy,
      policySha256: null, step: null, loop: null, openedAt: isoTs(stored.openedAtMs), acknowledgedAt: null,
      acknowledgedBy: null, resolvedAt: null, resolvedBy: null, nextEscalationAt: null, eventIds: null, title: null, severity: null, corrupt: true };
  }
  const p: PageRecord = stored;
  const nextEscalation = p.state === 'triggered' ? p.nextEscalationAtMs : p.state === 'acknowledged' ? p.ackTimeoutAtMs : null;
  return { id: p.id, agentId: p.agentId, incidentKey: p.incidentKey, state: p.state, exhausted: p.exhausted, policy: p.policy.id,
    policySha256: p.policySha256, step: p.step, loop: p.loop, openedAt: isoTs(p.openedAtMs), acknowledgedAt: iso(p.acknowledgedAtMs),
    acknowledgedBy: p.acknowledgedBy, resolvedAt: iso(p.resolvedAtMs), resolvedBy: p.resolvedBy, nextEscalationAt: iso(nextEscalation),
    eventIds: p.eventIds, title: p.title, severity: p.severity };
}

export interface PagesRouteDeps { store: Store; report: Report; clock: Clock }

export function createPagesRoute(deps: PagesRouteDeps): RouteHandler {
  return async ({ req, res, url }) => {
    const parsed = parseViewQuery(url.searchParams, PAGES_VIEW);
    if (!parsed.ok) return sendError(req, res, 400, parsed.error);
    const { state } = parsed.value.filter;
    if (state !== undefined && !(PAGE_STATES as readonly string[]).includes(state)) {
      return sendError(req, res, 400, `invalid state: expected one of ${PAGE_STATES.join(', ')}`);
    }
    try {
      const page = await deps.store.oncall.listPages(parsed.value.page, parsed.value.filter as PageFilter);
      sendJson(req, res, 200, { items: page.items.map(pageJson), nextCursor: page.nextCursor });
    } catch (err) {
      if (err instanceof InvalidCursorError) return sendError(req, res, 400, `invalid cursor: ${err.message}`);
      deps.report(`control plane: GET /pages failed: ${errorText(err)}`);
      if (!res.headersSent) sendError(req, res, 500, 'internal error');
    }
    return undefined;
  };
}

export function createPageRoute(deps: PagesRouteDeps): RouteHandler {
  return async ({ req, res, url }) => {
    const id = decodeURIComponent(url.pathname.slice('/pages/'.length));
    if ([...url.searchParams.keys()].length > 0) return sendError(req, res, 400, 'invalid query: /pages/<id> takes no parameters');
    if (!PAGE_ID_PATTERN.test(id)) return sendError(req, res, 404, 'no such page');
    try {
      const page = await deps.store.oncall.getPage(id);
      if (page === null) return sendError(req, res, 404, 'no such page');
      const timeline = (await deps.store.oncall.pageTimeline(id)).map((r) => ({ seq: r.seq, ts: r.ts, kind: r.kind, actor: r.actor,
        data: r.dataText === null ? null : JSON.parse(r.dataText) as unknown }));
      sendJson(req, res, 200, { ...pageJson(page), timeline });
    } catch (err) {
      deps.report(`control plane: GET /pages/<id> failed: ${errorText(err)}`);
      if (!res.headersSent) sendError(req, res, 500, 'internal error');
    }
    return undefined;
  };
}

export function createSilencesRoute(deps: PagesRouteDeps): RouteHandler {
  return async ({ req, res, url }) => {
    if ([...url.searchParams.keys()].length > 0) return sendError(req, res, 400, 'invalid query: /silences takes no parameters');
    const nowMs = deps.clock.now();
    try {
      const silences = await deps.store.oncall.listSilences(nowMs - RECENTLY_MS);
      sendJson(req, res, 200, { items: silences.map((s) => ({ id: s.id, agentId: s.agentId, matchers: s.matchers, startsAt: isoTs(s.startsAtMs),
        endsAt: isoTs(s.endsAtMs), reason: s.reason, createdBy: s.createdBy, live: s.startsAtMs <= nowMs && nowMs < s.endsAtMs,
        expiredAt: iso(s.expiredAtMs) })) });
    } catch (err) {
      deps.report(`control plane: GET /silences failed: ${errorText(err)}`);
      if (!res.headersSent) sendError(req, res, 500, 'internal error');
    }
    return undefined;
  };
}
