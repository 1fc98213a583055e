/**
 * The admin socket's on-call operations (contract §17.5, §17.6, §24.7): `svc ack|unack|resolve|escalate`
 * through the page engine (each an audit row naming who acted), schedule overrides and silences into
 * the store (and listed from it), and calendar subscription URLs. Through a console, `as` names the
 * person of oncall.yaml who acts (§24.6): checked against the file, and written as `by` in the row.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../core/clock.js';
import type { OncallConfig, SilenceMatcher } from '../oncall/oncall-config.js';
import { planOverrideHandoff } from '../oncall/override-handoff.js';
import { parseSilenceMatcher } from '../oncall/silence-match.js';
import type { PageEngine } from '../runtime/oncall/page-engine.js';
import type { Store } from '../store/store.js';
import { calendarKey } from '../oncall/calendar-key.js';
import type { ActedThrough } from '../store/store.js';
import type { OncallAdminResponse } from './admin-oncall-protocol.js';
import type { ParsedAdminRequest } from './admin-protocol.js';
import type { CalendarSecret } from './calendar-secret.js';

export interface AdminOncallDeps {
  store: Store;
  clock: Clock;
  engine: PageEngine | null;
  configs: ReadonlyMap<string, OncallConfig>;
  /** Calendar URLs (§24.7): where they point (the team console's publicUrl, else controlPlane.publicUrl) and the key's secret. */
  calendar?: { publicUrl: () => string | null; secret: CalendarSecret };
}

type OncallRequest = Extract<ParsedAdminRequest, { op: 'page.act' | 'override.add' | 'override.ls' | 'override.rm' | 'silence.add' | 'silence.ls'
  | 'silence.expire' | 'calendar.url' }>;
type Answer = OncallAdminResponse | { ok: false; error: string };

/** Why `person` cannot act for `agentId` (null: any agent with an oncall.yaml), or null when they are one of its people. */
function notAPerson(configs: ReadonlyMap<string, OncallConfig>, agentId: string | null, person: string): string | null {
  const agents = agentId === null ? [...configs] : [...configs].filter(([a]) => a === agentId);
  if (agents.some(([, c]) => c.people.some((p) => p.id === person))) return null;
  return agentId === null ? `no person ${person} in any oncall.yaml` : `no person ${person} in agent ${agentId}'s oncall.yaml`;
}

/** The schedule named by a request, in the one agent that has it (or the agent named). */
function findSchedule(configs: ReadonlyMap<string, OncallConfig>, schedule: string, agent: string | undefined):
  { ok: true; agentId: string; config: OncallConfig } | { ok: false; error: string } {
  const found = [...configs].filter(([agentId, c]) => (agent === undefined || agent === agentId) && c.schedules.some((s) => s.id === schedule));
  if (found.length === 0) return { ok: false, error: `no schedule ${schedule}${agent === undefined ? '' : ` in agent ${agent}`}` };
  if (found.length > 1) return { ok: false, error: `schedule ${schedule} is in agents ${found.map(([a]) => a).join(', ')}: name one with --agent` };
  const [agentId, config] = found[0] as [string, OncallConfig];
  return { ok: true, agentId, config };
}

export async function executeOncall(deps: AdminOncallDeps, request: OncallRequest): Promise<Answer> {
  const { store, clock } = deps;
  // Through the console the signed-in identity acts (audited `via: console`); else the CLI's OS user.
  const fromConsole = 'via' in request && request.via === 'console' && request.actor !== undefined ? { actor: request.actor, via: 'console' as const } : null;
  const actor = fromConsole?.actor ?? `cli:${request.user}`;
  const asWho = 'as' in request ? request.as : undefined;
  const via: ActedThrough | undefined = fromConsole === null ? undefined : { via: fromConsole.via, ...(asWho === undefined ? {} : { by: asWho }) };
  switch (request.op) {
    case 'page.act': {
      if (deps.engine === null) return { ok: false, error: 'no agent of this daemon has an oncall.yaml: there are no pages' };
      if (request.as !== undefined) {
        // `--as` names a person of the page's oncall.yaml: a typo would otherwise stand in the audit trail as who acted.
        const page = await store.oncall.getPage(request.page);
        const people = page === null ? undefined : deps.configs.get(page.agentId)?.people;
        if (page !== null && people !== undefined && !people.some((p) => p.id === request.as)) {
          return { ok: false, error: `no person ${request.as} in agent ${page.agentId}'s oncall.yaml (people: ${people.map((p) => p.id).join(', ')})` };
        }
      }
      const who = fromConsole !== null
        ? { actor: fromConsole.actor, by: request.as ?? fromConsole.actor, via: fromConsole.via }
        : { actor, by: request.as ?? request.user, via: 'cli' as const };
      const action = request.action === 'ack' ? { kind: 'ack' as const, note: request.note ?? null }
        : request.action === 'unack' ? { kind: 'unack' as const }
          : request.action === 'resolve' ? { kind: 'resolve' as const, note: request.note ?? null }
            : { kind: 'escalate' as const, toStep: request.toStep ?? null };
      const result = await deps.engine.act(request.page, action, who);
      if (!result.ok) return { ok: false, error: result.reason };
      const p = result.page;
      return { ok: true, op: 'page.act', changed: result.changed, page: { id: p.id, state: p.state, step: p.step, steps: p.policy.steps.length,
        acknowledgedBy: p.acknowledgedBy, resolvedBy: p.resolvedBy } };
    }
    case 'override.add': {
      const found = findSchedule(deps.configs, request.schedule, request.agent);
      if (!found.ok) return found;
      const { agentId, config } = found;
      if (!config.people.some((p) => p.id === request.person)) return { ok: false, error: `no person ${request.person} in agent ${agentId}'s oncall.yaml` };
      const stranger = request.as === undefined ? null : notAPerson(deps.configs, agentId, request.as);
      if (stranger !== null) return { ok: false, error: stranger };
      const nowMs = clock.now();
      const override = { id: `o${randomBytes(6).toString('hex')}`, agentId, scheduleId: request.schedule, personId: request.person,
        fromMs: request.fromMs, toMs: request.toMs, createdAtMs: nowMs, createdBy: actor };
      // "I take over now" starts a moment ago: the person it makes on call is told with the override (§17.6).
      const told = planOverrideHandoff(config, await store.oncall.listOverrides(agentId, nowMs), { kind: 'add', override }, nowMs);
      await store.oncall.addOverride(override, nowMs, via, told);
      return { ok: true, op: 'override.add', id: override.id, agent: agentId };
    }
    case 'override.ls': {
      // Not ended: the store lists those ending after now (an override's span is [from, to)).
      const { schedule, agent } = request;
      const overrides = (await store.oncall.listOverrides(null, clock.now()))
        .filter((o) => (schedule === undefined || o.scheduleId === schedule) && (agent === undefined || o.agentId === agent))
        .sort((a, b) => a.fromMs - b.fromMs || a.id.localeCompare(b.id));
      // A mistyped name is said so, not answered "none" (an override of a schedule since dropped from oncall.yaml still lists).
      if (overrides.length === 0 && agent !== undefined && !deps.configs.has(agent)) return { ok: false, error: `no agent ${agent} with an oncall.yaml` };
      if (overrides.length === 0 && schedule !== undefined && ![...deps.configs].some(([a, c]) => (agent === undefined || a === agent)
        && c.schedules.some((s) => s.id === schedule))) return { ok: false, error: `no schedule ${schedule}${agent === undefined ? '' : ` in agent ${agent}`}` };
      return { ok: true, op: 'override.ls', overrides };
    }
    case 'override.rm': {
      const nowMs = clock.now();
      // Only one in force can change who is on call now; one that ended is not listed, and tells nobody.
      const live = await store.oncall.listOverrides(null, nowMs);
      const gone = live.find((o) => o.id === request.id);
      const stranger = request.as === undefined || gone === undefined ? null : notAPerson(deps.configs, gone.agentId, request.as);
      if (stranger !== null) return { ok: false, error: stranger };
      const config = gone === undefined ? undefined : deps.configs.get(gone.agentId);
      const told = gone === undefined || config === undefined ? undefined : planOverrideHandoff(config, live, { kind: 'rm', override: gone }, nowMs);
      const removed = await store.oncall.removeOverride(request.id, actor, nowMs, via, told);
      if (removed === null) return { ok: false, error: `no override ${request.id}` };
      return { ok: true, op: 'override.rm', id: request.id };
    }
    case 'silence.add': {
      if (request.agent !== undefined && !deps.configs.has(request.agent)) return { ok: false, error: `no agent ${request.agent} with an oncall.yaml` };
      const stranger = request.as === undefined ? null : notAPerson(deps.configs, request.agent ?? null, request.as);
      if (stranger !== null) return { ok: false, error: stranger };
      const matchers = request.matchers.map((t) => (parseSilenceMatcher(t) as { ok: true; matcher: SilenceMatcher }).matcher);
      const nowMs = clock.now();
      const silence = { id: `s${randomBytes(6).toString('hex')}`, agentId: request.agent ?? null, matchers, startsAtMs: nowMs,
        endsAtMs: nowMs + request.durationMs, reason: request.reason, createdBy: actor };
      await store.oncall.addSilence(silence, nowMs, via);
      return { ok: true, op: 'silence.add', silence: { ...silence, expiredAtMs: null } };
    }
    case 'silence.ls': {
      const silences = await store.oncall.listSilences(clock.now());
      return { ok: true, op: 'silence.ls', silences: silences.filter((s) => s.endsAtMs > clock.now()) };
    }
    case 'silence.expire': {
      const stranger = request.as === undefined ? null : notAPerson(deps.configs, null, request.as);
      if (stranger !== null) return { ok: false, error: stranger };
      const expired = await store.oncall.expireSilence(request.id, actor, clock.now(), via);
      if (expired === null) return { ok: false, error: `no silence ${request.id}` };
      return { ok: true, op: 'silence.expire', silence: expired };
    }
    case 'calendar.url': {
      const found = findSchedule(deps.configs, request.schedule, request.agent);
      if (!found.ok) return found;
      const person = request.person ?? null;
      if (person !== null && !found.config.people.some((p) => p.id === person)) return { ok: false, error: `no person ${person} in agent ${found.agentId}'s oncall.yaml` };
      const base = deps.calendar?.publicUrl() ?? null;
      if (deps.calendar === undefined || base === null) {
        return { ok: false, error: 'no public URL to give: set console.publicUrl (the team console) or controlPlane.publicUrl in agent.yaml' };
      }
      const key = calendarKey(deps.calendar.secret.ensure(), found.agentId, request.schedule, person);
      await store.appendAudit({ kind: 'schedule.calendar.issued', actor, agentId: found.agentId, data: { schedule: request.schedule, person } }, clock.now());
      const url = `${base.replace(/\/+$/, '')}/oncall/${encodeURIComponent(request.schedule)}.ics?key=${key}`;
      return { ok: true, op: 'calendar.url', url, agent: found.agentId, schedule: request.schedule, person };
    }
  }
}
