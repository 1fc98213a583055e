/**
 * The old pager's alert log, as `svc shadow report --compare` reads it (contract §22.3): each alert
 * with its key (Opsgenie's `alias`, PagerDuty's `incident_key`), when it was created, and whom it
 * notified when. The vendor is told by what the path holds:
 *
 * - a directory with `log_entries.json` (PagerDuty `GET /log_entries?include[]=incidents`, with
 *   `incidents.json` and `users.json` beside it when saved), or with `v2/alerts.json` (Opsgenie
 *   `GET /v2/alerts`, each alert's `GET /v2/alerts/<id>/logs` as `v2/alerts/<id>/logs.json`);
 * - a file: one such answer (`log_entries`; or Opsgenie's alerts, their logs in the directory named
 *   like the file without `.json` beside it).
 */
import { statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { UsageError } from '../../core/errors.js';
import type { OldAlert, OldPager } from './old-alert.js';
import { opsgenieAlerts } from './opsgenie-alert-log.js';
import { pagerdutyAlerts } from './pagerduty-log-entries.js';
import { field, isAbsent, readAnswer, readPages } from './saved-json.js';

export interface OldPagerLog {
  vendor: OldPager;
  alerts: OldAlert[];
}

export function readOldPagerLog(path: string): OldPagerLog {
  let isDir: boolean;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    throw new UsageError(`svc shadow report: --compare ${path}: no such file or directory`);
  }
  const budget = { files: 0 };
  if (isDir) {
    const entries = readPages(join(path, 'log_entries'), 'log_entries', budget);
    if (entries.length > 0) {
      return { vendor: 'pagerduty', alerts: pagerdutyAlerts(entries, readPages(join(path, 'incidents'), 'incidents', budget),
        readPages(join(path, 'users'), 'users', budget)) };
    }
    const alerts = readPages(join(path, 'v2', 'alerts'), 'v2/alerts', budget);
    if (alerts.length > 0) {
      return { vendor: 'opsgenie', alerts: opsgenieAlerts(alerts, (id) => readPages(join(path, 'v2', 'alerts', id, 'logs'), `v2/alerts/${id}/logs`, budget)) };
    }
    throw new UsageError(`svc shadow report: --compare ${path}: holds neither log_entries.json (PagerDuty) nor v2/alerts.json (Opsgenie); `
      + 'docs/shadow.md says how to save them');
  }
  const name = basename(path);
  const answer = readAnswer(path, name);
  if (!isAbsent(field(answer, 'log_entries'))) return { vendor: 'pagerduty', alerts: pagerdutyAlerts([answer], [], []) };
  if (Array.isArray(field(answer, 'data').value)) {
    // `v2/alerts.json` or a further page of it, `v2/alerts.2.json`: the logs are under `v2/alerts/`.
    const logs = join(dirname(path), name.replace(/(\.\d{1,6})?\.json$/, ''));
    return { vendor: 'opsgenie', alerts: opsgenieAlerts([answer], (id) => readPages(join(logs, id, 'logs'), `${basename(logs)}/${id}/logs`, budget)) };
  }
  throw new UsageError(`svc shadow report: ${name}: $: neither a PagerDuty log_entries answer nor an Opsgenie v2/alerts answer`);
}
