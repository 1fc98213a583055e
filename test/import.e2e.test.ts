/**
 * `svc import` end to end, as a team moving in runs it (contract §22.1, §22.2): the built CLI imports
 * each vendor's export into an agent made by `svc init`, proves it against the vendor's own rendering,
 * and the agent — with the channels the report asks for — passes `svc check`. Then the same from a live
 * API (a loopback fake of Opsgenie's, throttling once), saved into a directory on the way.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { IMPORT_VENDORS } from '../src/import/import-result.js';
import { startFakeVendorApi } from './support/fake-vendor-api.js';
import { FIXTURE_NOW, fixtureDir } from './support/import-fixtures.js';
import { runSvc, scaffoldAgent, tempEnv } from './support/svc.js';

/** The channel ids the report's channels.yaml block names. */
function channelsAsked(report: string): string[] {
  const block = /```yaml\nchannels:\n([\s\S]*?)```/.exec(report)?.[1] ?? '';
  return [...block.matchAll(/- \{ id: ([a-z0-9._-]+),/g)].map((m) => m[1] as string);
}

/** The report's channels, as file channels: enough for `svc check` (the twilio, ntfy and telegram types are another issue's). */
function addChannels(dir: string, ids: readonly string[]): void {
  const file = join(dir, 'channels.yaml');
  const lines = ids.map((id) => `  - { id: ${id}, type: file, direction: outbound, path: ./out/${id}.jsonl }`);
  writeFileSync(file, readFileSync(file, 'utf8').replace('channels:\n', `channels:\n${lines.join('\n')}\n`));
}

describe('svc import (built CLI)', () => {
  const t = tempEnv();
  after(() => t.cleanup());

  for (const vendor of IMPORT_VENDORS) {
    it(`${vendor}: imports, verifies identical, and the agent passes svc check`, async () => {
      const { dir } = await scaffoldAgent(t, vendor, 'rules', vendor);
      const run = await runSvc(['import', vendor, fixtureDir(vendor), '--at', FIXTURE_NOW, '--verify', fixtureDir(vendor), '--out', join(dir, 'oncall.yaml'),
        '--agent', vendor], { env: t.env, cwd: dir });
      assert.equal(run.code, 3, run.stderr);
      assert.match(run.stdout, /verify platform-primary: identical with .* over 2026-03-20T12:00:00Z – 2026-04-17T12:00:00Z\nverify database: identical/);
      const report = readFileSync(join(dir, 'import-report.md'), 'utf8');
      assert.match(report, /## Verification\n\n2 schedule\(s\) compared .*; all identical\./);
      const asked = channelsAsked(report);
      assert.ok(asked.includes('mail'), report);
      const refused = await runSvc(['check', dir], { env: t.env, cwd: dir });
      assert.equal(refused.code, 2, 'without the channels the report names, svc check refuses the file');
      assert.match(refused.stderr, /a contact on channel "mail", which the agent does not have/);
      addChannels(dir, asked);
      const check = await runSvc(['check', dir], { env: t.env, cwd: dir });
      assert.equal(check.code, 0, check.stdout + check.stderr);
    });
  }

  it('fetches a live Opsgenie export into DIR through a 429, and verifies from what it saved', async () => {
    const api = await startFakeVendorApi('opsgenie', fixtureDir('opsgenie'), { token: 'og-e2e-key', pageSize: 2,
      throttle: { path: 'v2/escalations', headers: { 'Retry-After': '1', 'X-RateLimit-State': 'THROTTLED', 'X-RateLimit-Period-In-Sec': '60' } } });
    try {
      const { dir } = await scaffoldAgent(t, 'live', 'rules', 'live');
      const run = await runSvc(['import', 'opsgenie', join(dir, 'og-export'), '--api', api.url, '--token-env', 'OG_KEY', '--at', FIXTURE_NOW,
        '--verify', join(dir, 'og-export')], { env: { ...t.env, OG_KEY: 'og-e2e-key' }, cwd: dir });
      assert.equal(run.code, 3, run.stderr);
      assert.match(run.stderr, /Opsgenie asks to slow down \(429\): waiting 1 s/);
      assert.match(run.stdout, /verify database: identical with Opsgenie/);
      assert.ok(existsSync(join(dir, 'og-export', 'v2', 'users.2.json')));
      assert.ok(!(run.stdout + run.stderr + readFileSync(join(dir, 'import-report.md'), 'utf8')).includes('og-e2e-key'));
      assert.ok(api.requests.every((r) => r.method === 'GET'));
    } finally {
      await api.close();
    }
  });
});
