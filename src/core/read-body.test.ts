import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BodyTooLargeError, LineTooLongError, readBodyPrefix, readBodyText, streamBodyText } from './read-body.js';

/** A Response whose body yields these chunks, counting how many were pulled and whether it was cancelled. */
function chunked(chunks: Array<string | Uint8Array>, headers: Record<string, string> = {}): { res: Response; pulled(): number; cancelled(): boolean } {
  let i = 0;
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks[i++];
      if (next === undefined) controller.close();
      else controller.enqueue(typeof next === 'string' ? new TextEncoder().encode(next) : next);
    },
    cancel() { cancelled = true; },
  }, { highWaterMark: 0 });
  return { res: new Response(body, { headers }), pulled: () => i, cancelled: () => cancelled };
}

async function drain(res: Response, maxLine: number): Promise<string> {
  const stream = streamBodyText(res, maxLine);
  let text = '';
  for (let piece = await stream.read(); piece !== null; piece = await stream.read()) text += piece;
  return text;
}

describe('readBodyText', () => {
  it('refuses a Content-Length over the cap before reading, and a body that passes it while it streams', async () => {
    const declared = chunked(['x'], { 'content-length': '2000' });
    await assert.rejects(readBodyText(declared.res, 1000), (e: unknown) => e instanceof BodyTooLargeError && e.declaredBytes === 2000);
    assert.equal(declared.pulled(), 0);
    const endless = chunked(Array.from({ length: 100 }, () => 'y'.repeat(100)));
    let aborted = false;
    await assert.rejects(readBodyText(endless.res, 1000, () => { aborted = true; }), BodyTooLargeError);
    assert.ok(endless.pulled() <= 12, `stopped near the cap (${endless.pulled()} chunks)`);
    assert.ok(endless.cancelled() && aborted);
    assert.equal(await readBodyText(chunked(['{"a":', '1}']).res, 1000), '{"a":1}');
  });
});

describe('streamBodyText', () => {
  it('passes lines within the cap, whatever their terminator, and keeps characters split across reads', async () => {
    const euro = new TextEncoder().encode('€'); // 3 bytes, split across two reads
    const text = await drain(chunked(['data: 1\n', 'data: 22\r\n\r', '\n', euro.slice(0, 1), euro.slice(1), '\n']).res, 8);
    assert.equal(text, 'data: 1\ndata: 22\r\n\r\n€\n');
  });

  it('a line that grows past the cap without a break is refused as it streams, the stream cancelled', async () => {
    const endless = chunked(['data: ok\n', ...Array.from({ length: 1000 }, () => 'z'.repeat(64))]);
    await assert.rejects(drain(endless.res, 1024), (e: unknown) => e instanceof LineTooLongError && e.maxLineBytes === 1024);
    assert.ok(endless.pulled() <= 20, `stopped at the cap (${endless.pulled()} chunks)`);
    assert.ok(endless.cancelled());
  });

  it('a long line inside one chunk is refused too, and CR counts as a break', async () => {
    await assert.rejects(drain(chunked([`a\n${'b'.repeat(40)}\nc`]).res, 32), LineTooLongError);
    assert.equal(await drain(chunked([`${'a'.repeat(30)}\r${'b'.repeat(30)}\r`]).res, 32), `${'a'.repeat(30)}\r${'b'.repeat(30)}\r`);
  });
});

describe('readBodyPrefix', () => {
  it('keeps at most the cap, pulls nothing past it and frees the connection', async () => {
    const endless = chunked(Array.from({ length: 1000 }, () => 'x'.repeat(100)));
    assert.equal(await readBodyPrefix(endless.res, 250), 'x'.repeat(250));
    assert.equal(endless.pulled(), 3);
    assert.equal(endless.cancelled(), true);
  });

  it('a short body whole; a character cut at the cap is dropped, never half shown', async () => {
    assert.equal(await readBodyPrefix(chunked(['{"ok":', 'false}']).res, 100), '{"ok":false}');
    assert.equal(await readBodyPrefix(chunked(['ab\u00e9']).res, 3), 'ab');
    assert.equal(await readBodyPrefix(new Response(null), 10), '');
  });
});

describe('one reader for every answer the CLI and the daemon read', () => {
  it('no module but read-body.ts reads an HTTP body on its own (res.text(), .json(), .arrayBuffer(), getReader())', () => {
    const src = fileURLToPath(new URL('../', import.meta.url));
    const files = (readdirSync(src, { recursive: true }) as string[])
      // The console's script runs in the browser: it reads its own small answers.
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && f !== join('core', 'read-body.ts') && !f.startsWith(join('control-plane', 'ui', 'assets')));
    assert.ok(files.length > 200);
    const offenders = files.filter((f) => /\.(text|json|arrayBuffer|blob)\(\)|getReader\(|\bres\.on\('data'/.test(readFileSync(join(src, f), 'utf8')));
    assert.deepEqual(offenders, []);
  });
});
