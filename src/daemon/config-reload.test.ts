import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { NewAuditEntry } from '../audit/audit-row.js';
import type { LoadedAgent } from '../config/schema.js';
import type { StoreSettings } from '../config/store.js';
import { ConfigError } from '../core/errors.js';
import type { DaemonConfig } from './config-reload.js';
import { createConfigReload } from './config-reload.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-reload-'));
const sha = (text: string): string => createHash('sha256').update(text).digest('hex');

function config(channels: unknown[], port = 8787): DaemonConfig {
  const agent = { dir, agent: { id: 'a', provider: 'rules', skills: [], mcpServers: [], rateLimits: { tools: {} }, rules: {} },
    sources: [{ id: 'alertmanager', bind: '127.0.0.1', port }], channels, skills: [] } as unknown as LoadedAgent;
  return { agents: [agent], oncall: new Map(), otlp: null, store: { kind: 'sqlite', path: '/x.db' } as unknown as StoreSettings,
    controlPlane: { enabled: false, bind: '127.0.0.1', port: 0, maxConnections: 1, auth: null, allowRemote: false, publicUrl: null } };
}

describe('createConfigReload', () => {
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = { id: 'dm', type: 'file', path: '/tmp/dm.jsonl' };
  const hook = { id: 'hook', type: 'webhook', url: 'http://127.0.0.1:1/' };

  it('applies a valid change once, audits the changed file with its sha256, and refuses what is invalid or needs a restart', async () => {
    writeFileSync(join(dir, 'channels.yaml'), 'channels: [dm]\n');
    writeFileSync(join(dir, 'agent.yaml'), 'id: a\n');
    let next: () => DaemonConfig = () => config([file]);
    const audit: NewAuditEntry[] = [];
    const applied: DaemonConfig[] = [];
    const reload = createConfigReload({ initial: config([file]), load: () => next(), apply: (c) => { applied.push(c); },
      audit: (e) => { audit.push(e); return Promise.resolve(); }, report: () => undefined });

    writeFileSync(join(dir, 'channels.yaml'), 'channels: [dm, hook]\n');
    next = () => config([file, hook]);
    const ok = await reload.reload('admin-socket');
    assert.deepEqual(ok, { ok: true, files: [{ path: join(dir, 'channels.yaml'), sha256: sha('channels: [dm, hook]\n') }],
      agents: [{ agentId: 'a', channelsAdded: ['hook'], channelsRemoved: [], channelsChanged: [], keys: [] }] });
    assert.equal(applied.length, 1);

    next = () => { throw new ConfigError(`${join(dir, 'channels.yaml')}:2:5: channels.1.colour: unknown key "colour"`); };
    const invalid = await reload.reload('signal:SIGHUP');
    assert.deepEqual(invalid, { ok: false, reason: 'invalid', error: `${join(dir, 'channels.yaml')}:2:5: channels.1.colour: unknown key "colour"` });

    next = () => config([file, hook], 9999);
    const restart = await reload.reload('admin-socket');
    assert.deepEqual(restart, { ok: false, reason: 'needs-restart',
      error: 'this change needs a restart (svc down, then svc up): a: event-sources.yaml sources.alertmanager.port' });
    assert.equal(applied.length, 1, 'nothing refused was applied');
    assert.deepEqual(audit.map((e) => [e.kind, e.actor, (e.data as { reason?: string }).reason ?? null]),
      [['config.reloaded', 'admin-socket', null], ['config.reload-refused', 'signal:SIGHUP', 'invalid'], ['config.reload-refused', 'admin-socket', 'needs-restart']]);

    // The refusals left the running configuration as the last applied one: the same files again change nothing.
    next = () => config([file, hook]);
    assert.deepEqual(await reload.reload('admin-socket'), { ok: true, files: [], agents: [] });
  });

  it('refuses (strands-state) an oncall.yaml that drops what the store still names, naming each line; applies once nothing is stranded', async () => {
    const audit: NewAuditEntry[] = [];
    const applied: DaemonConfig[] = [];
    let stranded = ['agent a: override o1 puts carol on call for primary until 2026-11-25T10:00:00.000Z, and the new oncall.yaml has no person carol'];
    const asked: DaemonConfig[] = [];
    const reload = createConfigReload({ initial: config([file]), load: () => config([file]), apply: (c) => { applied.push(c); },
      audit: (e) => { audit.push(e); return Promise.resolve(); }, report: () => undefined,
      stranded: (next) => { asked.push(next); return Promise.resolve(stranded); } });
    const refused = await reload.reload('admin-socket');
    assert.deepEqual(refused, { ok: false, reason: 'strands-state', error: 'the new configuration drops people, schedules or channels the store still names:\n'
      + '  agent a: override o1 puts carol on call for primary until 2026-11-25T10:00:00.000Z, and the new oncall.yaml has no person carol\n'
      + 'resolve those pages or remove those overrides (svc oncall override rm ID) first, or keep the person, schedule or channel' });
    assert.equal(applied.length, 0);
    assert.deepEqual(audit.map((e) => [e.kind, (e.data as { reason?: string }).reason]), [['config.reload-refused', 'strands-state']]);
    stranded = [];
    assert.equal((await reload.reload('admin-socket')).ok, true);
    assert.equal(applied.length, 1);
    assert.equal(asked.length, 2);
    assert.deepEqual(asked[0]?.agents.map((a) => a.channels), [[file]], 'asked with the new channels as well as the on-call files');
  });

  it('runs reloads one at a time, in the order asked', async () => {
    const order: string[] = [];
    let release = (): void => undefined;
    const gate = new Promise<void>((r) => { release = r; });
    const reload = createConfigReload({ initial: config([file]), load: () => config([file]),
      apply: () => undefined, report: () => undefined,
      audit: async (e) => { order.push(`start ${String(e.actor)}`); if (e.actor === 'first') await gate; order.push(`end ${String(e.actor)}`); } });
    const first = reload.reload('first');
    const second = reload.reload('second');
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(order, ['start first']);
    release();
    await Promise.all([first, second]);
    assert.deepEqual(order, ['start first', 'end first', 'start second', 'end second']);
  });
});
