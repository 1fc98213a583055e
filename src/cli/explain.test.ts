/**
 * `svc explain` decides what an error answer means by its HTTP status (HttpError), never by the
 * message text: a real loopback listener answers as the control plane would.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { cliHarness } from '../../test/support/cli.js';
import { systemClock } from '../core/clock.js';
import { HttpError } from '../core/errors.js';
import { getJson } from './control-client.js';
import { runCli } from './program.js';

const EVENT = '0b7c5a52-8c1e-4c3a-9d7e-3f1a2b4c5d6e';

describe('svc explain: error answers by status', () => {
  /** What the listener answers next: a status and a JSON error text. */
  let answer = { status: 404, error: 'not found' };
  let url = '';
  const server = createServer((_req, res) => {
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: answer.error }));
  });
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const explain = async (): Promise<{ code: number; err: string }> => {
    const h = cliHarness({ SVC_HOME: '/nonexistent-svc-home' }, '/');
    const code = await runCli(['explain', EVENT, '--url', url], h.ctx);
    return { code, err: h.err() };
  };

  it('an error answer is an HttpError carrying its status and the listener\'s error', async () => {
    answer = { status: 503, error: 'store unavailable' };
    const target = { base: url, tokens: { token: () => Promise.resolve(null), refresh: () => false, origin: null }, clock: systemClock, timeoutMs: 30_000 };
    const err = await getJson(target, '/status').then(() => null, (e: unknown) => e);
    assert.ok(err instanceof HttpError);
    assert.equal(err.status, 503);
    assert.equal(err.error, 'store unavailable');
    assert.equal(err.message, '/status: HTTP 503: store unavailable');
    assert.equal(err.brief, 'HTTP 503 (store unavailable)');
  });

  it('a 404 is "no audit row concerns event …", whatever its text', async () => {
    answer = { status: 404, error: 'no such event' };
    assert.deepEqual(await explain(), { code: 1, err: `svc explain: no audit row concerns event ${EVENT}\n` });
  });

  it('another status is shown as it is, even when its text reads like a 404', async () => {
    // Before HttpError, the message text decided: this 502 was taken for a missing event.
    answer = { status: 502, error: 'upstream: HTTP 404: gone' };
    assert.deepEqual(await explain(), { code: 1, err: `/events/${EVENT}/story: HTTP 502: upstream: HTTP 404: gone\n` });
  });
});

