/**
 * The console over HTTP (contract §19): the exact headers on every answer, the Host check, hostile
 * text rendered as text in every view, and `svc console`'s proxy — the one-time link, the session
 * cookie, 401 without it, CSRF refused, and a dead-letter replay through the admin socket audited with
 * `via: console`. Black-box against the built daemon (`npm run build` first).
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CONSOLE_CSP } from '../src/control-plane/ui/console-headers.js';
import type { Daemon } from './support/daemon.js';
import type { RunningConsole } from './support/console.js';
import { assertInert, postHostileAlert, startConsole, startDeadLetteringDaemon, XSS } from './support/console.js';
import { startDaemon } from './support/daemon.js';
import { oncallYaml } from './support/oncall-yaml.js';
import { rawGet } from './support/http.js';
import { auditRows } from './support/store.js';
import { waitFor } from './support/wait.js';

const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
const FINGERPRINT = '"><img src=x onerror=alert(6)>';

function assertConsoleHeaders(h: Headers, where: string, html = true): void {
  assert.equal(h.get('content-security-policy'), CSP, where);
  assert.equal(h.get('x-frame-options'), 'DENY', where);
  assert.equal(h.get('referrer-policy'), 'no-referrer', where);
  assert.equal(h.get('x-content-type-options'), 'nosniff', where);
  if (html) {
    assert.equal(h.get('content-type'), 'text/html; charset=utf-8', where);
    assert.equal(h.get('cache-control'), 'no-store', where);
  }
}

describe('console over HTTP and through svc console', () => {
  let d: Daemon;
  let eventId = '';
  let letterId = '';
  let proxy: RunningConsole;

  before(async () => {
    d = await startDeadLetteringDaemon();
    await postHostileAlert(d, FINGERPRINT);
    const letters = await waitFor('the hostile alert to be dead-lettered', async () => {
      const r = await fetch(`${d.cp}/dlq`);
      const body = (await r.json()) as { items: Array<{ id: string; eventId: string }> };
      return body.items.length === 1 ? body.items : undefined;
    }, 60_000);
    letterId = letters[0]?.id ?? '';
    eventId = letters[0]?.eventId ?? '';
    proxy = await startConsole(d);
  });
  after(async () => {
    await proxy?.stop();
    await d?.stop();
  });

  const views = (): string[] => ['/ui/', '/ui/events', `/ui/events/${eventId}`, '/ui/dlq', '/ui/audit', '/ui/audit?verify=1', '/ui/logs',
    '/ui/events?agent=oncall-escalator&source=&kind=', `/ui/events?fingerprint=x`, '/ui/no-such-view', '/ui/events/no-such-event'];

  it('the header constant is the contract text, byte for byte', () => {
    assert.equal(CONSOLE_CSP, CSP);
  });

  it('every view, asset and error answers with the console headers; GET and HEAD only', async () => {
    const expected: Record<string, number> = { '/ui/events?fingerprint=x': 400, '/ui/no-such-view': 404, '/ui/events/no-such-event': 404 };
    for (const path of views()) {
      for (const method of ['GET', 'HEAD']) {
        const r = await fetch(`${d.cp}${path}`, { method });
        assert.equal(r.status, expected[path] ?? 200, `${method} ${path}`);
        assertConsoleHeaders(r.headers, `${method} ${path}`);
        const body = await r.text();
        if (method === 'HEAD') assert.equal(body, '');
      }
    }
    for (const [path, type] of [['/ui/assets/console.css', 'text/css; charset=utf-8'], ['/ui/assets/console.js', 'text/javascript; charset=utf-8'],
      ['/ui/assets/icon.svg', 'image/svg+xml']] as const) {
      const r = await fetch(`${d.cp}${path}`);
      assert.equal(r.status, 200);
      assertConsoleHeaders(r.headers, path, false);
      assert.equal(r.headers.get('content-type'), type);
      const again = await fetch(`${d.cp}${path}`, { headers: { 'if-none-match': r.headers.get('etag') ?? '' } });
      assert.equal(again.status, 304);
    }
    const post = await fetch(`${d.cp}/ui/dlq`, { method: 'POST', body: 'x' });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get('allow'), 'GET, HEAD');
    assertConsoleHeaders(post.headers, 'POST /ui/dlq', false);
  });

  it('the Host check applies as to the JSON views, with the console headers', async () => {
    const remote = await rawGet(d.cpPort, '/ui/events', [['Host', 'evil.example:9464']]);
    assert.equal(remote.status, 403);
    assert.equal(remote.headers['content-security-policy'], CSP);
    const two = await rawGet(d.cpPort, '/ui/', [['Host', '127.0.0.1'], ['Host', 'localhost']]);
    assert.equal(two.status, 400);
    assert.equal(two.headers['x-frame-options'], 'DENY');
    const ok = await rawGet(d.cpPort, '/ui/', [['Host', `localhost:${d.cpPort}`]]);
    assert.equal(ok.status, 200);
  });

  it('labels, annotations and fingerprints carrying script, handlers, javascript: URLs and RTL overrides render as text in every view', async () => {
    for (const path of views()) assertInert(await (await fetch(`${d.cp}${path}`)).text(), path);
    const event = await (await fetch(`${d.cp}/ui/events/${eventId}`)).text();
    // Positive evidence: the values are there, as text.
    assert.ok(event.includes('&lt;script&gt;alert(1)&lt;/script&gt;'), 'the alertname label, escaped');
    assert.ok(event.includes('&quot;&gt;&lt;img src=x onerror=alert(2)&gt;'), 'the team label, escaped');
    assert.ok(event.includes('<td class="wrap"><span class="wrap">javascript:alert(3)</span></td>'), 'the runbook URL, as text and not a link');
    assert.ok(event.includes('<li>Runbook: <span class="wrap">javascript:alert(3)</span></li>'), 'in the links above the facts too, as text');
    assert.ok(event.includes('invoice&lt;U+202E&gt;gnp.exe'), 'the RTL override, shown as its code point');
    assert.ok(event.includes('&#39; onmouseover=&#39;alert(4)'), 'a label name, escaped');
    assert.ok(event.includes('&quot;&gt;&lt;img src=x onerror=alert(6)&gt;'), 'the fingerprint, escaped');
    // The story: the same rows as GET /events/<id>/story, with their hashes and the verdict.
    const story = (await (await fetch(`${d.cp}/events/${eventId}/story`)).json()) as { verified: boolean; rows: Array<{ seq: number; hash: string }> };
    assert.ok(story.rows.length > 0);
    for (const r of story.rows) assert.ok(event.includes(`<abbr title="${r.hash}">`), `story row ${r.seq} with its hash`);
    // Each row as the sentence svc explain prints, its raw data one click away.
    assert.ok(event.includes('<td class="wrap">accepted from alertmanager, fingerprint &quot;&gt;&lt;img src=x onerror=alert(6)&gt;'
      + '<details><summary>Data</summary><pre>{'), 'the accepted row as a sentence');
    assert.match(event, /<td class="wrap">delivery to oncall-dm failed \(attempt 1\): [^<]+<details><summary>Data<\/summary><pre>\{/);
    assert.match(event, /<td class="wrap">dead-lettered: delivery-failed after 1 attempt\(s\), letter [0-9a-f-]+<details>/);
    assert.equal(story.verified, true);
    assert.ok(event.includes('role="status">Verified:'), 'the verdict');
    const list = await (await fetch(`${d.cp}/ui/events`)).text();
    // Titles name events (§24.8): the alert's summary, escaped, not its fingerprint.
    assert.ok(list.includes('checkout-api 5xx ratio above 5% for 10 minutes</a>'), 'the summary names the event in the list');
    assert.ok(!list.includes('onerror=alert(6)'), 'the fingerprint is not what names it');
    // The audit view says each row in the same sentence, escaped, its data one click away.
    const audit = await (await fetch(`${d.cp}/ui/audit?kind=event.accepted`)).text();
    assert.ok(audit.includes('<td class="wrap">accepted from alertmanager, fingerprint &quot;&gt;&lt;img src=x onerror=alert(6)&gt;'
      + '<details><summary>Data</summary><pre>{'), 'the accepted row as a sentence in /ui/audit');
    assert.ok(XSS.script.length > 0);
  });

  it('the one-time link works once; without the session cookie every request is 401', async () => {
    const first = await fetch(proxy.link, { redirect: 'manual' });
    assert.equal(first.status, 303);
    assert.equal(first.headers.get('location'), '/ui/');
    const cookie = first.headers.get('set-cookie') ?? '';
    assert.match(cookie, /^svc_console=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\/$/);
    assertConsoleHeaders(first.headers, 'login', false);
    const second = await fetch(proxy.link, { redirect: 'manual' });
    assert.equal(second.status, 401);
    assert.match(await second.text(), /A sign-in link works once/);
    for (const path of ['/ui/', '/ui/dlq', '/logs', '/ui/assets/console.js']) {
      const r = await fetch(`${proxy.origin}${path}`);
      assert.equal(r.status, 401, path);
      assertConsoleHeaders(r.headers, `proxy ${path} without a session`);
    }
    const bad = await fetch(`${proxy.origin}/ui/`, { headers: { cookie: 'svc_console=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' } });
    assert.equal(bad.status, 401);
    const sid = cookie.split(';')[0] ?? '';
    const ok = await fetch(`${proxy.origin}/ui/`, { headers: { cookie: sid } });
    assert.equal(ok.status, 200);
    assertConsoleHeaders(ok.headers, 'proxied /ui/');
    assert.match(await ok.text(), /<h1>Now<\/h1>/);
    const foreign = await rawGet(proxy.port, '/ui/', [['Host', `evil.example:${proxy.port}`], ['Cookie', sid]]);
    assert.equal(foreign.status, 403, 'a rebound name is not the console');
    sessionCookie = sid;
  });

  let sessionCookie = '';

  it('a replay without the session CSRF token is refused; with it, the admin socket replays and audits via: console', async () => {
    const dlq = await (await fetch(`${proxy.origin}/ui/dlq`, { headers: { cookie: sessionCookie } })).text();
    const csrf = /name="csrf" value="([A-Za-z0-9_-]{43})"/.exec(dlq)?.[1] ?? '';
    assert.ok(csrf !== '', 'the dead-letter view through the proxy offers a Replay form');
    assert.ok(dlq.includes(`name="id" value="${letterId}"`));
    const replays = (): number => auditRows(d.home).filter((r) => r.kind === 'dlq.replayed').length;
    const form = (token: string | null): string => new URLSearchParams({ ...(token === null ? {} : { csrf: token }), id: letterId }).toString();
    const post = (body: string, headers: Record<string, string> = {}) => fetch(`${proxy.origin}/actions/dlq-replay`, {
      method: 'POST', redirect: 'manual', body,
      headers: { cookie: sessionCookie, 'content-type': 'application/x-www-form-urlencoded', ...headers },
    });
    for (const [what, answer] of [
      ['no token', await post(form(null))],
      ['a wrong token', await post(form(`${csrf.slice(0, -1)}${csrf.endsWith('A') ? 'B' : 'A'}`))],
      ['another origin', await post(form(csrf), { origin: 'http://evil.example' })],
      ['no session', await fetch(`${proxy.origin}/actions/dlq-replay`, { method: 'POST', body: form(csrf), headers: { 'content-type': 'application/x-www-form-urlencoded' } })],
    ] as const) assert.ok(answer.status === 403 || answer.status === 401, `${what}: ${answer.status}`);
    assert.equal(replays(), 0);

    const done = await post(form(csrf), { origin: proxy.origin });
    assert.equal(done.status, 303);
    assert.equal(done.headers.get('location'), '/ui/dlq?replayed=1');
    const rows = auditRows(d.home).filter((r) => r.kind === 'dlq.replayed');
    assert.equal(rows.length, 1, 'exactly one replay: the refused ones did nothing');
    assert.equal(rows[0]?.actor, `local:${userInfo().username}`);
    assert.deepEqual(rows[0]?.data, { deadLetterId: letterId, eventId, sourceId: 'alertmanager', reason: 'delivery-failed', via: 'console' });
    const after = await (await fetch(`${proxy.origin}/ui/dlq?replayed=1`, { headers: { cookie: sessionCookie } })).text();
    assert.match(after, /Replayed: the event is back in the queue\./);
  });

  it('--fleet: a host picker first (a CSRF-checked form), then the chosen host\'s console, without actions', async () => {
    writeFileSync(join(d.dir, 'fleet.yaml'), `hosts:\n  - name: eu-1\n    url: ${d.cp}\n  - name: us-1\n    url: http://127.0.0.1:9\n`);
    const fleet = await startConsole(d, ['--fleet', '--file', 'fleet.yaml']);
    try {
      const login = await fetch(fleet.link, { redirect: 'manual' });
      assert.equal(login.headers.get('location'), '/hosts');
      const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      const early = await fetch(`${fleet.origin}/ui/`, { headers: { cookie }, redirect: 'manual' });
      assert.equal(early.headers.get('location'), '/hosts', 'no host chosen yet');
      const picker = await (await fetch(`${fleet.origin}/hosts`, { headers: { cookie } })).text();
      assert.match(picker, /<th scope="row">eu-1<\/th>/);
      assert.match(picker, /<th scope="row">us-1<\/th>/);
      const csrf = /name="csrf" value="([A-Za-z0-9_-]{43})"/.exec(picker)?.[1] ?? '';
      const pick = (token: string) => fetch(`${fleet.origin}/hosts`, { method: 'POST', redirect: 'manual',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ csrf: token, host: 'eu-1' }).toString() });
      assert.equal((await pick('x'.repeat(43))).status, 403);
      const chosen = await pick(csrf);
      assert.equal(chosen.status, 303);
      assert.equal(chosen.headers.get('location'), '/ui/');
      const dlq = await fetch(`${fleet.origin}/ui/dlq`, { headers: { cookie } });
      assert.equal(dlq.status, 200);
      const body = await dlq.text();
      assert.match(body, /<h1>Dead letters<\/h1>/);
      assert.doesNotMatch(body, /method="post"/, 'no actions for a fleet host');
    } finally {
      await fleet.stop();
    }
  });

  it('--url naming a listener that is not this home\'s daemon: read-only, saying why; a replay posted anyway is refused (issue 33)', async () => {
    // Another daemon's control plane stands in as a relay to this one: same views, but not the control plane this home recorded.
    const cp = new URL(d.cp);
    const relay = createServer((req, res) => {
      const up = request({ host: cp.hostname, port: cp.port, path: req.url, method: req.method, headers: { ...req.headers, host: cp.host } }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      up.on('error', () => res.destroy());
      req.pipe(up);
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', () => resolve()));
    const other = `http://127.0.0.1:${(relay.address() as AddressInfo).port}`;
    const shown = await startConsole(d, ['--url', other]);
    try {
      // stderr is its own pipe: the line may arrive after the link on stdout.
      await waitFor('the read-only notice', () => shown.process.stderr().includes('svc console: read-only'), 30_000);
      assert.match(shown.process.stderr(), new RegExp(`svc console: read-only, no actions: ${other} is not the control plane of the daemon of \\$SVC_HOME `));
      const cookie = ((await fetch(shown.link, { redirect: 'manual' })).headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      const dlq = await (await fetch(`${shown.origin}/ui/dlq`, { headers: { cookie } })).text();
      assert.match(dlq, /<h1>Dead letters<\/h1>/);
      assert.doesNotMatch(dlq, /method="post"/, 'no action forms: the admin socket is another daemon\'s');
      const replays = auditRows(d.home).filter((r) => r.kind === 'dlq.replayed').length;
      const post = await fetch(`${shown.origin}/actions/dlq-replay`, { method: 'POST', redirect: 'manual', body: new URLSearchParams({ id: letterId }).toString(),
        headers: { cookie, origin: shown.origin, 'content-type': 'application/x-www-form-urlencoded' } });
      assert.equal(post.status, 403);
      assert.equal(auditRows(d.home).filter((r) => r.kind === 'dlq.replayed').length, replays);
    } finally {
      await shown.stop();
      relay.closeAllConnections();
      await new Promise<void>((resolve) => relay.close(() => resolve()));
    }
  });

  it('the control plane itself never shows action forms without the proxy', async () => {
    const direct = await (await fetch(`${d.cp}/ui/dlq`)).text();
    assert.doesNotMatch(direct, /<form[^>]*method="post"/);
    const forged = await (await fetch(`${d.cp}/ui/dlq`, { headers: { 'x-svc-console-csrf': '<script>' } })).text();
    assert.doesNotMatch(forged, /method="post"/, 'a token not of the proxy\'s shape shows nothing');
  });
});

describe('console pages and page actions through svc console', () => {
  let d: Daemon;
  let proxy: RunningConsole;
  let pageId = '';
  let cookie = '';

  before(async () => {
    d = await startDaemon({ files: { 'oncall.yaml': oncallYaml('1h', '1h') } });
    await postHostileAlert(d, FINGERPRINT);
    const pages = await waitFor('the hostile alert to open a page', async () => {
      const body = (await (await fetch(`${d.cp}/pages`)).json()) as { items: Array<{ id: string }> };
      return body.items.length === 1 ? body.items : undefined;
    }, 60_000);
    pageId = pages[0]?.id ?? '';
    proxy = await startConsole(d);
    const login = await fetch(proxy.link, { redirect: 'manual' });
    cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  });
  after(async () => {
    await proxy?.stop();
    await d?.stop();
  });

  it('/ui/pages and /ui/pages/<id>: console headers, the page\'s title as text, its timeline', async () => {
    for (const path of ['/ui/pages', '/ui/pages?state=triggered', `/ui/pages/${pageId}`]) {
      const r = await fetch(`${d.cp}${path}`);
      assert.equal(r.status, 200, path);
      assertConsoleHeaders(r.headers, path);
      assertInert(await r.text(), path);
    }
    const bad = await fetch(`${d.cp}/ui/pages?state=asleep`);
    assert.equal(bad.status, 400);
    assert.match(await bad.text(), /invalid state: expected one of triggered, acknowledged, resolved/);
    assert.equal((await fetch(`${d.cp}/ui/pages/pnosuchpage1`)).status, 404);
    const one = await (await fetch(`${d.cp}/ui/pages/${pageId}`)).text();
    assert.ok(one.includes('&lt;script&gt;alert(1)&lt;/script&gt;'), 'the title, escaped');
    assert.match(one, /<td class="run-in">page\.opened<\/td>/, 'the timeline');
    assert.match(one, /<td class="wrap">opened under policy default<details><summary>Data<\/summary><pre>\{&quot;alertname&quot;:&quot;[^&]+&quot;,&quot;eventId&quot;:/,
      'a sentence, raw data kept (page.opened names its alert for reports, §23)');
    assert.match(one, /<td class="wrap">notified alice on oncall-dm \(step 1\)<details>/);
    assert.doesNotMatch(one, /method="post"/, 'no actions without the proxy');
  });

  it('Now shows who is on call and the open page; /ui/oncall shows 14 days of coverage', async () => {
    for (const path of ['/ui/', '/ui/oncall']) {
      const r = await fetch(`${d.cp}${path}`);
      assert.equal(r.status, 200, path);
      assertConsoleHeaders(r.headers, path);
      assertInert(await r.text(), path);
    }
    const now = await (await fetch(`${d.cp}/ui/`)).text();
    assert.match(now, /<tr><th scope="row">primary<\/th><td>[^<]+<\/td>\n<td>alice<\/td><td>rotation<\/td>/);
    assert.ok(now.includes(`<a href="/ui/pages/${pageId}">&lt;script&gt;alert(1)&lt;/script&gt;`), 'the open page, named by its title');
    assert.ok(now.includes(`<span class="mono note">${pageId}</span>`), 'its id beside');
    // Who it pages now and next (§24.8): step 1 is alice's schedule, step 2 bob, an hour after it opened.
    assert.match(now, /Paged: step 1 of 2: alice; next: bob at <time datetime="[^"]+Z">[^<]+<\/time> \(in (59|60)m\)/);
    assert.match(now, /<span class="state state-triggered">triggered<\/span>/);
    assert.doesNotMatch(now, /not configured/);
    const coverage = await (await fetch(`${d.cp}/ui/oncall`)).text();
    assert.match(coverage, /<h2>primary <span class="note">/);
    assert.match(coverage, /<th scope="row">alice<\/th><td>rotation<\/td>/);
    assert.match(coverage, /Covered for the whole 14 days\./);
  });

  it('an ack without the CSRF token is refused; without a person acting it asks who; as the person chosen it is acknowledged, audited via: console', async () => {
    const view = await (await fetch(`${proxy.origin}/ui/pages/${pageId}`, { headers: { cookie } })).text();
    const csrf = /name="csrf" value="([A-Za-z0-9_-]{43})"/.exec(view)?.[1] ?? '';
    assert.ok(csrf !== '', 'the page view through the proxy offers action forms');
    assert.match(view, /<button type="submit" name="action" value="ack">Acknowledge<\/button>/);
    assert.match(view, /<label for="acting-as">Acting as<\/label> <select id="acting-as" name="as" required><option value="">choose a person<\/option>/);
    const acks = (): number => auditRows(d.home).filter((r) => r.kind === 'page.acknowledged').length;
    const post = (token: string | null) => fetch(`${proxy.origin}/actions/page`, {
      method: 'POST', redirect: 'manual', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...(token === null ? {} : { csrf: token }), id: pageId, action: 'ack' }).toString(),
    });
    assert.equal((await post(null)).status, 403);
    assert.equal((await post('x'.repeat(43))).status, 403);
    // Nobody chosen yet: the action asks who is acting (§24.6), never credits the OS user.
    const unnamed = await post(csrf);
    assert.equal(unnamed.status, 303);
    assert.match(await (await fetch(`${proxy.origin}${unnamed.headers.get('location') ?? ''}`, { headers: { cookie } })).text(),
      /role="alert">Not done: choose who is acting first \(&quot;Acting as&quot;, at the top of the page\); actions are credited to a person of oncall\.yaml<\/p>/);
    assert.equal(acks(), 0);
    const choose = (as: string) => fetch(`${proxy.origin}/actions/acting-as`, {
      method: 'POST', redirect: 'manual', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf, as, back: `/ui/pages/${pageId}` }).toString(),
    });
    // A person the file does not have is refused by the daemon when it acts.
    assert.equal((await choose('mallory')).headers.get('location'), `/ui/pages/${pageId}`);
    const stranger = await post(csrf);
    assert.match(decodeURIComponent(stranger.headers.get('location') ?? ''), /failed=no person mallory in agent oncall-escalator's oncall\.yaml/);
    assert.equal(acks(), 0);
    await choose('bob');
    const chosen = await (await fetch(`${proxy.origin}/ui/pages/${pageId}`, { headers: { cookie } })).text();
    assert.match(chosen, /<option value="bob" selected>bob<\/option>/);
    const done = await post(csrf);
    assert.equal(done.status, 303);
    assert.equal(done.headers.get('location'), `/ui/pages/${pageId}?done=ack`);
    const rows = auditRows(d.home).filter((r) => r.kind === 'page.acknowledged');
    assert.equal(rows.length, 1, 'one ack: the refused ones did nothing');
    assert.equal(rows[0]?.actor, `local:${userInfo().username}`);
    assert.equal(rows[0]?.data.via, 'console');
    assert.equal(rows[0]?.data.by, 'bob');
    const after = await (await fetch(`${proxy.origin}/ui/pages/${pageId}?done=ack`, { headers: { cookie } })).text();
    assert.match(after, /role="status">Acknowledged\.<\/p>/);
    assert.match(after, /<span class="state state-acknowledged">acknowledged<\/span>/);
    assert.match(after, /<button type="submit" name="action" value="unack">Unacknowledge<\/button>/);
  });

  const me = `local:${userInfo().username}`;
  const csrfOf = (body: string): string => /name="csrf" value="([A-Za-z0-9_-]{43})"/.exec(body)?.[1] ?? '';
  const postForm = (path: string, fields: Record<string, string>) => fetch(`${proxy.origin}${path}`, {
    method: 'POST', redirect: 'manual', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  const shown = async (location: string | null): Promise<string> => (await fetch(`${proxy.origin}${location ?? ''}`, { headers: { cookie } })).text();
  /** `2026-11-26 09:00`: a time typed without a zone, read in the form's zone (UTC as served). */
  const box = (ms: number): string => new Date(ms).toISOString().slice(0, 16).replace('T', ' ');

  it('overrides: added and removed through the console\'s forms, audited via: console; a CSRF-less post and bad input do nothing', async () => {
    const direct = await (await fetch(`${d.cp}/ui/oncall`)).text();
    assert.doesNotMatch(direct, /method="post"/, 'no forms without the proxy');
    const view = await shown('/ui/oncall');
    const csrf = csrfOf(view);
    assert.match(view, /<form class="act" method="post" action="\/actions\/override" aria-label="Add an override to primary">/);
    assert.match(view, /<input id="ov-[a-z0-9-]+-primary-from" name="from" required autocomplete="off" spellcheck="false" placeholder="2026-11-26 09:00" value="" aria-describedby="time-hint">/);
    // The form shows the zone its times are read in (§24.5); console.js puts the browser's there.
    assert.match(view, /<input id="ov-[a-z0-9-]+-primary-tz" name="tz" required autocomplete="off" spellcheck="false" placeholder="" value="UTC" aria-describedby="time-hint">/);
    assert.ok(view.includes('<p class="note" id="time-hint">Type times as YYYY-MM-DD HH:MM: they are read in the time zone the form shows (this browser&#39;s), '
      + 'unless you give ISO-8601 with a zone.</p>'));
    assert.match(view, /<select id="ov-[a-z0-9-]+-primary-person" name="person" required><option value="alice">alice<\/option><option value="bob">bob<\/option><\/select>/);
    const overrideRows = (kind: string) => auditRows(d.home).filter((r) => r.kind === kind);
    const from = Date.now() + 3_600_000 - (Date.now() % 60_000);
    const add = { op: 'add', form: 'ov-oncall-escalator-primary', agent: 'oncall-escalator', schedule: 'primary', person: 'bob', from: box(from),
      to: box(from + 7_200_000) };

    assert.equal((await postForm('/actions/override', add)).status, 403, 'no CSRF token');
    for (const [fields, error] of [
      [{ ...add, from: 'tomorrow' }, 'Not done: From: expected ISO-8601 with a zone (2026-11-26T09:00Z, 2026-11-26T09:00+01:00) or integer milliseconds'],
      [{ ...add, tz: 'Mars/Olympus' }, 'Not done: Time zone: not a time zone the tz database knows (such as UTC or Europe/Berlin)'],
      [{ ...add, to: add.from }, 'Not done: Until must be after From'],
      [{ ...add, person: 'mallory' }, 'Not done: no person mallory in agent oncall-escalator&#39;s oncall.yaml'],
    ] as const) {
      const r = await postForm('/actions/override', { ...fields, csrf });
      assert.equal(r.status, 303);
      assert.match(r.headers.get('location') ?? '', /^\/ui\/oncall\?failed=/);
      const page = await shown(r.headers.get('location'));
      assert.ok(page.includes(`<p class="banner bad" role="alert">${error}</p>`), `${error}\n${page.slice(0, 400)}`);
      assert.doesNotMatch(page, /at [a-zA-Z]+ \(|node:internal/, 'no stack');
      // A refused form keeps what was typed (§24.8).
      assert.ok(page.includes(`name="from" required autocomplete="off" spellcheck="false" placeholder="2026-11-26 09:00" value="${fields.from}"`), 'From kept');
      assert.ok(page.includes(`<option value="${fields.person}" selected>`) || fields.person === 'mallory', 'the person kept');
    }
    assert.equal(overrideRows('schedule.override.added').length, 0, 'nothing refused was added');

    const done = await postForm('/actions/override', { ...add, csrf });
    assert.equal(done.status, 303);
    assert.equal(done.headers.get('location'), '/ui/oncall?done=added');
    const added = overrideRows('schedule.override.added');
    assert.equal(added.length, 1);
    assert.equal(added[0]?.actor, me);
    const id = String(added[0]?.data.overrideId);
    assert.deepEqual(added[0]?.data, { overrideId: id, schedule: 'primary', person: 'bob', from: new Date(from).toISOString(),
      to: new Date(from + 7_200_000).toISOString(), via: 'console', by: 'bob' });
    const after = await shown('/ui/oncall?done=added');
    assert.match(after, /role="status">Override added\.<\/p>/);
    assert.ok(after.includes(`<button type="submit" aria-label="Remove override ${id}">Remove</button>`));
    assert.match(after, /<th scope="row">bob<\/th><td>override<\/td>/, 'the coverage shows bob by override');

    assert.equal((await postForm('/actions/override', { op: 'remove', id })).status, 403, 'no CSRF token');
    const removed = await postForm('/actions/override', { op: 'remove', id, csrf });
    assert.equal(removed.headers.get('location'), '/ui/oncall?done=removed');
    const rows = overrideRows('schedule.override.removed');
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.actor, me);
    assert.deepEqual(rows[0]?.data, { overrideId: id, schedule: 'primary', person: 'bob', via: 'console', by: 'bob' });
    assert.doesNotMatch(await shown('/ui/oncall'), new RegExp(`Remove override ${id}`));
  });

  it('silences: /ui/silences lists them; added and expired through the console, audited via: console; a CSRF-less post and bad input do nothing', async () => {
    const direct = await fetch(`${d.cp}/ui/silences`);
    assert.equal(direct.status, 200);
    assertConsoleHeaders(direct.headers, '/ui/silences');
    const directBody = await direct.text();
    assert.doesNotMatch(directBody, /method="post"/, 'no forms without the proxy');
    assert.match(directBody, /No silences are live or ended in the last 24 hours\./);
    const form = await shown('/ui/silences');
    const csrf = csrfOf(form);
    assert.ok(csrf !== '');
    assert.ok(form.includes('<select id="si-agent" name="agent"><option value="" selected>every agent</option><option value="oncall-escalator">oncall-escalator</option></select>'),
      'the agent picker: every agent, or one with an oncall.yaml');
    const created = () => auditRows(d.home).filter((r) => r.kind === 'silence.created');
    const add = { op: 'add', matchers: 'alertname=DiskFull\r\n team=~db-.* \r\n', duration: '2h', reason: XSS.script };

    assert.equal((await postForm('/actions/silence', add)).status, 403, 'no CSRF token');
    for (const [fields, error] of [
      [{ ...add, duration: '8d' }, 'Not done: Duration 8d is longer than 1w; silence at most a week at a time'],
      [{ ...add, duration: 'soon' }, 'Not done: Duration must be a duration such as 30m, 2h or 3d'],
      [{ ...add, matchers: '' }, 'Not done: give at least one Matcher KEY=VALUE or KEY=~REGEX'],
      // The form checks with the one matcher parser: RE2 syntax, bounded (issue 33.1).
      [{ ...add, matchers: 'host=~db(?=-prod)' }, 'Not done: Matcher &quot;host=~db(?=-prod)&quot;: the regular expression of host is not RE2 syntax '
        + '(invalid or unsupported Perl syntax: `(?=`); lookarounds and backreferences are not supported'],
      [{ ...add, reason: ' ' }, 'Not done: Reason must be 1 to 1000 characters'],
    ] as const) {
      const r = await postForm('/actions/silence', { ...fields, csrf });
      assert.match(r.headers.get('location') ?? '', /^\/ui\/silences\?failed=/);
      assert.ok((await shown(r.headers.get('location'))).includes(`<p class="banner bad" role="alert">${error}</p>`), error);
    }
    assert.equal(created().length, 0, 'nothing refused was added');

    const done = await postForm('/actions/silence', { ...add, agent: 'oncall-escalator', csrf });
    assert.equal(done.headers.get('location'), '/ui/silences?done=added');
    const rows = created();
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.actor, me);
    assert.equal(rows[0]?.agentId, 'oncall-escalator');
    assert.equal(rows[0]?.data.via, 'console');
    assert.equal(rows[0]?.data.by, 'bob');
    assert.equal(rows[0]?.data.reason, XSS.script);
    assert.deepEqual(rows[0]?.data.matchers, [{ label: 'alertname', op: '=', value: 'DiskFull' }, { label: 'team', op: '=~', value: 'db-.*' }]);
    const id = String(rows[0]?.data.silenceId);
    const listed = await shown('/ui/silences?done=added');
    assertInert(listed, '/ui/silences');
    assert.match(listed, /role="status">Silence added: matching alerts are stored as suppressed and page nobody\.<\/p>/);
    assert.ok(listed.includes(`<td class="wrap mono">alertname=DiskFull team=~db-.*</td>`));
    assert.ok(listed.includes('<td class="wrap">&lt;script&gt;alert(1)&lt;/script&gt;</td>'), 'the reason, as text');
    assert.ok(listed.includes(`aria-label="Expire silence ${id}">Expire</button>`));

    assert.equal((await postForm('/actions/silence', { op: 'expire', id })).status, 403, 'no CSRF token');
    const expired = await postForm('/actions/silence', { op: 'expire', id, csrf });
    assert.equal(expired.headers.get('location'), '/ui/silences?done=expired');
    const ended = auditRows(d.home).filter((r) => r.kind === 'silence.expired');
    assert.equal(ended.length, 1);
    assert.equal(ended[0]?.actor, me);
    assert.deepEqual(ended[0]?.data, { silenceId: id, reason: 'manual', via: 'console', by: 'bob' });
    const later = await shown('/ui/silences');
    assert.match(later, /expired by hand/, 'recently expired silences stay listed');
    assert.doesNotMatch(later, new RegExp(`Expire silence ${id}`));
  });
});
