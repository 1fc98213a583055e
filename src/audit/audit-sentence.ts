/**
 * One audit row as a short sentence a person reads at 3 a.m. — the one rule behind `svc explain`,
 * `svc page` and the console's timelines. The kinds svc writes are put in words from their data; any
 * other kind is shown as itself with its actor. Pure: the callers escape or print the text their way.
 */

/** A data field as text: strings, numbers and booleans as they are, anything else (absent, an object) as `?`. */
function field(d: Readonly<Record<string, unknown>>, key: string): string {
  const v = d[key];
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : '?';
}

const present = (d: Readonly<Record<string, unknown>>, key: string): boolean => d[key] !== undefined && d[key] !== null && d[key] !== '';

/**
 * What a `page.notified` row's `kind` (src/oncall/page.ts NOTIFICATION_KINDS) adds to its sentence: a
 * status update is not a round, and the timeline says so. A round (`escalation`), and rows from before
 * rows said their kind, add nothing.
 */
const NOTICE_WORDS: Readonly<Record<string, string>> = {
  'join': ': alerts joined the page',
  'acknowledged': ': told of the acknowledgement',
  'unacknowledged': ': told it is no longer acknowledged',
  'resolved': ': told of the resolution',
  'escalated-past': ': told the page escalated past them',
  'joined-acked': ': told alerts joined the acknowledged page',
};

export function auditSentence(kind: string, actor: string, data: Readonly<Record<string, unknown>> | null): string {
  const d = data ?? {};
  const s = (key: string): string => field(d, key);
  const opt = (key: string, text: (v: string) => string): string => (present(d, key) ? text(s(key)) : '');
  // Through a console as a person of oncall.yaml (§24.6): that person, then the door's identity.
  const who = present(d, 'by') ? `${s('by')} (${actor})` : actor;
  const list = (key: string): string => (Array.isArray(d[key]) ? (d[key] as unknown[]).map(String).join(', ') : s(key));
  switch (kind) {
    case 'event.accepted': return `accepted from ${s('sourceId')}${opt('fingerprint', (v) => `, fingerprint ${v}`)}`;
    case 'event.duplicate': return `duplicate sent again by ${s('sourceId')}${opt('fingerprint', (v) => ` (fingerprint ${v})`)}`;
    case 'event.suppressed': return `suppressed by silence ${list('silenceIds')}: nobody paged`;
    case 'event.superseded': return `firing overtaken by the resolve in event ${s('resolvedBy')}, received after it: nobody paged`;
    case 'event.dead-lettered': return `dead-lettered: ${s('reason')} after ${s('attempts')} attempt(s), letter ${s('deadLetterId')}`;
    case 'llm.called': return `model call ${s('provider')} ${s('model')}, step ${s('step')} attempt ${s('attempt')}: ${s('status')}`
      + opt('durationMs', (v) => ` in ${v} ms`);
    case 'tool.called': return `tool call ${s('serverId')}/${s('tool')}: ${s('outcome')}${opt('durationMs', (v) => ` in ${v} ms`)}`;
    case 'triage.fallback': return `triage by ${s('provider')} failed (${s('reason')}); rules used instead`;
    case 'triage.severity-raised': return `model ${s('provider')} said ${s('from')}; raised to ${s('to')} by llm.severityFloor (${s('floor')})`;
    case 'triage.decision': return `triage by ${s('provider')}: ${s('severity')} ${s('status')}, `
      + `${d.notify === false ? 'no message' : 'notify'}${opt('title', (v) => ` — ${v}`)}`;
    case 'message.delivered': return `delivered to ${s('channelId')}${opt('person', (v) => ` for ${v}`)}, delivery ${s('deliveryId')}, attempt ${s('attempt')}`
      + `${typeof d.tries === 'number' && d.tries > 1 ? ` (${d.tries} tries)` : ''}`;
    case 'message.shadowed': return `shadow run: not sent to ${s('channelId')}${opt('person', (v) => ` for ${v}`)}, delivery ${s('deliveryId')}`;
    case 'message.failed': return `delivery to ${s('channelId')} failed${present(d, 'attempt') || present(d, 'attempts') ? ` (attempt ${present(d, 'attempt') ? s('attempt') : s('attempts')})` : ''}: ${s('error')}`;
    case 'dlq.replayed': return `replayed by ${actor}${opt('via', (v) => ` via ${v}`)}, letter ${s('deadLetterId')}`;
    case 'page.opened': return `${d.reopened === true ? 'reopened' : 'opened'} under policy ${s('policy')}`;
    case 'page.joined': return `joined by event ${s('eventId')} (${s('alerts')} alerts)`;
    case 'page.notified': return `notified ${s('person')} on ${s('channel')} (step ${s('step')}${opt('rule', (v) => `, personal rule ${v}`)})`
      + (typeof d.kind === 'string' ? NOTICE_WORDS[d.kind] ?? '' : '');
    case 'page.repeated': return `event ${s('eventId')} repeated alerts already on the page: nobody notified`;
    case 'page.nobody-on-call': return typeof d.channel === 'string' ? `nobody reached: channel ${s('channel')} is not in channels.yaml`
      : typeof d.person === 'string' ? `nobody reached: person ${s('person')} is not in oncall.yaml`
      : d.missing === true ? `nobody reached: schedule ${s('schedule')} is not in oncall.yaml` : `nobody on call in ${s('schedule')}`;
    case 'page.escalated': return `escalated to step ${s('to')} (${s('reason')}${opt('by', (v) => ` by ${v}`)})`;
    case 'page.acknowledged': return `acknowledged by ${s('by')} via ${s('via')}${opt('note', (v) => `: ${v}`)}`;
    case 'page.unacknowledged': return d.reason === 'ack-timeout' ? `back to triggered: ${s('acknowledgedBy')} did not resolve in time`
      : `unacknowledged by ${s('by')}`;
    case 'page.ack-refused': return `${s('action')} by ${s('user')} via ${s('via')} refused: ${s('reason')}`;
    case 'page.call-failed': return `call to ${s('person')} on ${s('channel')} not taken: ${s('status')} (a failed try; the next step still comes)`;
    case 'page.resolved': return `resolved by ${s('by')} via ${s('via')}${opt('note', (v) => `: ${v}`)}`;
    case 'page.exhausted': return 'exhausted: nobody acknowledged';
    case 'page.quarantined': return `stored damaged, set aside: ${s('reason')}`;
    case 'notification.quarantined': return `notice ${s('deliveryId')} stored damaged, set aside: ${s('reason')}`;
    case 'heartbeat.missed': return `heartbeat ${s('heartbeat')} missed (last seen ${s('lastSeen')})`;
    case 'schedule.override.added': return `override: ${s('person')} on call for ${s('schedule')} from ${s('from')} to ${s('to')}, by ${who}${opt('via', (v) => ` via ${v}`)}`;
    case 'schedule.override.removed': return `override of ${s('person')} in ${s('schedule')} removed by ${who}${opt('via', (v) => ` via ${v}`)}`;
    case 'schedule.calendar.issued': return `calendar URL of ${s('schedule')}${opt('person', (v) => ` (${v}'s shifts)`)} issued to ${actor}`;
    case 'silence.created': return `silence ${s('silenceId')} until ${s('endsAt')} by ${who}${opt('via', (v) => ` via ${v}`)}: ${s('reason')}`;
    case 'silence.expired': return `silence ${s('silenceId')} expired by ${who}${opt('via', (v) => ` via ${v}`)}`;
    case 'config.reloaded': return `configuration reloaded by ${actor}`;
    case 'config.reload-refused': return `configuration reload refused (${s('reason')}): ${s('error')}`;
    default: return `${kind} by ${actor}`;
  }
}
