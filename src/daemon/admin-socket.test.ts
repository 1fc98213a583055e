/** The admin socket's protocol on a stand-in store: strict validation, bounded reads, one answer per connection. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { systemClock } from '../core/clock.js';
import type { Store } from '../store/store.js';
import { MAX_REQUEST_BYTES } from './admin-protocol.js';
import { startAdminSocket } from './admin-socket.js';
import { waitFor, within } from '../../test/support/wait.js';

const root = mkdtempSync(join(tmpdir(), 'svc-admin-'));
after(() => rmSync(root, { recursive: true, force: true }));

function exchange(path: string, text: string | Buffer): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ path });
    let answer = '';
    socket.on('data', (d: Buffer) => { answer += d.toString(); });
    socket.on('end', () => resolve(JSON.parse(answer) as Record<string, unknown>));
    socket.on('error', reject);
    socket.end(text);
  });
}

describe('admin socket', async () => {
  const path = join(root, 'admin.sock');
  const replays: unknown[] = [];
  const actors: Array<[string, string | undefined]> = [];
  let wakes = 0;
  const listed: Array<[string | null, number]> = [];
  const store = {
    oncall: { listOverrides: (agentId: string | null, endsAfterMs: number) => { listed.push([agentId, endsAfterMs]); return Promise.resolve([]); } },
    replayDeadLetters: (selection: unknown, actor: string, _nowMs: number, via?: string) => {
      replays.push(selection);
      actors.push([actor, via]);
      return Promise.resolve({ replayed: ['dl-1'], missing: [] }); },
  } as unknown as Store;
  const admin = await startAdminSocket({ path, store, storePath: null, clock: systemClock, pid: 42, wake: () => { wakes += 1; }, report: () => undefined });
  after(() => admin.close());

  it('is mode 0600 and answers ping', async () => {
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.deepEqual(await exchange(path, '{"op":"ping"}\n'), { ok: true, op: 'ping', pid: 42 });
  });

  it('replays by ids or --all with filters, and wakes the dispatcher', async () => {
    assert.deepEqual(await exchange(path, '{"op":"dlq.replay","ids":["dl-1"]}\n'),
      { ok: true, op: 'dlq.replay', replayed: ['dl-1'], missing: [], replayedCount: 1, missingCount: 0 });
    await exchange(path, '{"op":"dlq.replay","all":true,"source":"alertmanager","reason":"delivery-failed"}\n');
    assert.deepEqual(replays, [{ ids: ['dl-1'] }, { sourceId: 'alertmanager', reason: 'delivery-failed', afterSeq: 0, limit: 500 }]);
    assert.equal(wakes, 2);
    assert.deepEqual(actors.slice(0, 2), [['admin-socket', undefined], ['admin-socket', undefined]]);
  });

  it('names the console and its signed-in operator as the actor of a replay asked through it', async () => {
    const answer = await exchange(path, '{"op":"dlq.replay","ids":["dl-1"],"via":"console","actor":"user:alice@example.com"}\n');
    assert.equal(answer.ok, true);
    assert.deepEqual(actors.at(-1), ['user:alice@example.com', 'console']);
  });

  it('answers override.ls from the store: the overrides not ended now', async () => {
    assert.deepEqual(await exchange(path, '{"op":"override.ls","user":"dana"}\n'), { ok: true, op: 'override.ls', overrides: [] });
    assert.equal(listed.length, 1);
  });

  const refused: Array<[string, string, RegExp]> = [
    ['not JSON', 'hello\n', /not JSON/],
    ['unknown op', '{"op":"drop-tables"}\n', /bad request/],
    ['unknown key', '{"op":"ping","sudo":true}\n', /bad request/],
    ['ids and all', '{"op":"dlq.replay","ids":["a"],"all":true}\n', /ids or all, not both/],
    ['neither ids nor all', '{"op":"dlq.replay"}\n', /ids or all/],
    ['relative backup path', '{"op":"backup","path":"backup.db"}\n', /path/],
    ['an actor without via', '{"op":"dlq.replay","ids":["a"],"actor":"user:x"}\n', /actor and via/],
    ['an actor with spaces', '{"op":"dlq.replay","ids":["a"],"via":"console","actor":"user x"}\n', /actor/],
    ['a source that is no id', '{"op":"dlq.replay","all":true,"source":"../x"}\n', /source/],
    ['an override list of a schedule that is no id', '{"op":"override.ls","schedule":"../x","user":"dana"}\n', /^bad request: schedule: /],
    ['an override list of an agent that is no id', '{"op":"override.ls","agent":"A B","user":"dana"}\n', /^bad request: agent: /],
    ['an override list without its user', '{"op":"override.ls"}\n', /^bad request: user: /],
  ];
  for (const [name, text, error] of refused) {
    it(`refuses ${name}, changing nothing`, async () => {
      const before = [replays.length, listed.length];
      const answer = await exchange(path, text);
      assert.equal(answer.ok, false);
      assert.match(String(answer.error), error);
      assert.deepEqual([replays.length, listed.length], before);
    });
  }

  it('lets go of a client once it is answered, even one that never closes its side', async () => {
    const socket = createConnection({ path });
    let answer = '';
    socket.on('data', (d: Buffer) => { answer += d.toString(); });
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write('{"op":"ping"}\n'); // no end(): a client that stays half-open
    await within(closed, 'the daemon closing the answered connection');
    assert.deepEqual(JSON.parse(answer), { ok: true, op: 'ping', pid: 42 });
  });

  it('refuses a request over 64 KiB without reading on', async () => {
    const answer = await exchange(path, Buffer.alloc(MAX_REQUEST_BYTES + 10, 0x61));
    assert.deepEqual(answer, { ok: false, error: `request over ${MAX_REQUEST_BYTES} bytes` });
  });
});

describe('admin socket close', () => {
  it('does not wait for a connected client that sends nothing', async () => {
    const path = join(root, 'silent.sock');
    const admin = await startAdminSocket({ path, store: {} as Store, storePath: null, clock: systemClock, pid: 7, wake: () => undefined,
      report: () => undefined });
    const socket = createConnection({ path });
    await new Promise<void>((resolve) => socket.on('connect', () => resolve()));
    const clientClosed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.on('error', () => undefined);
    await within(admin.close(), 'close() with a silent client connected');
    await within(clientClosed, 'the silent client cut off');
  });
});

describe('admin socket close with an unread answer', () => {
  it('does not wait for a client that asked for a large answer and never reads it', async () => {
    const path = join(root, 'unread.sock');
    let asked = false;
    // 400 KB of answer (1,000 ids of 200 characters in each list, the most it carries): more than
    // the kernel buffers of a Unix socket hold.
    const ids = Array.from({ length: 1000 }, (_, i) => `dl-${String(i).padStart(197, '0')}`);
    const store = { replayDeadLetters: () => { asked = true; return Promise.resolve({ replayed: ids, missing: ids }); } } as unknown as Store;
    const admin = await startAdminSocket({ path, store, storePath: null, clock: systemClock, pid: 7, wake: () => undefined, report: () => undefined });
    const socket = createConnection({ path });
    socket.pause(); // never reads
    socket.on('error', () => undefined);
    const clientClosed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write('{"op":"dlq.replay","ids":["x"]}\n');
    await waitFor('the request handled', () => asked);
    await new Promise((r) => setImmediate(r)); // the answer is being written
    await within(admin.close(), 'close() with a client that does not read its answer');
    socket.resume(); // reading now, it finds its connection ended by the daemon
    await within(clientClosed, 'the client cut off');
  });
});

describe('admin socket replay --all', () => {
  it('goes in chunks of 500 letters, each its own store call, and answers counts with at most 1,000 ids of each list', async () => {
    const path = join(root, 'chunks.sock');
    const calls: Array<{ afterSeq?: number; limit?: number }> = [];
    let wakes = 0;
    // 2,400 letters: seqs 1..2400, every tenth one missing (its event was replayed already).
    const store = { replayDeadLetters: (s: { afterSeq: number; limit: number }) => {
      calls.push(s);
      const seqs = Array.from({ length: Math.max(0, Math.min(s.limit, 2400 - s.afterSeq)) }, (_, i) => s.afterSeq + 1 + i);
      const last = seqs[seqs.length - 1];
      return Promise.resolve({ replayed: seqs.filter((n) => n % 10 !== 0).map((n) => `dl-${n}`), missing: seqs.filter((n) => n % 10 === 0).map((n) => `dl-${n}`),
        ...(last === undefined ? {} : { lastSeq: last }) });
    } } as unknown as Store;
    const admin = await startAdminSocket({ path, store, storePath: null, clock: systemClock, pid: 7, wake: () => { wakes += 1; }, report: () => undefined });
    after(() => admin.close());
    const answer = await exchange(path, '{"op":"dlq.replay","all":true}\n');
    assert.deepEqual(calls.map((c) => [c.afterSeq, c.limit]), [[0, 500], [500, 500], [1000, 500], [1500, 500], [2000, 500]]);
    assert.equal(wakes, 5);
    assert.deepEqual([answer.replayedCount, answer.missingCount], [2160, 240]);
    assert.equal((answer.replayed as string[]).length, 1000);
    assert.deepEqual((answer.replayed as string[]).slice(0, 2), ['dl-1', 'dl-2']);
    assert.equal((answer.missing as string[]).length, 240);
  });
});
