/**
 * PagerDuty's log entries as the old pager's alert log (contract §22.3). `GET /log_entries`
 * answers `{"log_entries": [...], "limit", "offset", "more", "total"}`; each entry has `type`
 * (`trigger_log_entry`, `notify_log_entry`, `escalate_log_entry`, …), `created_at` and `incident` —
 * a reference `{"id", "type": "incident_reference", "summary"}`, or with `include[]=incidents` the
 * incident itself with its `incident_key`, `created_at` and `title`. A `notify_log_entry` names the
 * `user` notified (a reference: `id` and the name as `summary`) and the way in
 * `channel.notification` (`type` `sms`, `email`, `phone`, `push_notification`…, and its `address`)
 * (PagerDuty REST API reference, List log entries). `incidents.json` (`GET /incidents`) supplies keys an entry lacks;
 * `users.json` (`GET /users`) the users' email addresses, which oncall.yaml knows people by.
 */
import type { OldAlert, OldNotice } from './old-alert.js';
import type { At } from './saved-json.js';
import { field, instant, isAbsent, items, optStr, str } from './saved-json.js';

interface Incident { key: string | null; createdAtMs: number | null; title: string | null; summary: string | null; firstSeenMs: number; notices: OldNotice[] }

export function pagerdutyAlerts(entryPages: readonly At[], incidentPages: readonly At[], userPages: readonly At[]): OldAlert[] {
  const users = new Map<string, { name: string | null; email: string | null }>();
  for (const page of userPages) {
    for (const u of items(field(page, 'users'))) users.set(str(field(u, 'id')), { name: optStr(field(u, 'name')), email: optStr(field(u, 'email')) });
  }
  const incidents = new Map<string, Incident>();
  const incidentOf = (at: At, seenMs: number): Incident => {
    const id = str(field(at, 'id'));
    let known = incidents.get(id);
    if (known === undefined) {
      known = { key: null, createdAtMs: null, title: null, summary: null, firstSeenMs: seenMs, notices: [] };
      incidents.set(id, known);
    }
    known.firstSeenMs = Math.min(known.firstSeenMs, seenMs);
    known.key ??= optStr(field(at, 'incident_key'));
    known.title ??= optStr(field(at, 'title'));
    // A reference has only its summary, `[#1234] <title>`.
    known.summary ??= optStr(field(at, 'summary'))?.replace(/^\[#\d+\]\s*/, '') ?? null;
    const created = field(at, 'created_at');
    if (known.createdAtMs === null && !isAbsent(created)) known.createdAtMs = instant(created);
    return known;
  };
  for (const page of entryPages) {
    for (const entry of items(field(page, 'log_entries'))) {
      const at = instant(field(entry, 'created_at'));
      const incident = incidentOf(field(entry, 'incident'), at);
      if (str(field(entry, 'type')) !== 'notify_log_entry') continue;
      const userAt = field(entry, 'user');
      const userId = str(field(userAt, 'id'));
      const known = users.get(userId);
      const channel = field(entry, 'channel');
      const notification = isAbsent(channel) || isAbsent(field(channel, 'notification')) ? null : field(channel, 'notification');
      const method = (notification === null ? (isAbsent(channel) ? null : optStr(field(channel, 'type'))) : optStr(field(notification, 'type')))
        ?.replace(/_notification$/, '') ?? null;
      // A reference names the user (`summary`); an expanded user has `name` and `email`; an email notification its address.
      const name = known?.name ?? optStr(field(userAt, 'summary')) ?? optStr(field(userAt, 'name'));
      const address = method === 'email' && notification !== null ? optStr(field(notification, 'address')) : null;
      const email = (known?.email ?? optStr(field(userAt, 'email')) ?? address)?.toLowerCase() ?? null;
      incident.notices.push({ atMs: at, user: email ?? name ?? userId, email, name, method });
    }
  }
  // Keys and titles the entries lacked (no include[]=incidents), from GET /incidents.
  for (const page of incidentPages) {
    for (const inc of items(field(page, 'incidents'))) {
      const known = incidents.get(str(field(inc, 'id')));
      if (known !== undefined) incidentOf(inc, known.firstSeenMs);
    }
  }
  return [...incidents].map(([id, i]) => ({ id, key: i.key, createdAtMs: i.createdAtMs ?? i.firstSeenMs, title: i.title ?? i.summary ?? '',
    notices: i.notices.sort((x, y) => x.atMs - y.atMs) }));
}
