import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Clock } from '../core/clock.js';
import { systemClock } from '../core/clock.js';
import { RuntimeError } from '../core/errors.js';
import { FIXTURE_NOW_MS, fixtureDir, importFixture } from '../../test/support/import-fixtures.js';
import { startFakeVendorApi } from '../../test/support/fake-vendor-api.js';
import { DEFAULT_CONTACT_CHANNELS } from './contact-channels.js';
import { fetchLive } from './fetch-live.js';
import { IMPORT_VENDORS } from './import-result.js';
import type { ImportVendor } from './import-result.js';
import { readSavedDir } from './read-saved-dir.js';
import { VENDOR_SPECS } from './vendors.js';

const TOKEN = 'tok-3f9c0a1b2d4e5f60';

/** Real timers (request deadlines), but sleeps recorded and over at once: the waits asked for are the evidence. */
function recordingClock(): { clock: Clock; slept: number[] } {
  const slept: number[] = [];
  return { slept, clock: { ...systemClock, now: () => FIXTURE_NOW_MS, sleep: (ms) => { slept.push(ms); return Promise.resolve(); } } };
}

async function fetchFrom(vendor: ImportVendor, opts: Parameters<typeof startFakeVendorApi>[2], apiPath = '') {
  const api = await startFakeVendorApi(vendor, fixtureDir(vendor), opts);
  const dir = mkdtempSync(join(tmpdir(), `svc-live-${vendor}-`));
  const { clock, slept } = recordingClock();
  const progress: string[] = [];
  try {
    const answers = await fetchLive({ spec: VENDOR_SPECS[vendor], apiUrl: `${api.url}${apiPath}`, token: TOKEN, dir, nowMs: FIXTURE_NOW_MS, clock, progress: (l) => progress.push(l) });
    return { answers, dir, requests: api.requests, slept, progress };
  } finally {
    await api.close();
  }
}

describe('the live fetch (--api URL --token-env VAR)', () => {
  for (const vendor of IMPORT_VENDORS) {
    it(`${vendor}: GETs every page of every answer with the token, saves the export, and it imports as the saved one does`, async () => {
      const { answers, dir, requests } = await fetchFrom(vendor, { token: TOKEN, pageSize: 2 });
      assert.ok(requests.length > 5);
      assert.ok(requests.every((r) => r.method === 'GET' && r.headers.authorization === VENDOR_SPECS[vendor].authHeaders(TOKEN).Authorization));
      const fromApi = VENDOR_SPECS[vendor].map(answers, { nowMs: FIXTURE_NOW_MS, channels: DEFAULT_CONTACT_CHANNELS });
      const fromDir = VENDOR_SPECS[vendor].map(readSavedDir(dir), { nowMs: FIXTURE_NOW_MS, channels: DEFAULT_CONTACT_CHANNELS });
      const fixture = importFixture(vendor).result;
      for (const got of [fromApi, fromDir]) {
        assert.deepEqual(got.config, fixture.config);
        assert.deepEqual(got.lines.map((l) => [l.kind, l.outcome, l.target]), fixture.lines.map((l) => [l.kind, l.outcome, l.target]));
      }
      // Each schedule's rendering came too, for --verify.
      assert.equal(VENDOR_SPECS[vendor].renderings(readSavedDir(dir), fromDir).length, 2);
    });
  }

  it('pages Opsgenie with offset and limit, PagerDuty until more is false, OnCall along its next links', async () => {
    const og = await fetchFrom('opsgenie', { token: TOKEN, pageSize: 2 });
    assert.deepEqual(og.requests.filter((r) => r.path === 'v2/users').map((r) => `${r.query.get('offset')}/${r.query.get('limit')}`), ['0/100', '2/100']);
    const pd = await fetchFrom('pagerduty', { token: TOKEN, pageSize: 2 });
    assert.deepEqual(pd.requests.filter((r) => r.path === 'users').map((r) => [r.query.get('offset'), r.query.getAll('include[]').join('+')]),
      [['0', 'contact_methods+notification_rules'], ['2', 'contact_methods+notification_rules']]);
    assert.ok(pd.answers.has('users') && readSavedDir(pd.dir).list('users', 'users')?.length === 4);
    const oncall = await fetchFrom('grafana-oncall', { token: TOKEN, pageSize: 2 }, '/');
    assert.deepEqual(oncall.requests.filter((r) => r.path === 'api/v1/users').map((r) => r.query.get('page')), [null, '2']);
  });

  it('waits as long as a 429 asks: Retry-After, else PagerDuty\'s ratelimit-reset', async () => {
    const og = await fetchFrom('opsgenie', { token: TOKEN, throttle: { path: 'v2/users', headers: { 'Retry-After': '7', 'X-RateLimit-State': 'THROTTLED' } } });
    assert.deepEqual(og.slept, [7000]);
    assert.equal(og.requests.filter((r) => r.path === 'v2/users' && r.query.get('offset') === '0').length, 2, 'asked again after the wait');
    assert.match(og.progress.join('\n'), /Opsgenie asks to slow down \(429\): waiting 7 s/);
    const pd = await fetchFrom('pagerduty', { token: TOKEN, throttle: { path: 'escalation_policies', headers: { 'ratelimit-limit': '960', 'ratelimit-remaining': '0', 'ratelimit-reset': '3' } } });
    assert.ok(pd.slept.includes(3000), `slept ${pd.slept.join(', ')}`);
  });

  it('refuses a next link to another host, and a refused token, without ever showing the token', async () => {
    const elsewhere = await startFakeVendorApi('grafana-oncall', fixtureDir('grafana-oncall'), { token: TOKEN });
    try {
      await assert.rejects(fetchFrom('grafana-oncall', { token: TOKEN, pageSize: 2, nextOrigin: elsewhere.url }),
        (err: Error) => err instanceof RuntimeError && /points its next page at another host/.test(err.message) && !err.message.includes(TOKEN));
      assert.equal(elsewhere.requests.length, 0, 'the other host never saw the token');
    } finally {
      await elsewhere.close();
    }
    const api = await startFakeVendorApi('pagerduty', fixtureDir('pagerduty'), { token: 'another' });
    try {
      await assert.rejects(fetchLive({ spec: VENDOR_SPECS.pagerduty, apiUrl: api.url, token: TOKEN, dir: mkdtempSync(join(tmpdir(), 'svc-live-')),
        nowMs: FIXTURE_NOW_MS, clock: recordingClock().clock, progress: () => undefined }),
      (err: Error) => /GET users \(page 1\) answered HTTP 401: the vendor refused the token/.test(err.message) && !err.message.includes(TOKEN));
    } finally {
      await api.close();
    }
  });
});
