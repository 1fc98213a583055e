import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { emailChannelSchema } from '../../config/schema.js';
import { fakeClock } from '../../core/clock.js';
import type { OutboundMessage, WireGate } from './channel.js';
import { NOT_SENT } from './channel.js';
import { composeEmail, createEmailChannel } from './email-channel.js';
import type { TestCert, TestSmtpServer } from '../../../test/support/smtp.js';
import { mailBody, mailHeaders, mailText, selfSignedCert, startSmtpServer } from '../../../test/support/smtp.js';
import { pageStory } from '../../../test/support/page-messages.js';

const NOW = Date.parse('2026-11-21T03:12:00.000Z');
const PASSWORD = 'canary-smtp-password-3f9a1c';
const opening: OutboundMessage = {
  eventId: 'evt-7', agentId: 'oncall', severity: 'P1', status: 'firing', title: 'HighLatency on api-1',
  text: '[P1] HighLatency on api-1\nPage p3k9x2mfq opened (step 1 of 2).\nAcknowledge: svc ack p3k9x2mfq',
  triagedBy: 'oncall', deliveryId: 'p3k9x2mfq.1.alice.mail', attempt: 1, to: 'alice@example.com', pageId: 'p3k9x2mfq',
};
const escalated: OutboundMessage = {
  ...opening, deliveryId: 'p3k9x2mfq.2.alice.mail',
  text: '[P1] HighLatency on api-1\nPage p3k9x2mfq escalated: nobody acknowledged the previous step (step 2 of 2).\nAcknowledge: svc ack p3k9x2mfq',
};
const signal = new AbortController().signal;

function channelConfig(port: number, smtp: Record<string, unknown>) {
  return emailChannelSchema.parse({ id: 'mail', type: 'email', direction: 'outbound', from: 'svc@ops.example.com',
    to: 'oncall@example.com', timeoutMs: 5000, smtp: { host: '127.0.0.1', port, ...smtp } });
}

describe('email channel against a real SMTP server with STARTTLS and AUTH', () => {
  let cert: TestCert;
  let server: TestSmtpServer;
  before(async () => {
    cert = selfSignedCert();
    server = await startSmtpServer({ cert, starttls: true, user: { name: 'svc', password: PASSWORD } });
  });
  after(() => server.close());
  beforeEach(() => { server.mails.length = 0; });
  const channel = () => createEmailChannel(channelConfig(server.port, { username: 'svc', password: PASSWORD, ca: cert.cert }),
    { clock: fakeClock(NOW) });

  it('delivers the opening message over STARTTLS, authenticated, with exact headers and body', async () => {
    const c = channel();
    const result = await c.send(opening, signal);
    await c.close();
    assert.equal(result.ok, true, JSON.stringify(result));
    assert.equal(server.mails.length, 1);
    const mail = server.mails[0];
    assert.equal(mail?.secure, true, 'upgraded with STARTTLS before MAIL FROM');
    assert.equal(mail?.user, 'svc', 'authenticated as the configured user');
    assert.equal(mail?.from, 'svc@ops.example.com');
    assert.deepEqual(mail?.to, ['alice@example.com'], "the person's address, not the channel's own");
    const h = mailHeaders(mail?.raw ?? '');
    assert.equal(h.get('from'), 'svc@ops.example.com');
    assert.equal(h.get('to'), 'alice@example.com');
    assert.equal(h.get('subject'), '[P1] HighLatency on api-1');
    assert.equal(h.get('message-id'), '<p3k9x2mfq.1.alice.mail@ops.example.com>');
    assert.equal(h.get('in-reply-to'), undefined);
    assert.equal(h.get('date'), 'Sat, 21 Nov 2026 03:12:00 +0000');
    assert.equal(h.get('auto-submitted'), 'auto-generated');
    assert.match(h.get('content-type') ?? '', /^text\/plain; charset=utf-8/);
    assert.equal(mailBody(mail?.raw ?? ''), [
      '[P1] HighLatency on api-1',
      'Page p3k9x2mfq opened (step 1 of 2).',
      'Acknowledge: svc ack p3k9x2mfq',
      '',
      '-- ',
      'svc agent oncall, page p3k9x2mfq',
      '',
    ].join('\n'));
    assert.ok(result.ok && result.detail.messageId === '<p3k9x2mfq.1.alice.mail@ops.example.com>');
    assert.ok(result.ok && result.detail.thread === '<p3k9x2mfq.1.alice.mail@ops.example.com>', 'the first mail starts the thread');
  });

  it('a page message takes its last look once the envelope is taken; a look that says no delivers nothing', async () => {
    const c = channel();
    let left = 0;
    const looked: number[] = [];
    const gate = (go: boolean): WireGate => ({
      enter: () => { looked.push(server.mails.length); return Promise.resolve(go); },
      leave: () => { left += 1; },
    });
    assert.deepEqual(await c.send(opening, signal, gate(false)), NOT_SENT);
    assert.equal(c.ready(), true, 'not a failure of the channel');
    assert.equal((await c.send(escalated, signal, gate(true))).ok, true);
    await c.close();
    assert.deepEqual(looked, [0, 0], 'each look before its message reached the server');
    assert.deepEqual(server.mails.map((m) => mailHeaders(m.raw).get('message-id')), ['<p3k9x2mfq.2.alice.mail@ops.example.com>'],
      'the refused one never arrived; the next did');
    assert.equal(left, 1);
  });

  it('threads a person\'s later mails of a page under their first one (its thread handed back as pageMessage)', async () => {
    const c = channel();
    const first = await c.send(opening, signal);
    assert.ok(first.ok);
    assert.equal((await c.send({ ...escalated, pageMessage: { thread: first.detail.thread ?? '' } }, signal)).ok, true);
    await c.close();
    const [one, two] = server.mails.map((m) => mailHeaders(m.raw));
    assert.equal(one?.get('message-id'), '<p3k9x2mfq.1.alice.mail@ops.example.com>');
    assert.equal(two?.get('message-id'), '<p3k9x2mfq.2.alice.mail@ops.example.com>');
    assert.equal(two?.get('in-reply-to'), '<p3k9x2mfq.1.alice.mail@ops.example.com>');
    assert.equal(two?.get('references'), '<p3k9x2mfq.1.alice.mail@ops.example.com>');
    assert.equal(two?.get('subject'), 'Re: [P1] HighLatency on api-1');
  });

  it('the first mail a person gets about a page starts a thread, whatever the round: not Re: a mail they never got (§24.1)', async () => {
    const c = channel();
    // bob is paged at step 2 (round 2): the notifier found no thread of his, so no pageMessage.
    const bob = await c.send({ ...escalated, deliveryId: 'p3k9x2mfq.2.bob.mail', to: 'bob@example.com' }, signal);
    await c.close();
    const h = mailHeaders(server.mails[0]?.raw ?? '');
    assert.deepEqual([h.get('subject'), h.get('message-id'), h.get('in-reply-to'), h.get('references')],
      ['[P1] HighLatency on api-1', '<p3k9x2mfq.2.bob.mail@ops.example.com>', undefined, undefined]);
    assert.ok(bob.ok && bob.detail.thread === '<p3k9x2mfq.2.bob.mail@ops.example.com>');
  });

  it('a page opened, acknowledged and resolved: one thread, what is wrong in each, one way to act, exact bytes (§24.1)', async () => {
    const story = pageStory('mail', 'alice@example.com', { links: true });
    const c = channel();
    const first = await c.send(story.opened, signal);
    assert.ok(first.ok);
    const thread = { thread: first.detail.thread ?? '' };
    assert.equal((await c.send({ ...story.acknowledged, pageMessage: thread }, signal)).ok, true);
    assert.equal((await c.send({ ...story.resolved, pageMessage: thread }, signal)).ok, true);
    await c.close();
    const what = [
      'Checkout 5xx ratio 12% > 5% & rising <!here> *now* [Acknowledge](https://evil.example/)',
      'Instance: api-1',
      'Runbook: https://runbooks.example.com/checkout',
      'Source: http://prometheus.example.com:9090/graph?g0.expr=checkout_5xx&g0.tab=1',
    ];
    const sign = ['', '-- ', 'svc agent shop, page p7xq2m4k9a', ''];
    assert.deepEqual(server.mails.map((m) => mailHeaders(m.raw).get('content-transfer-encoding')), Array(3).fill('quoted-printable'));
    assert.deepEqual(server.mails.map((m) => mailText(m.raw)), [
      ['[P1] CheckoutErrors on api-1', ...what, 'Page p7xq2m4k9a opened.', 'Paged: step 1 of 2: alice; next: bob at 03:10 CET (in 5m)',
        'Acknowledge: https://svc.example.com/ack/v1.ack-token | Resolve: https://svc.example.com/ack/v1.resolve-token', ...sign].join('\n'),
      ['[P1] CheckoutErrors on api-1', ...what, 'Page p7xq2m4k9a acknowledged by alice.', 'Resolve: https://svc.example.com/ack/v1.resolve-token',
        ...sign].join('\n'),
      ['RESOLVED [P1] CheckoutErrors on api-1', ...what, 'Page p7xq2m4k9a resolved by source.', ...sign].join('\n'),
    ]);
    assert.deepEqual(server.mails.map((m) => { const h = mailHeaders(m.raw); return [h.get('subject'), h.get('in-reply-to')]; }), [
      ['[P1] CheckoutErrors on api-1', undefined],
      ['Re: [P1] CheckoutErrors on api-1', '<p7xq2m4k9a.1.alice.mail@ops.example.com>'],
      ['Re: [P1] CheckoutErrors on api-1', '<p7xq2m4k9a.1.alice.mail@ops.example.com>'],
    ]);
  });

  it('a retry of one delivery carries the same Message-ID (receivers drop the copy)', async () => {
    const c = channel();
    await c.send(escalated, signal);
    await c.send({ ...escalated, attempt: 2 }, signal);
    await c.close();
    const ids = server.mails.map((m) => mailHeaders(m.raw).get('message-id'));
    assert.deepEqual(ids, ['<p3k9x2mfq.2.alice.mail@ops.example.com>', '<p3k9x2mfq.2.alice.mail@ops.example.com>']);
  });

  it('a 4xx answer is retryable, a 5xx is not and names the SMTP code', async () => {
    const c = channel();
    server.failNext(451, 'Try again later');
    const soft = await c.send(opening, signal);
    server.failNext(550, 'Mailbox unavailable');
    const hard = await c.send(opening, signal);
    await c.close();
    assert.deepEqual(soft, { ok: false, retryable: true, error: 'smtp 451: 451 Try again later' });
    assert.deepEqual(hard, { ok: false, retryable: false, error: 'smtp 550: 550 Mailbox unavailable' });
    assert.equal(server.mails.length, 0);
  });

  it('a wrong password fails permanently and the error never carries the password', async () => {
    const c = createEmailChannel(channelConfig(server.port, { username: 'svc', password: `${PASSWORD}-wrong`, ca: cert.cert }),
      { clock: fakeClock(NOW) });
    const result = await c.send(opening, signal);
    await c.close();
    assert.equal(result.ok, false);
    assert.ok(!result.ok && !result.retryable && result.error.startsWith('smtp 535: '), JSON.stringify(result));
    assert.ok(!JSON.stringify(result).includes(PASSWORD));
  });

  it('an untrusted certificate (no ca) sends nothing and says so', async () => {
    const c = createEmailChannel(channelConfig(server.port, { username: 'svc', password: PASSWORD }), { clock: fakeClock(NOW) });
    const result = await c.send(opening, signal);
    await c.close();
    assert.deepEqual(result, { ok: false, retryable: true, error: 'smtp: ESOCKET self-signed certificate' });
    assert.equal(server.mails.length, 0);
  });
});

describe('email channel refuses to send in clear', () => {
  let server: TestSmtpServer;
  before(async () => { server = await startSmtpServer({ starttls: false }); });
  after(() => server.close());

  it('a server without STARTTLS gets nothing and the error says why', async () => {
    const c = createEmailChannel(channelConfig(server.port, {}), { clock: fakeClock(NOW) });
    const result = await c.send(opening, signal);
    await c.close();
    assert.ok(server.connections() >= 1, 'the client did connect');
    assert.equal(server.mails.length, 0);
    assert.equal(result.ok, false);
    assert.ok(!result.ok && !result.retryable);
    assert.match(!result.ok ? result.error : '', /^smtp: TLS could not be set up \(.*\); nothing was sent in clear/);
  });

  it('tls: none sends in clear when chosen', async () => {
    const c = createEmailChannel(channelConfig(server.port, { tls: 'none' }), { clock: fakeClock(NOW) });
    const result = await c.send(opening, signal);
    await c.close();
    assert.equal(result.ok, true, JSON.stringify(result));
    assert.equal(server.mails[0]?.secure, false);
  });

  it('connection refused is retryable', async () => {
    await server.close();
    const c = createEmailChannel(channelConfig(server.port, { tls: 'none' }), { clock: fakeClock(NOW) });
    const result = await c.send(opening, signal);
    await c.close();
    assert.equal(result.ok, false);
    assert.ok(!result.ok && result.retryable && /ECONNREFUSED|ECONNECTION/.test(result.error), JSON.stringify(result));
    server = await startSmtpServer({ starttls: false });
  });
});

describe('composeEmail', () => {
  it('adds ack and resolve links when the message has them', () => {
    const mail = composeEmail({ ...opening, links: { ack: 'https://svc.example.com/ack/t1', resolve: 'https://svc.example.com/ack/t2' } },
      'svc@ops.example.com');
    assert.equal(mail.text, [
      '[P1] HighLatency on api-1', 'Page p3k9x2mfq opened (step 1 of 2).', 'Acknowledge: svc ack p3k9x2mfq', '',
      'Acknowledge: https://svc.example.com/ack/t1', 'Resolve: https://svc.example.com/ack/t2', '', '-- ', 'svc agent oncall, page p3k9x2mfq', '',
    ].join('\n'));
  });

  it('a hostile title cannot add a header: the subject is one line', () => {
    const mail = composeEmail({ ...opening, title: 'disk full\r\nBcc: all@example.com\n\nhi' }, 'svc@ops.example.com');
    assert.equal(mail.subject, '[P1] disk full Bcc: all@example.com hi');
  });

  it('a message outside a page has its own Message-ID and RESOLVED in the subject', () => {
    const { pageId: _p, to: _t, ...plain } = opening;
    const mail = composeEmail({ ...plain, status: 'resolved', deliveryId: 'evt-7.dm' }, 'svc@ops.example.com');
    assert.deepEqual({ subject: mail.subject, messageId: mail.messageId, inReplyTo: mail.inReplyTo },
      { subject: 'RESOLVED [P1] HighLatency on api-1', messageId: '<evt-7.dm@ops.example.com>', inReplyTo: undefined });
  });
});
