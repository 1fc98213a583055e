import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileChannelSchema } from '../../config/schema.js';
import { fakeClock } from '../../core/clock.js';
import type { OutboundMessage } from './channel.js';
import { createChannel } from './create-channel.js';
import { createFileChannel } from './file-channel.js';

const message = (n: number): OutboundMessage => ({
  eventId: `evt-${n}`, agentId: 'oncall', severity: 'P2', status: 'firing', title: `DiskFull on db-${n}`,
  text: `[P2] FIRING: DiskFull on db-${n}\n- disk 95% "full"`, triagedBy: 'rules',
});

describe('file channel', () => {
  let dir = '';
  before(async () => { dir = await mkdtemp(join(tmpdir(), 'svc-file-channel-')); });
  after(() => rm(dir, { recursive: true, force: true }));

  const channelAt = (path: string) => createFileChannel(
    fileChannelSchema.parse({ id: 'oncall-dm', type: 'file', direction: 'outbound', path, to: 'alice' }),
    { clock: fakeClock(Date.parse('2026-11-21T03:12:00.123Z')) });

  it('creates parent directories and appends one JSON line per message', async () => {
    const path = join(dir, 'nested', 'out', 'oncall-dm.jsonl');
    const channel = channelAt(path);
    assert.equal(channel.ready(), true);
    assert.deepEqual(await channel.send(message(1), new AbortController().signal), { ok: true, detail: { path } });
    assert.equal((await channel.send(message(2), new AbortController().signal)).ok, true);
    const lines = (await readFile(path, 'utf8')).split('\n');
    assert.equal(lines.pop(), '', 'file ends with a newline');
    assert.equal(lines.length, 2);
    assert.deepEqual(JSON.parse(lines[0] ?? ''), {
      ts: '2026-11-21T03:12:00.123Z', channel: 'oncall-dm', to: 'alice', eventId: 'evt-1', agentId: 'oncall',
      severity: 'P2', status: 'firing', title: 'DiskFull on db-1', text: '[P2] FIRING: DiskFull on db-1\n- disk 95% "full"',
      triagedBy: 'rules',
    });
  });

  it('concurrent sends never interleave lines', async () => {
    const path = join(dir, 'concurrent.jsonl');
    const channel = channelAt(path);
    const results = await Promise.all(Array.from({ length: 200 }, (_, n) => channel.send(message(n), new AbortController().signal)));
    assert.ok(results.every((r) => r.ok));
    const lines = (await readFile(path, 'utf8')).trimEnd().split('\n');
    assert.equal(lines.length, 200);
    const ids = new Set(lines.map((l) => (JSON.parse(l) as { eventId: string }).eventId));
    assert.equal(ids.size, 200);
  });

  it('an I/O error → retryable failure, not ready; never throws', async () => {
    const blocker = join(dir, 'not-a-dir');
    await writeFile(blocker, 'x');
    const channel = channelAt(join(blocker, 'out.jsonl'));
    const result = await channel.send(message(1), new AbortController().signal);
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.equal(result.retryable, true);
    assert.match(result.error, /^write failed: /);
    assert.equal(channel.ready(), false);
  });

  it('an aborted signal → no write', async () => {
    const path = join(dir, 'aborted.jsonl');
    const controller = new AbortController();
    controller.abort();
    const result = await channelAt(path).send(message(1), controller.signal);
    assert.equal(result.ok, false);
    await assert.rejects(readFile(path), { code: 'ENOENT' });
  });

  it('createChannel builds it; outbound only; closed after close()', async () => {
    const channel = createChannel(fileChannelSchema.parse({ id: 'c1', type: 'file', direction: 'outbound',
      path: join(dir, 'c1.jsonl'), maxAttempts: 3 }), { clock: fakeClock(0) });
    assert.equal(channel.type, 'file');
    assert.equal(channel.maxAttempts, 3);
    assert.deepEqual(channel.receive({ from: 'x', text: 'y' }), { handled: false, reason: 'outbound-only' });
    await channel.close();
    assert.equal(channel.ready(), false);
  });
});
