/**
 * What a console's action form asks for (contract §19.4, §24.6), decided once for both doors: `svc
 * console`'s proxy, which sends the request through the admin socket, and the team console, which
 * runs it in the daemon through the same admin operations. A form becomes an admin request (checked
 * by the same code as the CLI's flags: oncall/oncall-input.ts) and a place to send the browser back
 * to with the outcome: `?done=…`, or `?failed=…` with the refused form's values, so it keeps what was
 * typed (§24.8).
 *
 * Who acts: the door's identity is the audit row's actor (`user:alice@example.com`, `local:root`);
 * on-call actions also need the person of oncall.yaml acting (`as`, written `by`) — the team
 * console's signed-in person, `svc console --as`, or the person chosen with "Acting as" for the
 * session. Without one, such an action is refused and asks; it is never credited to an OS user.
 */
import type { AdminRequest, AdminResponse } from '../admin-protocol.js';
import { OVERRIDE_ID_PATTERN, SILENCE_ID_PATTERN } from '../admin-oncall-protocol.js';
import { checkOverrideWindow, checkSilence, checkZone } from '../../oncall/oncall-input.js';
import { PAGE_ID_PATTERN } from '../../oncall/page.js';
import { DLQ_REPLAY_ACTION } from '../../control-plane/ui/views/dlq-view.js';
import { OVERRIDE_ACTION } from '../../control-plane/ui/views/oncall-view.js';
import { PAGE_ACTION, PAGE_ACTIONS } from '../../control-plane/ui/views/page-view.js';
import { ACTING_AS_ACTION, refusedQuery } from '../../control-plane/ui/views/parts.js';
import { SILENCE_ACTION } from '../../control-plane/ui/views/silences-view.js';

export interface ConsoleActor {
  /** The audit row's actor: who came through the door. */
  actor: string;
  /** The person of oncall.yaml acting; null: not known yet (the session chooses one with "Acting as"). */
  person: string | null;
}

export type ActionPlan =
  /** Send this request; the answer says where the browser goes next. */
  | { kind: 'send'; request: AdminRequest; then(answer: AdminResponse): string }
  /** Nothing to send (the form was refused, or it only set who acts): send the browser here. */
  | { kind: 'back'; location: string }
  /** The session acts as this person from now on (`svc console` without --as), then goes back. */
  | { kind: 'act-as'; person: string; location: string }
  | { kind: 'not-found' };

const PERSON = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const NEED_PERSON = 'choose who is acting first ("Acting as", at the top of the page); actions are credited to a person of oncall.yaml';

/** Where a form posted from sends the browser back: a console view's path, never anything else. */
function backTo(form: URLSearchParams, fallback: string): string {
  const from = form.get('back') ?? '';
  return /^\/ui\/[A-Za-z0-9/_-]{0,200}$/.test(from) || from === '/ui/' ? from : fallback;
}

/** The fields of a refused form that come back with it (never the CSRF token). */
function typed(form: URLSearchParams, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of names) {
    const v = form.get(n);
    if (v !== null) out[n] = v.slice(0, 2000);
  }
  return out;
}

/** `view?failed=…` with the form's id and what was typed in it (parts.ts reads it back into the form). */
function refused(view: string, form: URLSearchParams, error: string, fields: readonly string[]): ActionPlan {
  return { kind: 'back', location: `${view}?${refusedQuery(form.get('form') ?? '', error, typed(form, fields))}` };
}

function outcome(view: string, done: string, form: URLSearchParams, fields: readonly string[]): (answer: AdminResponse) => string {
  return (answer) => (answer.ok ? `${view}?done=${done}` : `${view}?${refusedQuery(form.get('form') ?? '', answer.error, typed(form, fields))}`);
}

export function planConsoleAction(path: string, form: URLSearchParams, who: ConsoleActor): ActionPlan {
  const door = { user: 'console', via: 'console' as const, actor: who.actor };
  const as = who.person === null ? {} : { as: who.person };
  switch (path) {
    case ACTING_AS_ACTION: {
      const person = form.get('as') ?? '';
      const back = backTo(form, '/ui/');
      if (!PERSON.test(person)) return { kind: 'back', location: `${back}?failed=${encodeURIComponent('choose a person of oncall.yaml to act as')}` };
      return { kind: 'act-as', person, location: back };
    }
    case DLQ_REPLAY_ACTION: {
      const id = form.get('id') ?? '';
      if (!/^[\x21-\x7e]{1,200}$/.test(id)) return { kind: 'back', location: `/ui/dlq?failed=${encodeURIComponent('that is not a dead-letter id')}` };
      return { kind: 'send', request: { op: 'dlq.replay', ids: [id], via: 'console', actor: who.actor },
        then: (answer) => (answer.ok && answer.op === 'dlq.replay' ? `/ui/dlq?replayed=${answer.replayed.length}` : `/ui/dlq?failed=${encodeURIComponent(answer.ok ? 'not replayed' : answer.error)}`) };
    }
    case PAGE_ACTION: {
      const id = form.get('id') ?? '';
      const action = PAGE_ACTIONS.find((a) => a.action === form.get('action'))?.action;
      if (!PAGE_ID_PATTERN.test(id) || action === undefined) return { kind: 'back', location: `/ui/pages?failed=${encodeURIComponent('that is not a page and an action on it')}` };
      if (who.person === null) return { kind: 'back', location: `/ui/pages/${id}?failed=${encodeURIComponent(NEED_PERSON)}` };
      return { kind: 'send', request: { op: 'page.act', page: id, action, ...door, ...as },
        then: (answer) => (answer.ok ? `/ui/pages/${id}?done=${action}` : `/ui/pages/${id}?failed=${encodeURIComponent(answer.error)}`) };
    }
    case OVERRIDE_ACTION: {
      const fields = ['person', 'from', 'to', 'tz'];
      const view = '/ui/oncall';
      const op = form.get('op');
      if (who.person === null) return refused(view, form, NEED_PERSON, fields);
      if (op === 'remove') {
        const id = form.get('id') ?? '';
        if (!OVERRIDE_ID_PATTERN.test(id)) return refused(view, form, 'that is not an override id', []);
        return { kind: 'send', request: { op: 'override.rm', id, ...door, ...as }, then: outcome(view, 'removed', form, []) };
      }
      if (op !== 'add') return refused(view, form, 'there is no such override action', []);
      // The form shows the zone its times are read in (§24.5): the browser's, or UTC without JavaScript.
      const zone = checkZone('Time zone', form.get('tz') ?? 'UTC');
      if (!zone.ok) return refused(view, form, zone.error, fields);
      const window = checkOverrideWindow({ from: 'From', to: 'Until' }, form.get('from') ?? '', form.get('to') ?? '', zone.value);
      if (!window.ok) return refused(view, form, window.error, fields);
      const agent = form.get('agent') ?? '';
      return { kind: 'send', then: outcome(view, 'added', form, fields),
        request: { op: 'override.add', schedule: form.get('schedule') ?? '', person: form.get('person') ?? '', ...(agent === '' ? {} : { agent }),
          ...window.value, ...door, ...as } };
    }
    case SILENCE_ACTION: {
      const fields = ['matchers', 'duration', 'reason', 'agent'];
      const view = '/ui/silences';
      const op = form.get('op');
      if (who.person === null) return refused(view, form, NEED_PERSON, fields);
      if (op === 'expire') {
        const id = form.get('id') ?? '';
        if (!SILENCE_ID_PATTERN.test(id)) return refused(view, form, 'that is not a silence id', []);
        return { kind: 'send', request: { op: 'silence.expire', id, ...door, ...as }, then: outcome(view, 'expired', form, []) };
      }
      if (op !== 'add') return refused(view, form, 'there is no such silence action', []);
      const matchers = (form.get('matchers') ?? '').split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '');
      const checked = checkSilence({ match: 'Matcher', duration: 'Duration', reason: 'Reason' },
        { matchers, duration: (form.get('duration') ?? '').trim(), reason: form.get('reason') ?? '' });
      if (!checked.ok) return refused(view, form, checked.error, fields);
      const agent = form.get('agent') ?? '';
      return { kind: 'send', then: outcome(view, 'added', form, fields),
        request: { op: 'silence.add', ...checked.value, ...(agent === '' ? {} : { agent }), ...door, ...as } };
    }
    default:
      return { kind: 'not-found' };
  }
}
