/**
 * `GET /oncall[?at=T][&agent=A][&schedule=S]` and `GET /oncall/<schedule>.ics[?agent=A]` (contract
 * §17.9, §17.6): who is on call in every schedule of every agent with an oncall.yaml, and a schedule's
 * next 28 days as iCalendar. Read-only; overrides come from the store through `overrides`.
 *
 * `/oncall` answers `{"at", "schedules": [{"id", "agentId", "timeZone", "onCall": [{"person", "source",
 * "until"}], "nextHandoff": {"at", "person"} | null}]}`: `onCall` is empty while nobody is on call,
 * `until` (ISO-8601) is when that answer changes (null: not within 35 days), `nextHandoff` is when the
 * person on call next changes, and to whom (null: nobody).
 */
import type { Clock } from '../../core/clock.js';
import { isoTs } from '../../core/clock.js';
import { CALENDAR_CONTENT_TYPE, EXPORT_DAYS, MAX_EXPORT_DAYS, exportCalendar } from '../../oncall/icalendar.js';
import type { OncallConfig, Override, Schedule } from '../../oncall/oncall-config.js';
import { nextHandoff, usableOverrides, whoIsOnCall } from '../../oncall/schedule.js';
import { JSON_HEADERS, sendError, sendJson } from '../http-json.js';
import { paramLabel, parseFilterParam, parseTimeParam, singleParam } from '../query.js';
import type { RouteContext, RouteHandler } from '../route.js';

export interface OncallRouteDeps {
  /** Every agent's on-call configuration (agents without oncall.yaml are absent). */
  configs: () => ReadonlyArray<{ agentId: string; config: OncallConfig }>;
  /** The agent's overrides that end after `endsAfterMs` (the store's). */
  overrides: (agentId: string, endsAfterMs: number) => Promise<readonly Override[]>;
  clock: Clock;
}

/**
 * Calendar subscription keys (§24.7, oncall/calendar-key.ts) as the route checks them: the person a
 * key names for this agent's schedule (null: the whole schedule), or false. The daemon holds the secret.
 */
export interface CalendarKeyCheck {
  check(agentId: string, scheduleId: string, key: string): { person: string | null } | false;
}

export interface OncallScheduleView {
  id: string;
  agentId: string;
  timeZone: string;
  onCall: Array<{ person: string; source: 'override' | 'rotation' | 'fallback'; until: string | null }>;
  nextHandoff: { at: string; person: string | null } | null;
}

export interface OncallView {
  at: string;
  schedules: OncallScheduleView[];
}

/** The parameters of a request, each once, none unknown; null after an error answer. */
function params(ctx: RouteContext, known: readonly string[]): Map<string, string> | null {
  const out = new Map<string, string>();
  for (const name of new Set(ctx.url.searchParams.keys())) {
    if (!known.includes(name)) {
      sendError(ctx.req, ctx.res, 400, `invalid ${paramLabel(name)}: unknown parameter (expected ${known.join(', ')})`);
      return null;
    }
    const one = singleParam(ctx.url.searchParams, name);
    if (!one.ok) {
      sendError(ctx.req, ctx.res, 400, one.error);
      return null;
    }
    if (one.value !== null) out.set(name, one.value);
  }
  return out;
}

function filterParam(ctx: RouteContext, query: Map<string, string>, name: string): string | null | false {
  const raw = query.get(name);
  if (raw === undefined) return null;
  const parsed = parseFilterParam(name, raw);
  if (parsed.ok) return parsed.value;
  sendError(ctx.req, ctx.res, 400, parsed.error);
  return false;
}

export function scheduleView(agentId: string, schedule: Schedule, overrides: readonly Override[], atMs: number): OncallScheduleView {
  const answer = whoIsOnCall(schedule, overrides, atMs);
  const next = nextHandoff(schedule, overrides, atMs);
  return {
    id: schedule.id,
    agentId,
    timeZone: schedule.timeZone,
    onCall: answer.person === null || answer.source === null ? []
      : [{ person: answer.person, source: answer.source, until: answer.untilMs === null ? null : isoTs(answer.untilMs) }],
    nextHandoff: next ? { at: isoTs(next.atMs), person: next.person } : null,
  };
}

export function createOncallRoute(deps: OncallRouteDeps): RouteHandler {
  return async (ctx) => {
    const query = params(ctx, ['at', 'agent', 'schedule']);
    if (!query) return;
    let atMs = deps.clock.now();
    const at = query.get('at');
    if (at !== undefined) {
      const parsed = parseTimeParam('at', at);
      if (!parsed.ok) return sendError(ctx.req, ctx.res, 400, parsed.error);
      atMs = parsed.value;
    }
    const agent = filterParam(ctx, query, 'agent');
    if (agent === false) return;
    const scheduleId = filterParam(ctx, query, 'schedule');
    if (scheduleId === false) return;
    const schedules: OncallScheduleView[] = [];
    for (const { agentId, config } of deps.configs()) {
      if (agent !== null && agentId !== agent) continue;
      const wanted = config.schedules.filter((s) => scheduleId === null || s.id === scheduleId);
      if (wanted.length === 0) continue;
      // An override naming a person the file lacks never wins: the answer is what a page would reach (issue 33.4).
      const overrides = usableOverrides(config, await deps.overrides(agentId, atMs));
      for (const schedule of wanted) schedules.push(scheduleView(agentId, schedule, overrides, atMs));
    }
    sendJson(ctx.req, ctx.res, 200, { at: isoTs(atMs), schedules } satisfies OncallView);
  };
}

/**
 * `/oncall/<schedule>.ics[?agent=A][&from=T][&days=N][&key=K]`: the schedule's calendar; `agent` picks
 * one when several agents have the id. `from`/`days` (1..366) ask for exactly that window (`svc oncall
 * export --from --days`). `key` is a calendar app's subscription key (§24.7): the listener served the
 * request without a token because it carries one, so a wrong key is refused here (403) and a good one
 * picks the agent and, for a person's key, their shifts.
 */
export function createOncallCalendarRoute(deps: OncallRouteDeps, keys?: CalendarKeyCheck): RouteHandler {
  return async (ctx) => {
    const query = params(ctx, ['agent', 'from', 'days', 'key']);
    if (!query) return;
    const agent = filterParam(ctx, query, 'agent');
    if (agent === false) return;
    const nowMs = deps.clock.now();
    let window: { fromMs: number | null; days: number } | undefined;
    const from = query.get('from');
    const days = query.get('days');
    if (from !== undefined || days !== undefined) {
      // `days` alone: the next N days as the default export reads them (the current shift from its real start).
      const fromMs = from === undefined ? { ok: true as const, value: null } : parseTimeParam('from', from);
      if (!fromMs.ok) return sendError(ctx.req, ctx.res, 400, fromMs.error);
      const n = days === undefined ? EXPORT_DAYS : /^\d{1,3}$/.test(days) ? Number(days) : NaN;
      if (!(n >= 1 && n <= MAX_EXPORT_DAYS)) return sendError(ctx.req, ctx.res, 400, `invalid days: expected an integer 1..${MAX_EXPORT_DAYS}`);
      window = { fromMs: fromMs.value, days: n };
    }
    // One segment below /oncall/ (the route takes every path under it: control-plane/server.ts).
    const last = ctx.url.pathname.slice('/oncall/'.length);
    if (last.includes('/')) return sendError(ctx.req, ctx.res, 404, 'not found');
    let name: string;
    try {
      name = decodeURIComponent(last);
    } catch {
      return sendError(ctx.req, ctx.res, 404, 'not found');
    }
    if (!name.endsWith('.ics')) return sendError(ctx.req, ctx.res, 404, 'not found');
    const id = name.slice(0, -'.ics'.length);
    let found = deps.configs().flatMap(({ agentId, config }) => config.schedules
      .filter((s) => s.id === id && (agent === null || agentId === agent)).map((schedule) => ({ agentId, config, schedule })));
    let person: string | null = null;
    const key = query.get('key');
    if (key !== undefined) {
      // The same answer for a wrong key and an unknown schedule: a key proves nothing about what exists.
      const keyed = keys === undefined ? [] : found.flatMap((f) => {
        const ok = keys.check(f.agentId, f.schedule.id, key);
        return ok === false ? [] : [{ ...f, person: ok.person }];
      });
      const [match] = keyed;
      if (match === undefined) return sendError(ctx.req, ctx.res, 403, 'invalid calendar key');
      found = [match];
      person = match.person;
    }
    const shown = /^[a-z0-9][a-z0-9._-]{0,63}$/.test(id) ? `"${id}"` : 'of that name';
    if (found.length === 0) return sendError(ctx.req, ctx.res, 404, `no schedule ${shown}${agent === null ? '' : ` in agent "${agent}"`}`);
    if (found.length > 1) {
      return sendError(ctx.req, ctx.res, 400, `schedule ${shown} is in agents ${found.map((f) => f.agentId).join(', ')}: choose one with ?agent=`);
    }
    const { agentId, config, schedule } = found[0] as (typeof found)[number];
    // Overrides that end after the window starts (a window may begin in the past).
    const overrides = usableOverrides(config, await deps.overrides(agentId, Math.min(nowMs, window?.fromMs ?? nowMs)));
    const text = exportCalendar(agentId, schedule, config.people, overrides, nowMs, { ...(window === undefined ? {} : { window }), person });
    ctx.res.writeHead(200, { ...JSON_HEADERS, 'content-type': CALENDAR_CONTENT_TYPE, 'content-length': String(Buffer.byteLength(text)) });
    ctx.res.end(ctx.req.method === 'HEAD' ? undefined : text);
  };
}
