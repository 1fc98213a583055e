import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileChannelSchema } from '../../config/schema.js';
import { fakeClock } from '../../core/clock.js';
import type { OutboundMessage, WireGate } from './channel.js';
import { NOT_SENT } from './channel.js';
import { createChannel } from './create-channel.js';
import { createFileChannel } from './file-channel.js';

const message = (n: number): OutboundMessage => ({
  eventId: `evt-${n}`, agentId: 'oncall', severity: 'P2', status: 'firing', title: `DiskFull on db-${n}`,
  text: `[P2] FIRING: DiskFull on db-${n}\n- disk 95% "full"`, triagedBy: 'rules',
  deliveryId: `evt-${n}.oncall-dm`, attempt: 1,
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
      triagedBy: 'rules', deliveryId: 'evt-1.oncall-dm',
    });
  });

  it('a later claim of an event whose line is already in the file writes no second line, even after a restart', async () => {
    const path = join(dir, 'dedupe.jsonl');
    const first = channelAt(path);
    assert.equal((await first.send(message(1), new AbortController().signal)).ok, true);
    assert.equal((await first.send(message(2), new AbortController().signal)).ok, true);
    // Same process, a later claim (the lease ran out after the write).
    assert.deepEqual(await first.send({ ...message(1), attempt: 2 }, new AbortController().signal),
      { ok: true, detail: { path, duplicate: 'true' } });
    await first.close();
    // A new process (restart after a crash): the ids come from the file's tail.
    const second = channelAt(path);
    // Checks that arrive together (a restart hands over many events at once) all wait for the one tail read.
    const [again1, again2] = await Promise.all([second.send({ ...message(2), attempt: 3 }, new AbortController().signal),
      second.send({ ...message(1), attempt: 2 }, new AbortController().signal)]);
    assert.deepEqual([again1, again2], [{ ok: true, detail: { path, duplicate: 'true' } }, { ok: true, detail: { path, duplicate: 'true' } }]);
    assert.deepEqual(await second.send({ ...message(3), attempt: 2 }, new AbortController().signal), { ok: true, detail: { path } });
    const ids = (await readFile(path, 'utf8')).trimEnd().split('\n').map((l) => (JSON.parse(l) as { deliveryId: string }).deliveryId);
    assert.deepEqual(ids, ['evt-1.oncall-dm', 'evt-2.oncall-dm', 'evt-3.oncall-dm']);
  });

  it('a first claim is written even when an equal id is in the file (only later claims are checked)', async () => {
    const path = join(dir, 'first-claims.jsonl');
    const channel = channelAt(path);
    await channel.send(message(1), new AbortController().signal);
    await channel.send(message(1), new AbortController().signal);
    assert.equal((await readFile(path, 'utf8')).trimEnd().split('\n').length, 2);
  });

  it('follows a rotation: after the file is renamed away, lines go to a new file at the path', async () => {
    const path = join(dir, 'rotated.jsonl');
    const clock = fakeClock(0);
    const channel = createFileChannel(fileChannelSchema.parse({ id: 'oncall-dm', type: 'file', direction: 'outbound', path }), { clock });
    await channel.send(message(1), new AbortController().signal);
    await rename(path, `${path}.1`);
    clock.advance(1_000);
    await channel.send(message(2), new AbortController().signal);
    assert.equal((await readFile(`${path}.1`, 'utf8')).trimEnd().split('\n').length, 1);
    assert.equal((JSON.parse((await readFile(path, 'utf8')).trimEnd()) as { eventId: string }).eventId, 'evt-2');
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

  it('a page message takes its last look right before its line is written, and leaves once it is in the file', async () => {
    const path = join(dir, 'gated.jsonl');
    const channel = channelAt(path);
    const inFile = (): number => (existsSync(path) ? readFileSync(path, 'utf8') : '').split('\n').filter((l) => l !== '').length;
    const seen: string[] = [];
    const gate = (go: boolean): WireGate => ({
      enter: () => { seen.push(`enter with ${inFile()} line(s)`); return Promise.resolve(go); },
      leave: () => { seen.push(`left with ${inFile()} line(s)`); },
    });
    assert.deepEqual(await channel.send(message(1), new AbortController().signal, gate(false)), NOT_SENT);
    assert.equal(inFile(), 0, 'a look that says no writes nothing');
    assert.equal((await channel.send(message(2), new AbortController().signal, gate(true))).ok, true);
    assert.deepEqual(seen, ['enter with 0 line(s)', 'enter with 0 line(s)', 'left with 1 line(s)']);
    await channel.close();
  });
});
