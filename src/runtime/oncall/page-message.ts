/**
 * Which message of a page a channel edits in place (contract §18.1, §21.5), read from the page's own
 * audit trail: every delivery's `message.delivered` row holds the channel's delivery detail (Slack's
 * `channel` and `ts`, Telegram's `chat_id` and `message_id`: the channel's `keys`), is committed with
 * the outcome in one transaction and survives a restart, so the message reference needs no table of
 * its own. The page message is the latest top-level one the channel delivered to that person; thread
 * replies (a `thread_ts` in the detail) are not it.
 */
import type { ListedAuditRow } from '../../store/store.js';

export function pageMessageOf(timeline: readonly ListedAuditRow[], channelId: string, person: string,
  keys: readonly string[] = ['channel', 'ts']): Record<string, string> | null {
  for (let i = timeline.length - 1; i >= 0; i -= 1) {
    const row = timeline[i];
    if (row === undefined || row.kind !== 'message.delivered' || row.dataText === null) continue;
    const data = rowData(row.dataText);
    if (data === null || data.channelId !== channelId || data.person !== person) continue;
    if (data.thread_ts !== undefined || !keys.every((k) => typeof data[k] === 'string')) continue;
    return Object.fromEntries(keys.map((k) => [k, data[k] as string]));
  }
  return null;
}

/** An audit row's data as an object; null when it is missing or not one (a damaged row is passed over, never trusted). */
export function rowData(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : null;
  } catch {
    return null;
  }
}
