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
import { printStory } from './explain.js';
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

describe('svc explain: the timeline on an 80-column terminal', () => {
  it('each sentence is whole, continued under WHAT; no line is wider than the screen', () => {
    const h = cliHarness({}, '/');
    const row = (seq: number, kind: string, data: Record<string, unknown>) => ({ seq, ts: '2026-11-25T03:12:09.481Z', kind, actor: 'agent:oncall-escalator',
      hash: 'a'.repeat(64), data });
    printStory({ eventId: EVENT, verified: true, truncated: false,
      verification: { problems: [], chainIntactThroughSeq: 1_000_012, chainProblem: null, checkedFromSeq: 1_000_011,
        checkedAt: '2026-11-25T03:12:10.002Z', fullCheckAt: '2026-11-25T03:00:00.000Z' },
      rows: [row(11, 'message.delivered', { eventId: EVENT, channelId: 'oncall-dm', channelType: 'file', deliveryId: `${EVENT}.oncall-dm`, attempt: 2 }),
        row(12, 'message.failed', { eventId: EVENT, channelId: 'team-room', deliveryId: `${EVENT}.team-room`, attempts: 5,
          error: 'channel team-room: HTTP 400 The request content is not valid.' })] }, { ...h.ctx, columns: () => 80 });
    // Before, WHAT was cut at the screen's edge: the failure's reason, the end of its sentence, was lost.
    assert.equal(h.out(), `event ${EVENT}\n`
      + 'TIME                      SEQ  WHAT\n'
      + '2026-11-25T03:12:09.481Z  11   delivered to oncall-dm, delivery\n'
      + `                               ${EVENT}.oncall-dm,\n`
      + '                               attempt 2\n'
      + '2026-11-25T03:12:09.481Z  12   delivery to team-room failed (attempt 5): channel\n'
      + '                               team-room: HTTP 400 The request content is not\n'
      + '                               valid.\n'
      + 'verified: every row hashes and links; the chain is intact through seq 1000012\n'
      // What was checked, and when: the story's rows to the head as it was asked for, the rows before earlier.
      + 'checked at 2026-11-25T03:12:10.002Z: seq 1000011 to 1000012 (the head)\n'
      + 'before seq 1000011: verified whole at 2026-11-25T03:00:00.000Z, then as appended\n');
    for (const line of h.out().split('\n')) assert.ok(line.length <= 80, `${line.length}: ${line}`);
  });
});

describe('svc explain: an id as a person types it', () => {
  const OTHER = '0b7c5a52-8c1e-4c3a-9d7e-00000000aaaa';
  const asked: string[] = [];
  let url = '';
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    asked.push(path);
    const answer = path === '/events' ? { items: [{ id: EVENT }, { id: OTHER }], nextCursor: null }
      : path === `/events/${EVENT}/story` ? { eventId: EVENT, verified: true, truncated: false, rows: [],
        verification: { problems: [], chainIntactThroughSeq: 7, chainProblem: null } }
        : null;
    res.writeHead(answer === null ? 404 : 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer ?? { error: 'not found' }));
  });
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const explain = async (id: string): Promise<{ code: number; out: string; err: string }> => {
    const h = cliHarness({ SVC_HOME: '/nonexistent-svc-home' }, '/');
    const code = await runCli(['explain', id, '--url', url], h.ctx);
    return { code, out: h.out(), err: h.err() };
  };

  it('the last characters only one event has tell its story, as svc events show takes them', async () => {
    asked.length = 0;
    const { code, out } = await explain('3f1a2b4c5d6e');
    assert.equal(code, 0);
    assert.equal(out.split('\n')[0], `event ${EVENT}`);
    assert.deepEqual(asked, ['/events', `/events/${EVENT}/story`]);
  });

  it('characters two events share, or none has, say so (exit 1); what is not hex is a usage error (exit 2)', async () => {
    assert.deepEqual(await explain('0b7c5a52'), { code: 1, out: '',
      err: `svc explain: 0b7c5a52 is part of 2 event ids (${EVENT}, ${OTHER}); type more of it\n` });
    assert.deepEqual(await explain('ffff0000'), { code: 1, out: '', err: 'svc explain: no event id starts or ends with ffff0000\n' });
    assert.deepEqual(await explain('not-an-id'), { code: 2, out: '',
      err: 'svc explain: "not-an-id" is not an event id (a UUID as svc events shows, or its first or last characters)\n' });
  });
});
