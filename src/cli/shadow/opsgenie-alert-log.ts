/**
 * Opsgenie's alerts and their logs as the old pager's alert log (contract §22.3). `GET /v2/alerts`
 * answers `{"data": [{"id", "tinyId", "alias", "message", "createdAt", …}], "paging", "took",
 * "requestId"}`; `GET /v2/alerts/<id>/logs` answers `{"data": [{"log", "type", "owner", "createdAt",
 * "offset"}], "paging", …}` (https://docs.opsgenie.com/docs/alert-api). The log is text written for
 * people: an entry is read as a notification when it speaks of one (`notif…`), not of one that was
 * not sent, and names its recipient by address — in the text, or as the `owner` of an entry about a
 * recipient (Opsgenie usernames are email addresses). Every other entry is left alone.
 */
import type { OldAlert, OldNotice } from './old-alert.js';
import type { At } from './saved-json.js';
import { field, inputError, instant, isAbsent, items, optStr, str } from './saved-json.js';

const EMAIL = /[^\s[\]<>()"',;:]+@[^\s[\]<>()"',;:]+\.[A-Za-z]{2,}/;
const NOT_SENT = /\b(not|never|fail(ed|ure)?|suppress(ed)?|skipp(ed)?|muted|quiet hours|could ?n[o']t|unable)\b/i;

/** Whom an alert log line says was notified, and how; null when it says no such thing. */
export function noticeOf(log: string, owner: string | null): { user: string; method: string | null } | null {
  if (!/notif/i.test(log) || NOT_SENT.test(log)) return null;
  const user = EMAIL.exec(log)?.[0] ?? (owner !== null && EMAIL.test(owner) ? owner : null);
  if (user === null) return null;
  // The first bracketed word that is not an address names the way (`[SMS]`, `[Mobile]`, `[email]`).
  const method = [...log.matchAll(/\[([^\]]{1,40})\]/g)].map((m) => m[1] as string).find((w) => !w.includes('@')) ?? null;
  return { user, method };
}

export function opsgenieAlerts(pages: readonly At[], logsOf: (alertId: string) => At[]): OldAlert[] {
  const alerts: OldAlert[] = [];
  for (const page of pages) {
    for (const a of items(field(page, 'data'))) {
      const idAt = field(a, 'id');
      const id = str(idAt);
      // It names a directory of the export: an id that could climb out of it is no Opsgenie id.
      if (!/^[A-Za-z0-9_-]{1,128}$/.test(id)) throw inputError(idAt, 'not an Opsgenie alert id');
      const notices: OldNotice[] = [];
      for (const logPage of logsOf(id)) {
        for (const entry of items(field(logPage, 'data'))) {
          const log = field(entry, 'log');
          if (isAbsent(log)) continue;
          const heard = noticeOf(str(log), optStr(field(entry, 'owner')));
          if (heard === null) continue;
          notices.push({ atMs: instant(field(entry, 'createdAt')), user: heard.user.toLowerCase(), email: heard.user.toLowerCase(), name: null,
            method: heard.method });
        }
      }
      alerts.push({ id, key: optStr(field(a, 'alias')), createdAtMs: instant(field(a, 'createdAt')), title: optStr(field(a, 'message')) ?? '',
        notices: notices.sort((x, y) => x.atMs - y.atMs) });
    }
  }
  return alerts;
}
