/**
 * The old pager's alert log read from saved API answers in the vendors' own shapes
 * (test/fixtures/shadow/: Opsgenie `GET /v2/alerts` in two pages with each alert's `GET
 * /v2/alerts/<id>/logs`; PagerDuty `GET /log_entries?include[]=incidents` in two pages, `GET /incidents`
 * and `GET /users`), and what is refused: exit 2 naming the file and the JSON path.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { UsageError } from '../../core/errors.js';
import { noticeOf } from './opsgenie-alert-log.js';
import { readOldPagerLog } from './old-pager-log.js';

const FIXTURES = fileURLToPath(new URL('../../../test/fixtures/shadow/', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'svc-old-pager-'));
after(() => rmSync(root, { recursive: true, force: true }));

const DISK = '17c4e445d234645c9e547ff6d32a864af0ebdadcd1902771c24c8d366637ff41'; // SHA-256 of {}:{alertname="DiskFull"}
const CERT = 'd372ea62a9bc6af78155e85882d5afbada4d88f3ebfa13fd1586998516cdecaa'; // SHA-256 of {}:{alertname="CertExpiry"}
const t = (iso: string): number => Date.parse(iso);
const refused = (path: string, message: string): void => {
  assert.throws(() => readOldPagerLog(path), (err: unknown) => err instanceof UsageError && err.message === message);
};

describe('the old pager\'s alert log (§22.3)', () => {
  it('Opsgenie: every page of alerts, each with the notifications its log names, in time order; other log lines left alone', () => {
    const log = readOldPagerLog(join(FIXTURES, 'opsgenie'));
    assert.equal(log.vendor, 'opsgenie');
    assert.deepEqual(log.alerts.map((a) => [a.key, a.title, a.createdAtMs, a.notices.map((n) => [n.user, n.method, n.atMs])]), [
      [DISK, 'DiskFull on db-1', t('2026-11-23T10:00:00.120Z'), [['alice@example.com', 'SMS', t('2026-11-23T10:00:10Z')]]],
      ['{}:{alertname="HighLatency"}', 'HighLatency on api', t('2026-11-23T10:00:00.450Z'),
        [['bob@example.com', 'Mobile', t('2026-11-23T10:00:08Z')], ['bob@example.com', 'email', t('2026-11-23T10:00:09Z')]]],
      [CERT, 'CertExpiry on www', t('2026-11-23T10:00:01Z'), [['alice@example.com', 'Voice', t('2026-11-23T10:00:04Z')]]],
      ['d6f2ad1e0b7c4e0d9e1b6c0f5a3d2e1f', 'Disk usage warning', t('2026-11-23T10:00:02Z'), []],
    ]);
  });

  it('Opsgenie log lines: a notification sent names its recipient in the text or as the owner; one not sent, or none, is no notice', () => {
    assert.deepEqual(noticeOf('Sent [SMS] notification to [alice@example.com] with [New Alert] rule.', 'alice@example.com'),
      { user: 'alice@example.com', method: 'SMS' });
    assert.deepEqual(noticeOf('Notified via [Voice]', 'bob@example.com'), { user: 'bob@example.com', method: 'Voice' });
    assert.equal(noticeOf('[SMS] notification to [carol@example.com] was not sent: quiet hours.', 'carol@example.com'), null);
    assert.equal(noticeOf('Viewed on [web]', 'trinity@opsgenie.com'), null);
    assert.equal(noticeOf('Alert acknowledged via web', 'neo@opsgenie.com'), null);
    assert.equal(noticeOf('Notification rule matched', 'System'), null, 'no recipient named');
  });

  it('PagerDuty: incidents of every page with their keys (inline, or from incidents.json), notify entries with the user\'s email (users.json)', () => {
    const log = readOldPagerLog(join(FIXTURES, 'pagerduty'));
    assert.equal(log.vendor, 'pagerduty');
    assert.deepEqual(log.alerts.map((a) => [a.id, a.key, a.title, a.createdAtMs, a.notices.map((n) => [n.user, n.name, n.method, n.atMs])]), [
      ['Q1KD8Y3', DISK, 'DiskFull on db-1', t('2026-11-23T10:00:00Z'), [['alice@example.com', 'Alice Example', 'sms', t('2026-11-23T10:00:12Z')]]],
      ['Q2HL0W2', '{}:{alertname="HighLatency"}', 'HighLatency on api', t('2026-11-23T10:00:00Z'),
        [['bob@example.com', 'Bob Builder', 'email', t('2026-11-23T10:00:07Z')]]],
      ['Q3CE9R7', CERT, 'CertExpiry on www', t('2026-11-23T10:00:01Z'), [['alice@example.com', 'Alice Example', 'push', t('2026-11-23T10:00:03Z')]]],
    ]);
  });

  it('one saved answer as a file: PagerDuty\'s log entries alone (a reference without a key stays keyless), Opsgenie\'s alerts with their logs beside', () => {
    const pd = readOldPagerLog(join(FIXTURES, 'pagerduty', 'log_entries.2.json'));
    assert.deepEqual(pd.alerts.map((a) => [a.id, a.key, a.notices.map((n) => n.user)]), [['Q3CE9R7', null, ['Alice Example']]]);
    const og = readOldPagerLog(join(FIXTURES, 'opsgenie', 'v2', 'alerts.2.json'));
    assert.deepEqual(og.alerts.map((a) => [a.key, a.notices.length]), [[CERT, 1], ['d6f2ad1e0b7c4e0d9e1b6c0f5a3d2e1f', 0]]);
  });

  it('refuses what it cannot read, naming the file and the JSON path (exit 2)', () => {
    refused(join(root, 'missing'), `svc shadow report: --compare ${join(root, 'missing')}: no such file or directory`);
    const empty = join(root, 'empty');
    mkdirSync(empty);
    refused(empty, `svc shadow report: --compare ${empty}: holds neither log_entries.json (PagerDuty) nor v2/alerts.json (Opsgenie); docs/shadow.md says how to save them`);

    const pd = join(root, 'pd');
    cpSync(join(FIXTURES, 'pagerduty'), pd, { recursive: true });
    writeFileSync(join(pd, 'log_entries.2.json'), JSON.stringify({ log_entries: [{ type: 'notify_log_entry', created_at: 5, incident: { id: 'Q9' } }] }));
    refused(pd, 'svc shadow report: log_entries.2.json: $.log_entries[0].created_at: expected an ISO-8601 time, found the number 5');
    writeFileSync(join(pd, 'log_entries.2.json'), '{"log_entries": [');
    refused(pd, 'svc shadow report: log_entries.2.json: $: not valid JSON');
    writeFileSync(join(pd, 'log_entries.2.json'), JSON.stringify({ log_entries: [{ type: 'notify_log_entry', created_at: '2026-11-23T10:00:00Z',
      incident: { id: 'Q9' }, user: { summary: 'Alice' } }] }));
    refused(pd, 'svc shadow report: log_entries.2.json: $.log_entries[0].user.id: expected a string, found nothing');

    const og = join(root, 'og');
    cpSync(join(FIXTURES, 'opsgenie'), og, { recursive: true });
    writeFileSync(join(og, 'v2', 'alerts.2.json'), JSON.stringify({ data: [{ id: '../../etc', createdAt: '2026-11-23T10:00:00Z' }] }));
    refused(og, 'svc shadow report: v2/alerts.2.json: $.data[0].id: not an Opsgenie alert id');
    writeFileSync(join(og, 'v2', 'alerts.2.json'), '[]');
    refused(og, 'svc shadow report: v2/alerts.2.json: $: expected a JSON object (the vendor\'s answer), found another JSON value');

    const other = join(root, 'other.json');
    writeFileSync(other, JSON.stringify({ incidents: [] }));
    refused(other, 'svc shadow report: other.json: $: neither a PagerDuty log_entries answer nor an Opsgenie v2/alerts answer');
  });
});
