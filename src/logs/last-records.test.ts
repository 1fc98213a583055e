import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { crc32 } from 'node:zlib';
import { MAX_TAIL_BYTES, lastRecords } from './last-records.js';

describe('the newest log records and where each file stands (§24.8: the log view opens with the last 100)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-last-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const path = (agent: string): string => join(dir, `${agent}.log`);
  const line = (agent: string, i: number, ts: number): string => `${JSON.stringify({ ts: new Date(ts).toISOString(), agentId: agent, event: `e${i}` })}\n`;

  it('the last N of all files by time, oldest first; each position is the end of its file\'s last whole line', async () => {
    const t0 = Date.UTC(2026, 10, 25, 12);
    writeFileSync(path('a'), Array.from({ length: 150 }, (_, i) => line('a', i, t0 + i * 2000)).join(''));
    writeFileSync(path('b'), Array.from({ length: 150 }, (_, i) => line('b', i, t0 + i * 2000 + 1000)).join(''));
    appendFileSync(path('b'), '{"ts":"2026-11-25T13:00:00Z","partial');
    const got = await lastRecords(['a', 'b', 'missing'], path, 100);
    assert.equal(got.records.length, 100);
    assert.deepEqual(got.records.slice(-2).map((r) => [r.agentId, (JSON.parse(r.text) as { event: string }).event]), [['a', 'e149'], ['b', 'e149']]);
    assert.deepEqual(got.records[0] && [got.records[0].agentId, (JSON.parse(got.records[0].text) as { event: string }).event], ['a', 'e100']);
    const lastA = line('a', 149, t0 + 149 * 2000);
    const pa = got.positions.get('a');
    assert.deepEqual(pa && { end: pa.end, len: pa.len, crc: pa.crc }, { end: statSync(path('a')).size, len: Buffer.byteLength(lastA),
      crc: crc32(Buffer.from(lastA)) >>> 0 });
    // The partial line is not a record, and not passed: the stream will send it once it is whole.
    const pb = got.positions.get('b');
    assert.equal(pb?.end, statSync(path('b')).size - Buffer.byteLength('{"ts":"2026-11-25T13:00:00Z","partial'));
    assert.deepEqual(got.positions.get('missing'), { ino: 0, end: 0, len: 0, crc: 0 });
  });

  it('only the end of a big file is read; the piece of a line the window starts in is dropped', async () => {
    const big = 'x'.repeat(1000);
    const n = Math.ceil((2 * MAX_TAIL_BYTES) / 1050);
    writeFileSync(path('big'), Array.from({ length: n }, (_, i) => `${JSON.stringify({ ts: i, pad: big })}\n`).join(''));
    const got = await lastRecords(['big'], path, 1000);
    assert.ok(got.records.length < n && got.records.length > 200, String(got.records.length));
    assert.ok(got.records.every((r) => r.text.startsWith('{"ts":')), 'whole lines only');
    assert.equal((JSON.parse(got.records.at(-1)?.text ?? '{}') as { ts: number }).ts, n - 1);
  });
});
