/**
 * The team console (contract §24.6) and the console for 3 a.m. (§24.8, §24.5) as people see them, in
 * a real browser (Debian's chromium, one for the whole file) against a real OpenID provider
 * (oidc-provider, a confidential client with client_secret_basic): a person of oncall.yaml signs in
 * and acts — the audit row names them, via console; someone signed in whom oncall.yaml does not name
 * reads but is refused actions; forms need the session's CSRF token and the console's origin. At a
 * 390-pixel phone and at desktop width every view passes axe-core, pages in each state look
 * different, titles stay inside the viewport, runbook links are links, the log view opens with the
 * last 100 records and goes on live, times are in the browser's zone, and a refused form keeps what
 * was typed. A calendar subscription URL is fetched without signing in.
 */
import assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { BrowserContextOptions } from 'playwright-core';
import type { TestBrowser } from './support/browser.js';
import { screenshotPath, startBrowser } from './support/browser.js';
import type { TeamConsoleDaemon } from './support/console.js';
import { TEAM_CLIENT, startTeamConsoleDaemon } from './support/console.js';
import { freePort, postAlert, rawGet } from './support/http.js';
import type { Idp } from './support/idp.js';
import { startIdp } from './support/idp.js';
import { alertInGroup, oncallYaml } from './support/oncall-yaml.js';
import { auditRows } from './support/store.js';
import { runSvc } from './support/svc.js';
import { waitFor } from './support/wait.js';

const DESKTOP: BrowserContextOptions = { viewport: { width: 1100, height: 700 } };
/** A laptop's width, where the audit rows' wide What column could squeeze Kind and Actor. */
const WIDE: BrowserContextOptions = { viewport: { width: 1280, height: 800 } };
const PHONE: BrowserContextOptions = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };
/** An instance name with no place to break it: a title must still wrap inside a phone's width. */
const LONG_INSTANCE = 'checkout-api-blue-green-canary-eu-west-1a-7f9c2d1e0b.prod.internal.example.com:8080';

/**
 * How the tables of a view named by their regions' labels read on a phone, measured in the page: which
 * of them are card tables (`table.cards`), which of their elements reach past the screen or are wider
 * than their own box (even inside a scrolling region), and which Kind, Actor or Agent cells, or cells of a
 * card's first line (`.run-in`), are broken across lines. The caption and the column headers are kept
 * off-screen on purpose, for screen readers.
 */
function cardProblems(labels: readonly string[]): string {
  return `(() => {
  const tables = ${JSON.stringify(labels)}.map((l) => document.querySelector('[aria-label="' + l + '"] table')).filter((t) => t !== null);
  const all = tables.flatMap((t) => [...t.querySelectorAll('*')]).filter((e) => !e.closest('caption, thead'));
  const wide = all.filter((e) => { const r = e.getBoundingClientRect();
    return r.width > 0 && (r.left < 0 || r.right > window.innerWidth || e.scrollWidth > e.clientWidth + 1); }).map((e) => e.tagName + ': ' + e.textContent.slice(0, 40));
  const lines = (e) => { const range = document.createRange(); range.selectNodeContents(e);
    return new Set([...range.getClientRects()].map((r) => Math.round(r.bottom))).size; };
  const columns = (t) => [...t.tHead.rows[0].cells].flatMap((c, i) => (['Kind', 'Actor', 'Agent'].includes(c.textContent) ? [i] : []));
  const cells = tables.flatMap((t) => [...t.tBodies[0].rows].flatMap((r) => [...r.cells].filter((c, i) => columns(t).includes(i) || c.matches('.run-in'))));
  const broken = cells.filter((c) => lines(c) > 1).map((c) => c.textContent);
  return { cards: tables.filter((t) => t.matches('.cards')).map((t) => t.closest('[aria-label]').getAttribute('aria-label')), wide, broken };
})()`;
}
interface CardProblems { cards: string[]; wide: string[]; broken: string[] }

/** People who may act: alice by her email, bob by his OpenID sub; mallory has no entry. */
const ONCALL = oncallYaml('1h', '1h')
  .replace('{ id: alice, contacts:', '{ id: alice, login: "alice@example.com", contacts:')
  .replace('{ id: bob, contacts:', '{ id: bob, login: "bob", contacts:');

/** The template's alert in its own group, with its own name and instance (so its own page and title). */
function alert(fixture: string, group: string, instance: string): string {
  const body = JSON.parse(alertInGroup(fixture, group)) as { commonLabels: Record<string, string>; alerts: Array<{ labels: Record<string, string> }> };
  body.commonLabels.alertname = group;
  body.commonLabels.instance = instance;
  for (const a of body.alerts) Object.assign(a.labels, { alertname: group, instance });
  return JSON.stringify(body);
}

describe('the team console', () => {
  let idp: Idp;
  let team: TeamConsoleDaemon;
  let browser: TestBrowser;
  let asAlice: BrowserContextOptions = {};
  const pages: Record<'triggered' | 'acknowledged' | 'resolved', string> = { triggered: '', acknowledged: '', resolved: '' };
  let eventId = '';

  before(async () => {
    const port = await freePort();
    idp = await startIdp({}, { confidentialClients: { [TEAM_CLIENT.id]: { secret: TEAM_CLIENT.secret, redirect: `http://127.0.0.1:${port}/auth/callback` } } });
    team = await startTeamConsoleDaemon(idp.issuer, port, ONCALL);
    const d = team.daemon;
    for (const [group, instance] of [['DiskFull', LONG_INSTANCE], ['HighLatency', 'api-2:8080'], ['QueueBacklog', 'worker-3:9100']]) {
      assert.equal((await postAlert(d.url, d.secret, alert(d.fixture, group ?? '', instance ?? ''), `fp-${group ?? ''}`)).status, 202);
    }
    const opened = await waitFor('three pages', async () => {
      const body = (await (await fetch(`${d.cp}/pages`)).json()) as { items: Array<{ id: string; title: string; eventIds: string[] }> };
      return body.items.length === 3 ? body.items : undefined;
    }, 60_000);
    const byTitle = (needle: string): { id: string; eventIds: string[] } => opened.find((p) => p.title.includes(needle)) ?? { id: '', eventIds: [] };
    pages.triggered = byTitle('DiskFull').id;
    eventId = byTitle('DiskFull').eventIds[0] ?? '';
    pages.acknowledged = byTitle('HighLatency').id;
    pages.resolved = byTitle('QueueBacklog').id;
    for (const [args, id] of [[['ack', '--as', 'bob'], pages.acknowledged], [['resolve'], pages.resolved]] as const) {
      const r = await runSvc([args[0], id, ...args.slice(1)], { env: d.env, cwd: d.dir });
      assert.equal(r.code, 0, r.stderr);
    }
    browser = await startBrowser();
  });
  after(async () => {
    await browser?.close();
    await team?.daemon.stop();
    await idp?.close();
  });

  it('without a session every view sends the browser to sign in (code + PKCE at the IdP); the cookie is HttpOnly and SameSite=Lax', async () => {
    const first = await fetch(`${team.origin}/ui/pages?state=triggered`, { redirect: 'manual' });
    assert.equal(first.status, 302);
    assert.equal(first.headers.get('location'), `/auth/login?next=${encodeURIComponent('/ui/pages?state=triggered')}`);
    assert.equal(first.headers.get('x-frame-options'), 'DENY');
    const login = await fetch(`${team.origin}/auth/login`, { redirect: 'manual' });
    const to = new URL(login.headers.get('location') ?? '');
    assert.equal(to.origin, idp.issuer);
    assert.deepEqual([to.searchParams.get('client_id'), to.searchParams.get('redirect_uri'), to.searchParams.get('code_challenge_method'),
      to.searchParams.get('response_type')], [TEAM_CLIENT.id, `${team.origin}/auth/callback`, 'S256', 'code']);
    assert.match(to.searchParams.get('scope') ?? '', /^openid email profile$/);
    // http publicUrl: no Secure (the unit tests show Secure for https).
    assert.match(login.headers.get('set-cookie') ?? '', /^svc_team=[A-Za-z0-9_-]{43}; Max-Age=600; HttpOnly; SameSite=Lax; Path=\/$/);
    const post = await fetch(`${team.origin}/actions/page`, { method: 'POST', redirect: 'manual', body: 'id=x' });
    assert.equal(post.status, 403);
    // Another site's name for this address (DNS rebinding) is refused.
    const rebound = await rawGet(team.port, '/ui/', [['Host', `evil.example:${team.port}`]]);
    assert.equal(rebound.status, 403);
    assert.equal((await rawGet(team.port, '/ui/', [['Host', `localhost:${team.port}`]])).status, 302, 'loopback at its own port is its own');
    // svc ps lists the console's listener (/status listeners).
    const status = (await (await fetch(`${team.daemon.cp}/status`)).json()) as { listeners: Array<{ kind: string; url: string }> };
    assert.deepEqual(status.listeners.filter((l) => l.kind === 'console').map((l) => l.url), [team.origin]);
  });

  it('alice (her email is her login) signs in at the IdP and acknowledges a page: the audit row names her, via console', async () => {
    const w = await browser.openPage(DESKTOP);
    await w.page.goto(`${team.origin}/ui/pages/${pages.triggered}`);
    await w.page.waitForURL(`${team.origin}/ui/pages/${pages.triggered}`, { timeout: 30_000 });
    asAlice = { storageState: await w.context.storageState() };
    assert.match(await w.page.locator('form.who').textContent() ?? '', /Signed in as user:alice \(alice\)/);
    assert.ok((idp.hits.get('/token') ?? 0) >= 1, 'the code was exchanged with the client secret (client_secret_basic)');
    // What is wrong, who is paged now and next, and the runbook and source as links, in the messages' words (§24.1, §24.8).
    assert.match(await w.page.locator('p.lead').textContent() ?? '', /^triggered P1 Paged: step 1 of 2: alice; next: bob at .+ \(in (59|60)m\)$/);
    assert.deepEqual(await w.page.locator('ul.facts-list li').allTextContents(), ['checkout-api 5xx ratio above 5% for 10 minutes',
      `Instance: ${LONG_INSTANCE}`, 'Runbook: https://runbooks.example.com/checkout-api/high-error-rate',
      'Source: http://prometheus.example.com:9090/graph?g0.expr=job%3Acheckout_5xx_ratio%3Arate5m+%3E+0.05',
      'Alertmanager: http://alertmanager.example.com:9093']);
    assert.equal(await w.page.locator('a[href="https://runbooks.example.com/checkout-api/high-error-rate"]').count(), 1);
    assert.equal(await w.page.locator('a[href^="http://prometheus.example.com:9090/graph"]').count(), 1);
    // The timeline is a card per row only on a phone: here it is the table it always was, a column each.
    assert.deepEqual(await w.page.evaluate(`[...new Set([...document.querySelectorAll('table.cards tr, table.cards th, table.cards td')]
      .map((e) => e.tagName + ' ' + getComputedStyle(e).display))].sort()`), ['TD table-cell', 'TH table-cell', 'TR table-row']);
    await w.page.screenshot({ path: screenshotPath('team-page') });
    await Promise.all([w.page.waitForURL(`${team.origin}/ui/pages/${pages.triggered}?done=ack`), w.page.getByRole('button', { name: 'Acknowledge' }).click()]);
    assert.match(await w.page.getByRole('status').first().textContent() ?? '', /Acknowledged\./);
    await w.context.close();
    assert.deepEqual(w.problems, []);
    const rows = auditRows(team.daemon.home).filter((r) => r.kind === 'page.acknowledged' && r.data.pageId === pages.triggered);
    assert.deepEqual(rows.map((r) => [r.actor, r.data.by, r.data.via]), [['user:alice', 'alice', 'console']]);
  });

  it('forms need the session\'s CSRF token and the console\'s own origin; nothing happens without them', async () => {
    const cookie = asAlice.storageState !== undefined && typeof asAlice.storageState !== 'string'
      ? asAlice.storageState.cookies.filter((c) => c.name === 'svc_team').map((c) => `${c.name}=${c.value}`).join('; ') : '';
    assert.ok(cookie !== '');
    const view = await (await fetch(`${team.origin}/ui/pages/${pages.triggered}`, { headers: { cookie } })).text();
    const csrf = /name="csrf" value="([A-Za-z0-9_-]{43})"/.exec(view)?.[1] ?? '';
    assert.ok(csrf !== '');
    const unacks = (): number => auditRows(team.daemon.home).filter((r) => r.kind === 'page.unacknowledged').length;
    const post = (fields: Record<string, string>, origin?: string) => fetch(`${team.origin}/actions/page`, { method: 'POST', redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', ...(origin === undefined ? {} : { origin }) },
      body: new URLSearchParams({ id: pages.triggered, action: 'unack', ...fields }).toString() });
    assert.equal((await post({})).status, 403, 'no token');
    assert.equal((await post({ csrf: 'x'.repeat(43) })).status, 403, 'another token');
    assert.equal((await post({ csrf }, 'http://evil.example')).status, 403, 'another site\'s form');
    assert.equal(unacks(), 0);
    const done = await post({ csrf }, 'null');
    assert.equal(done.headers.get('location'), `/ui/pages/${pages.triggered}?done=unack`);
    assert.equal(unacks(), 1);
  });

  it('mallory, signed in but in no people[].login, reads every view but is refused every action', async () => {
    idp.signInAs('mallory');
    const w = await browser.openPage(DESKTOP);
    try {
      await w.page.goto(`${team.origin}/ui/`);
      await w.page.waitForURL(`${team.origin}/ui/`, { timeout: 30_000 });
      assert.match(await w.page.locator('form.who').textContent() ?? '', /Signed in as user:mallory — no person of oncall\.yaml has this login: you can read, not act\./);
      await w.page.goto(`${team.origin}/ui/pages/${pages.triggered}`);
      assert.equal(await w.page.locator('form[action="/actions/page"]').count(), 0, 'no action forms');
      await w.page.goto(`${team.origin}/ui/oncall`);
      assert.equal(await w.page.locator('form[action="/actions/override"]').count(), 0);
      // Her session's own token (the sign-out form's) does not make her someone who acts.
      const csrf = await w.page.locator('form.who input[name="csrf"]').getAttribute('value') ?? '';
      const cookie = (await w.context.cookies()).filter((c) => c.name === 'svc_team').map((c) => `${c.name}=${c.value}`).join('; ');
      const before = auditRows(team.daemon.home).length;
      const r = await fetch(`${team.origin}/actions/page`, { method: 'POST', redirect: 'manual',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ csrf, id: pages.triggered, action: 'resolve' }).toString() });
      assert.equal(r.status, 403);
      assert.match(await r.text(), /no person of oncall\.yaml has this login: you can read the\s+console but not act/);
      assert.equal(auditRows(team.daemon.home).length, before, 'nothing was written');
      await w.context.close();
      assert.deepEqual(w.problems, []);
    } finally {
      idp.signInAs('alice');
    }
  });

  it('at 390 px and at desktop width every view passes axe-core; at 390 nothing scrolls sideways and every title stays inside the viewport; '
    + 'at 1280 audit rows keep each kind, actor and agent whole', async () => {
    const views = ['/ui/', '/ui/pages', `/ui/pages/${pages.triggered}`, '/ui/oncall', '/ui/silences', '/ui/events', `/ui/events/${eventId}`,
      '/ui/dlq', '/ui/audit', '/ui/logs'];
    // The lists whose titles must stay in view, and the audit rows whose narrow columns would wrap a letter at a time.
    const cardTables: Record<string, string[]> = { '/ui/': ['Open pages'], '/ui/pages': ['Pages'], [`/ui/pages/${pages.triggered}`]: ['Timeline of this page'],
      '/ui/events': ['Events'], [`/ui/events/${eventId}`]: ['Audit rows of this event'], '/ui/audit': ['Audit rows'] };
    for (const path of views) {
      const w = await browser.openPage({ ...PHONE, ...asAlice });
      await w.page.goto(`${team.origin}${path}`);
      // The log view's stream never idles: its script has run once the status says so.
      if (path === '/ui/logs') await w.page.locator('#stream-status', { hasText: 'Live' }).waitFor({ timeout: 30_000 });
      else await w.page.waitForLoadState('networkidle');
      const width = await w.page.evaluate<number>('document.documentElement.scrollWidth');
      assert.ok(width <= 390, `${path} is ${width} px wide`);
      const outside = await w.page.evaluate<string[]>(`[...document.querySelectorAll('h1, th.title a, p.lead')].filter((e) => {
        const r = e.getBoundingClientRect(); return r.left < 0 || r.right > 390; }).map((e) => e.textContent)`);
      assert.deepEqual(outside, [], `${path}: titles outside the viewport`);
      const cards = cardTables[path] ?? [];
      assert.deepEqual(await w.page.evaluate<CardProblems>(cardProblems(cards)), { cards, wide: [], broken: [] }, `${path}: card tables`);
      if (path === '/ui/pages') await w.page.screenshot({ path: screenshotPath('team-pages-phone'), fullPage: true });
      await w.context.close();
      assert.deepEqual(w.problems, [], path);
      assert.deepEqual(await browser.axe(`${team.origin}${path}`, { ...PHONE, ...asAlice }), [], `${path}: axe at 390 px`);
    }
    for (const path of ['/ui/', '/ui/pages', `/ui/pages/${pages.triggered}`, '/ui/oncall', '/ui/logs']) {
      assert.deepEqual(await browser.axe(`${team.origin}${path}`, { ...DESKTOP, ...asAlice }), [], `${path}: axe at desktop width`);
    }
    // At a laptop's width the rows are rows again: `agent:oncall-escalator`, `oncall-escalator` or `page.notice-cancelled` broken across
    // lines is hard to read.
    for (const [path, label] of [['/ui/audit', 'Audit rows'], [`/ui/events/${eventId}`, 'Audit rows of this event'],
      [`/ui/pages/${pages.triggered}`, 'Timeline of this page']] as const) {
      const w = await browser.openPage({ ...WIDE, ...asAlice });
      await w.page.goto(`${team.origin}${path}`);
      await w.page.waitForLoadState('networkidle');
      const seen = await w.page.evaluate<CardProblems>(cardProblems([label]));
      assert.deepEqual([seen.cards, seen.broken], [[label], []], `${path} at 1280 px: kinds, actors and agents on one line`);
      await w.context.close();
      assert.deepEqual(w.problems, [], path);
    }
  });

  it('one page on a phone in New York: what is wrong and its links inside the viewport, the next step in the viewer\'s zone, axe clean', async () => {
    const phone = { ...PHONE, ...asAlice, timezoneId: 'America/New_York' };
    const w = await browser.openPage(phone);
    await w.page.goto(`${team.origin}/ui/pages/${pages.triggered}`);
    await w.page.waitForLoadState('networkidle');
    const next = w.page.locator('p.lead time');
    assert.match(await next.getAttribute('datetime') ?? '', /Z$/, 'the UTC instant stays in datetime');
    assert.match(await next.textContent() ?? '', /^\d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)?-0[45]:00$/, 'shown in New York time');
    assert.equal(await w.page.locator('ul.facts-list li').first().textContent(), 'checkout-api 5xx ratio above 5% for 10 minutes');
    const outside = await w.page.evaluate<string[]>(`[...document.querySelectorAll('ul.facts-list li, p.lead')].filter((e) => {
      const r = e.getBoundingClientRect(); return r.left < 0 || r.right > 390; }).map((e) => e.textContent)`);
    assert.deepEqual(outside, [], 'every line of the page inside the viewport');
    assert.ok(await w.page.evaluate<number>('document.documentElement.scrollWidth') <= 390);
    // The timeline's rows are cards here: nothing of it reaches past the screen (not even inside a
    // scrolling region), a row's kind and actor each stay on one line, and the browser still reads it
    // as a table of rows and cells (the accessibility tree, not the markup).
    const timeline = ['Timeline of this page'];
    assert.deepEqual(await w.page.evaluate<CardProblems>(cardProblems(timeline)), { cards: timeline, wide: [], broken: [] });
    const rows = await w.page.locator('table.cards tbody tr').count();
    assert.ok(rows >= 3, `${rows} timeline rows`);
    const cdp = await w.context.newCDPSession(w.page);
    const ax = await cdp.send('Accessibility.getFullAXTree') as { nodes: Array<{ role?: { value?: string } }> };
    const count = (role: string): number => ax.nodes.filter((n) => n.role?.value === role).length;
    assert.equal(count('table'), 1, 'the timeline is a table to a screen reader');
    assert.ok(count('row') > rows && count('rowheader') === rows && count('cell') >= 4 * rows,
      `rows, row headers and cells: ${['row', 'rowheader', 'columnheader', 'cell'].map((r) => `${r} ${count(r)}`).join(', ')}`);
    await w.page.screenshot({ path: screenshotPath('team-page-phone'), fullPage: true });
    await w.context.close();
    assert.deepEqual(w.problems, []);
    assert.deepEqual(await browser.axe(`${team.origin}/ui/pages/${pages.triggered}`, phone), [], 'axe at 390 px');
  });

  it('triggered, acknowledged and resolved pages look different, colour and word; the long title wraps whole on a phone', async () => {
    const w = await browser.openPage({ ...PHONE, ...asAlice, colorScheme: 'dark' });
    await w.page.goto(`${team.origin}/ui/pages`);
    const chips = await w.page.evaluate<Array<[string, string]>>(`[...document.querySelectorAll('#live .state')].map((e) =>
      [e.textContent, getComputedStyle(e).backgroundColor])`);
    const seen = new Map(chips.map(([word, colour]) => [word, colour]));
    assert.deepEqual([...seen.keys()].sort(), ['acknowledged', 'resolved', 'triggered']);
    assert.equal(new Set(seen.values()).size, 3, `three colours: ${JSON.stringify(chips)}`);
    const title = w.page.locator('th.title a', { hasText: 'DiskFull' });
    assert.ok((await title.textContent() ?? '').includes(LONG_INSTANCE), 'the whole title, not cut');
    const box = await title.boundingBox();
    assert.ok(box !== null && box.x >= 0 && box.x + box.width <= 390 && box.height > 30, `wrapped inside the viewport: ${JSON.stringify(box)}`);
    await w.page.screenshot({ path: screenshotPath('team-pages-phone-dark') });
    await w.context.close();
    assert.deepEqual(w.problems, []);
  });

  it('times in the browser\'s zone with the UTC instant kept; an override typed in that zone; a refused form keeps what was typed', async () => {
    const w = await browser.openPage({ ...DESKTOP, ...asAlice, timezoneId: 'America/New_York' });
    await w.page.goto(`${team.origin}/ui/oncall`);
    assert.equal(await w.page.locator('#zone-note').textContent(), 'Times in America/New_York (this browser)');
    const first = w.page.locator('table time').first();
    const [iso, shown] = [await first.getAttribute('datetime') ?? '', await first.textContent() ?? ''];
    assert.match(iso, /Z$/, 'the UTC instant stays in datetime');
    assert.match(shown, /^\d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)?-0[45]:00$/, `shown in New York time: ${shown}`);
    const form = w.page.locator('form[action="/actions/override"][aria-label^="Add an override"]');
    assert.equal(await form.locator('input[name="tz"]').inputValue(), 'America/New_York', 'the form shows the zone it reads times in');
    await form.locator('select[name="person"]').selectOption('bob');
    await form.locator('input[name="from"]').fill('2026-12-01 09:00');
    await form.locator('input[name="to"]').fill('2026-12-01 08:00');
    await Promise.all([w.page.waitForURL(/\/ui\/oncall\?failed=/), form.getByRole('button', { name: 'Add override' }).click()]);
    assert.equal(await w.page.getByRole('alert').textContent(), 'Not done: Until must be after From');
    const again = w.page.locator('form[action="/actions/override"][aria-label^="Add an override"]');
    assert.deepEqual([await again.locator('select[name="person"]').inputValue(), await again.locator('input[name="from"]').inputValue(),
      await again.locator('input[name="to"]').inputValue(), await again.locator('input[name="tz"]').inputValue()],
    ['bob', '2026-12-01 09:00', '2026-12-01 08:00', 'America/New_York'], 'what was typed is still there');
    await again.locator('input[name="to"]').fill('2026-12-01 18:00');
    await Promise.all([w.page.waitForURL(`${team.origin}/ui/oncall?done=added`), again.getByRole('button', { name: 'Add override' }).click()]);
    await w.context.close();
    assert.deepEqual(w.problems, []);
    const added = auditRows(team.daemon.home).filter((r) => r.kind === 'schedule.override.added');
    // 09:00 and 18:00 in New York on 1 December (EST, -05:00).
    assert.deepEqual(added.map((r) => [r.data.from, r.data.to, r.data.by, r.data.via, r.actor]),
      [['2026-12-01T14:00:00.000Z', '2026-12-01T23:00:00.000Z', 'alice', 'console', 'user:alice']]);
  });

  it('the log view opens with the last 100 records, then goes on live from exactly there', async () => {
    appendFileSync(team.daemon.logFile, Array.from({ length: 150 }, (_, i) =>
      `${JSON.stringify({ ts: new Date().toISOString(), level: 'info', agentId: 'oncall-escalator', event: 'bench.marker', n: `marker-${i}` })}\n`).join(''));
    const w = await browser.openPage({ ...DESKTOP, ...asAlice });
    await w.page.goto(`${team.origin}/ui/logs`);
    await w.page.locator('#stream-status', { hasText: 'Live' }).waitFor({ timeout: 30_000 });
    const shown = await w.page.locator('ol.log li').allTextContents();
    assert.equal(shown.length, 100);
    assert.ok(shown.some((t) => t.includes('"marker-149"')), 'the newest record is there');
    assert.ok(!shown.some((t) => t.includes('"marker-49"')), 'the older ones are not');
    appendFileSync(team.daemon.logFile, `${JSON.stringify({ ts: new Date().toISOString(), level: 'info', agentId: 'oncall-escalator', event: 'bench.marker', n: 'marker-live' })}\n`);
    await w.page.locator('ol.log li', { hasText: '"marker-live"' }).waitFor({ timeout: 30_000 });
    const all = await w.page.locator('ol.log li').allTextContents();
    assert.equal(all.filter((t) => t.includes('"marker-149"')).length, 1, 'no record twice at the hand-over');
    await w.context.close();
    assert.deepEqual(w.problems, []);
  });

  it('a calendar subscription URL of the team console works without signing in; a wrong key is refused; without a key it asks to sign in', async () => {
    const issued = await runSvc(['oncall', 'calendar-url', 'primary', '--person', 'alice'], { env: team.daemon.env, cwd: team.daemon.dir });
    assert.equal(issued.code, 0, issued.stderr);
    const url = issued.stdout.trim();
    assert.ok(url.startsWith(`${team.origin}/oncall/primary.ics?key=alice.`), url);
    const ics = await fetch(url, { redirect: 'manual' });
    assert.equal(ics.status, 200);
    assert.equal(ics.headers.get('content-type'), 'text/calendar; charset=utf-8');
    assert.match(await ics.text(), /SUMMARY:On call: alice \(primary\)/);
    assert.equal((await fetch(`${url.slice(0, -3)}AAA`, { redirect: 'manual' })).status, 403);
    const bare = await fetch(`${team.origin}/oncall/primary.ics`, { redirect: 'manual' });
    assert.equal(bare.status, 302);
    assert.equal(auditRows(team.daemon.home).filter((r) => r.kind === 'schedule.calendar.issued').length, 1);
  });
});
