/**
 * The console in a real browser (Debian's chromium through playwright-core): every view loads with no
 * console error and no CSP violation and passes axe-core (no serious or critical violation), the log
 * view streams a record written after it opened, the keyboard alone reaches every view, a dead-letter
 * replay through `svc console` changes the dead-letter view, the first view fits a 360 px phone, and
 * the operator signs in with OpenID Connect (code + PKCE) against a real provider when the control
 * plane requires tokens. The screenshots of docs/console.md are taken here.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Daemon } from './support/daemon.js';
import { startDaemon } from './support/daemon.js';
import type { TestBrowser } from './support/browser.js';
import { screenshotPath, startBrowser } from './support/browser.js';
import type { RunningConsole } from './support/console.js';
import { postHostileAlert, startConsole, startDeadLetteringDaemon } from './support/console.js';
import { freePort, postAlert } from './support/http.js';
import type { Idp } from './support/idp.js';
import { AUDIENCE, SCOPE, startIdp } from './support/idp.js';
import { oncallYaml } from './support/oncall-yaml.js';
import { auditRows } from './support/store.js';
import { waitFor } from './support/wait.js';

// One browser for the whole file: launching chromium is the slow part on a loaded machine.
let launched: Promise<TestBrowser> | null = null;
const sharedBrowser = (): Promise<TestBrowser> => (launched ??= startBrowser());
after(async () => { await (await launched)?.close(); });
const DESKTOP = { viewport: { width: 1000, height: 640 } };
const PHONE = { viewport: { width: 360, height: 720 }, isMobile: true, hasTouch: true };

describe('the on-call views in a browser', () => {
  let d: Daemon;
  let browser: TestBrowser;
  let pageId = '';

  before(async () => {
    d = await startDaemon({ files: { 'oncall.yaml': oncallYaml('1h', '1h') } });
    await postHostileAlert(d, 'fp-browser-pages');
    const pages = await waitFor('a page', async () => {
      const body = (await (await fetch(`${d.cp}/pages`)).json()) as { items: Array<{ id: string }> };
      return body.items.length === 1 ? body.items : undefined;
    }, 60_000);
    pageId = pages[0]?.id ?? '';
    browser = await sharedBrowser();
  });
  after(async () => {
    await d?.stop();
  });

  it('now with on-call, pages, one page, coverage and reports load clean and pass axe-core', async () => {
    for (const [name, path] of [['now-oncall', '/ui/'], ['pages', '/ui/pages'], ['page', `/ui/pages/${pageId}`], ['oncall', '/ui/oncall'],
      ['silences', '/ui/silences'], ['reports', '/ui/reports?by=person']] as const) {
      const w = await browser.openPage(DESKTOP);
      const answer = await w.page.goto(`${d.cp}${path}`);
      assert.equal(answer?.status(), 200, path);
      await w.page.waitForLoadState('networkidle');
      assert.equal(await w.page.locator('h1').count(), 1, `${path}: one h1`);
      await w.page.screenshot({ path: screenshotPath(name) });
      await w.context.close();
      assert.deepEqual(w.problems, [], path);
      assert.deepEqual(await browser.axe(`${d.cp}${path}`, DESKTOP), [], `${path}: axe`);
    }
  });

  it('through svc console the override and silence forms work from the keyboard alone and pass axe-core', async () => {
    // --as: the person of oncall.yaml acting in this console (§24.6).
    const proxy = await startConsole(d, ['--as', 'alice']);
    try {
      const w = await browser.openPage(DESKTOP);
      await w.page.goto(proxy.link);
      await w.page.waitForURL(`${proxy.origin}/ui/`);
      const signedIn = { ...DESKTOP, storageState: await w.context.storageState() };
      /** Tabs until the focused element is `selector` (the keyboard's own order). */
      const tabTo = async (selector: string): Promise<void> => {
        for (let i = 0; i < 80; i++) {
          if (await w.page.evaluate<boolean>(`document.activeElement === document.querySelector(${JSON.stringify(selector)})`)) return;
          await w.page.keyboard.press('Tab');
        }
        assert.fail(`the keyboard never reached ${selector}`);
      };
      const hour = 3_600_000;
      const start = new Date(Date.now() + 2 * hour).toISOString().slice(0, 13);

      await w.page.goto(`${proxy.origin}/ui/oncall`);
      await tabTo('select[name="person"]');
      await w.page.keyboard.press('ArrowDown'); // alice → bob
      await w.page.keyboard.press('Tab');
      await w.page.keyboard.type(`${start.replace('T', ' ')}:00`);
      await w.page.keyboard.press('Tab');
      await w.page.keyboard.type(`${start.replace('T', ' ')}:30`);
      // The zone the times are read in, shown in the form (§24.5): this browser's.
      await w.page.keyboard.press('Tab');
      assert.equal(await w.page.evaluate<string>('document.activeElement.name'), 'tz');
      await w.page.keyboard.press('Tab');
      assert.equal(await w.page.evaluate<string>('document.activeElement.textContent'), 'Add override');
      await w.page.screenshot({ path: screenshotPath('oncall-actions') });
      await Promise.all([w.page.waitForURL(`${proxy.origin}/ui/oncall?done=added`), w.page.keyboard.press('Enter')]);
      assert.ok(await w.page.getByText('Override added.').isVisible());
      assert.deepEqual(await browser.axe(`${proxy.origin}/ui/oncall`, signedIn), [], 'oncall with forms: axe');

      await w.page.goto(`${proxy.origin}/ui/silences`);
      await tabTo('textarea[name="matchers"]');
      await w.page.keyboard.type('alertname=DiskFull');
      await w.page.keyboard.press('Tab');
      await w.page.keyboard.type('8d');
      await w.page.keyboard.press('Tab');
      await w.page.keyboard.type('disk swap');
      await Promise.all([w.page.waitForURL(/\/ui\/silences\?failed=/), w.page.keyboard.press('Enter')]);
      assert.equal(await w.page.getByRole('alert').textContent(), 'Not done: Duration 8d is longer than 1w; silence at most a week at a time');
      await tabTo('textarea[name="matchers"]');
      await w.page.keyboard.type('alertname=DiskFull');
      await w.page.keyboard.press('Tab');
      await w.page.keyboard.type('2h');
      await w.page.keyboard.press('Tab');
      await w.page.keyboard.type('disk swap');
      await Promise.all([w.page.waitForURL(`${proxy.origin}/ui/silences?done=added`), w.page.keyboard.press('Enter')]);
      await w.page.screenshot({ path: screenshotPath('silences-actions') });
      await tabTo('button[aria-label^="Expire silence"]');
      await Promise.all([w.page.waitForURL(`${proxy.origin}/ui/silences?done=expired`), w.page.keyboard.press('Enter')]);
      assert.deepEqual(await browser.axe(`${proxy.origin}/ui/silences`, signedIn), [], 'silences with forms: axe');
      await w.context.close();
      assert.deepEqual(w.problems, []);
      const rows = auditRows(d.home).filter((r) => r.data.via === 'console').map((r) => [r.kind, r.data.by]);
      assert.deepEqual(rows, [['schedule.override.added', 'alice'], ['silence.created', 'alice'], ['silence.expired', 'alice']]);
    } finally {
      await proxy.stop();
    }
  });
});

describe('console in a browser', () => {
  let d: Daemon;
  let browser: TestBrowser;
  let proxy: RunningConsole;
  let eventId = '';

  before(async () => {
    d = await startDeadLetteringDaemon();
    await postHostileAlert(d, 'fp-browser-1');
    const letters = await waitFor('a dead letter', async () => {
      const body = (await (await fetch(`${d.cp}/dlq`)).json()) as { items: Array<{ eventId: string }> };
      return body.items.length === 1 ? body.items : undefined;
    }, 60_000);
    eventId = letters[0]?.eventId ?? '';
    browser = await sharedBrowser();
    proxy = await startConsole(d);
  });
  after(async () => {
    await proxy?.stop();
    await d?.stop();
  });

  const views = (): Array<[string, string]> => [['now', '/ui/'], ['events', '/ui/events'], ['event', `/ui/events/${eventId}`],
    ['dlq', '/ui/dlq'], ['audit', '/ui/audit?verify=1'], ['logs', '/ui/logs']];

  it('each view loads with no console error and no CSP violation, and axe-core finds nothing serious', async () => {
    for (const [name, path] of views()) {
      const w = await browser.openPage(DESKTOP);
      const answer = await w.page.goto(`${d.cp}${path}`);
      assert.equal(answer?.status(), 200, path);
      // The log view's stream never idles: its script has run once the status says so.
      if (path === '/ui/logs') await w.page.locator('#stream-status', { hasText: 'Live' }).waitFor({ timeout: 30_000 });
      else await w.page.waitForLoadState('networkidle');
      assert.equal(await w.page.locator('h1').count(), 1, `${path}: one h1`);
      assert.ok(await w.page.locator('main#main').isVisible(), `${path}: the main landmark`);
      await w.page.screenshot({ path: screenshotPath(name) });
      await w.context.close();
      assert.deepEqual(w.problems, [], path);
      assert.deepEqual(await browser.axe(`${d.cp}${path}`, DESKTOP), [], `${path}: axe`);
    }
  });

  it('the first view fits a 360 px phone, in light and dark, and passes axe-core there', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      const w = await browser.openPage({ ...PHONE, colorScheme: scheme });
      await w.page.goto(`${d.cp}/ui/`);
      const width = await w.page.evaluate<number>('document.documentElement.scrollWidth');
      assert.ok(width <= 360, `the page is ${width} px wide`);
      const bg = await w.page.evaluate<string>('getComputedStyle(document.body).backgroundColor');
      assert.equal(bg, scheme === 'dark' ? 'rgb(17, 20, 23)' : 'rgb(255, 255, 255)');
      await w.page.screenshot({ path: screenshotPath(`now-phone-${scheme}`) });
      await w.context.close();
      assert.deepEqual(w.problems, []);
      assert.deepEqual(await browser.axe(`${d.cp}/ui/`, { ...PHONE, colorScheme: scheme }), [], `axe, ${scheme}`);
    }
  });

  it('the log view streams a record written after it opened', async () => {
    const w = await browser.openPage(DESKTOP);
    await w.page.goto(`${d.cp}/ui/logs`);
    await w.page.locator('#stream-status', { hasText: 'Live' }).waitFor({ timeout: 30_000 });
    assert.ok(await w.page.locator('ol.log li').count() >= 1, 'it opens with the records already written (§24.8)');
    assert.equal(await w.page.locator('ol.log li', { hasText: 'fp-log-stream' }).count(), 0);
    assert.equal((await postAlert(d.url, d.secret, d.fixture, 'fp-log-stream')).status, 202);
    try {
      await w.page.locator('ol.log li', { hasText: 'oncall-escalator' }).first().waitFor({ timeout: 30_000 });
    } catch (err) {
      // Once in several runs the line did not arrive (not reproduced): say what each side saw, for the next run that fails.
      const status = await w.page.locator('#stream-status').textContent();
      const shown = await w.page.locator('ol.log li').allTextContents();
      const read = (path: string): string => { try { return readFileSync(path, 'utf8'); } catch { return ''; } };
      const written = read(d.logFile).split('\n').filter((l) => l.includes('fp-log-stream'));
      throw new Error(`no log line reached the browser in 30 s; its status: ${JSON.stringify(status)}; lines shown: ${JSON.stringify(shown)}; `
        + `the agent log's lines of the alert: ${JSON.stringify(written)}; up.log: ${JSON.stringify(read(join(d.home, 'up.log')).slice(-2000))}`,
      { cause: err });
    }
    await w.page.screenshot({ path: screenshotPath('logs') });
    await w.context.close();
    assert.deepEqual(w.problems, []);
  });

  it('the keyboard alone reaches the content and every view, with a visible focus', async () => {
    const w = await browser.openPage(DESKTOP);
    await w.page.goto(`${d.cp}/ui/`);
    await w.page.keyboard.press('Tab');
    assert.equal(await w.page.evaluate<string>('document.activeElement.textContent'), 'Skip to content');
    const outline = await w.page.evaluate<string>('getComputedStyle(document.activeElement).outlineStyle');
    assert.equal(outline, 'solid', 'the focused link shows an outline');
    await w.page.keyboard.press('Enter');
    assert.equal(await w.page.evaluate<string>('document.activeElement.id'), 'main');
    await w.page.goto(`${d.cp}/ui/`);
    for (const [label, path] of [['Events', '/ui/events'], ['Dead letters', '/ui/dlq'], ['Audit', '/ui/audit'], ['Logs', '/ui/logs']]) {
      await w.page.goto(`${d.cp}/ui/`);
      let guard = 0;
      while (await w.page.evaluate<string>('document.activeElement.textContent') !== label && guard++ < 10) await w.page.keyboard.press('Tab');
      await Promise.all([w.page.waitForURL(`${d.cp}${path}`), w.page.keyboard.press('Enter')]);
    }
    // A filter form works from the keyboard too.
    await w.page.goto(`${d.cp}/ui/events`);
    await w.page.focus('#f-agent');
    await w.page.keyboard.type('oncall-escalator');
    await Promise.all([w.page.waitForURL(/agent=oncall-escalator/), w.page.keyboard.press('Enter')]);
    assert.ok(await w.page.locator('tbody tr').count() >= 1);
    await w.context.close();
    assert.deepEqual(w.problems, []);
  });

  it('a dead-letter replay through svc console changes the dead-letter view', async () => {
    const w = await browser.openPage(DESKTOP);
    await w.page.goto(proxy.link);
    await w.page.waitForURL(`${proxy.origin}/ui/`);
    await w.page.goto(`${proxy.origin}/ui/dlq`);
    const buttons = w.page.getByRole('button', { name: /^Replay dead letter/ });
    assert.ok(await buttons.count() >= 1);
    const letterId = await w.page.locator('form[action="/actions/dlq-replay"] input[name="id"]').first().getAttribute('value') ?? '';
    await w.page.screenshot({ path: screenshotPath('dlq-actions') });
    await Promise.all([w.page.waitForURL(`${proxy.origin}/ui/dlq?replayed=1`), buttons.first().click()]);
    assert.ok(await w.page.getByText('Replayed: the event is back in the queue.').isVisible());
    assert.equal(await w.page.locator(`input[name="id"][value="${letterId}"]`).count(), 0, 'the replayed letter offers no second replay');
    await w.context.close();
    assert.deepEqual(w.problems, []);
    const rows = auditRows(d.home).filter((r) => r.kind === 'dlq.replayed' && r.data.deadLetterId === letterId);
    assert.equal(rows.length, 1, JSON.stringify(rows));
    assert.equal(rows[0]?.data.via, 'console');
  });
});

describe('console sign-in with OpenID Connect', () => {
  let idp: Idp;
  let d: Daemon;
  let browser: TestBrowser;
  let proxy: RunningConsole;

  before(async () => {
    const port = await freePort();
    idp = await startIdp({}, { codeClients: { 'svc-console': `http://127.0.0.1:${port}/callback` }, requireResource: true });
    d = await startDaemon({ auth: { issuer: idp.issuer, audience: AUDIENCE, scopes: [SCOPE], allowLoopback: false, console: { clientId: 'svc-console' } } });
    browser = await sharedBrowser();
    proxy = await startConsole(d, [], port);
  });
  after(async () => {
    await proxy?.stop();
    await d?.stop();
    await idp?.close();
  });

  it('without a token the console answers 401 like the JSON views', async () => {
    const r = await fetch(`${d.cp}/ui/`);
    assert.equal(r.status, 401);
    assert.equal(r.headers.get('www-authenticate'), 'Bearer');
    assert.equal(r.headers.get('x-frame-options'), 'DENY');
    assert.deepEqual(await r.json(), { error: 'missing bearer token', reason: 'missing-token' });
  });

  it('the one-time link signs the operator in (code + PKCE) and the proxy shows the console with the token', async () => {
    const w = await browser.openPage(DESKTOP);
    await w.page.goto(proxy.link);
    await w.page.waitForURL(`${proxy.origin}/ui/`, { timeout: 30_000 });
    assert.equal(await w.page.locator('h1').textContent(), 'Now');
    await w.page.goto(`${proxy.origin}/ui/events`);
    assert.equal(await w.page.locator('h1').textContent(), 'Events');
    await w.context.close();
    assert.deepEqual(w.problems, []);
    assert.match(proxy.process.stderr(), /svc console: signed in as user:alice/);
    assert.ok((idp.hits.get('/token') ?? 0) >= 1, 'the code was exchanged at the token endpoint');
  });
});

describe('console sign-in renewal with a refresh token', () => {
  let idp: Idp;
  let d: Daemon;
  let browser: TestBrowser;
  let proxy: RunningConsole;

  before(async () => {
    const port = await freePort();
    // Access tokens of 20 s: shorter than the proxy's renewal margin, so every view renews first.
    idp = await startIdp({}, { codeClients: { 'svc-console': `http://127.0.0.1:${port}/callback` }, requireResource: true, refreshTokens: true, ttlS: 20 });
    d = await startDaemon({ auth: { issuer: idp.issuer, audience: AUDIENCE, scopes: [SCOPE], allowLoopback: false, console: { clientId: 'svc-console' } } });
    browser = await sharedBrowser();
    proxy = await startConsole(d, [], port);
  });
  after(async () => {
    await proxy?.stop();
    await d?.stop();
    await idp?.close();
  });

  it('a token near its end is renewed with the refresh token; when renewal fails the next request signs in again, not an error', async () => {
    const w = await browser.openPage(DESKTOP);
    await w.page.goto(proxy.link);
    await w.page.waitForURL(`${proxy.origin}/ui/`, { timeout: 30_000 });
    assert.equal(await w.page.locator('h1').textContent(), 'Now');
    const tokens = (): number => idp.hits.get('/token') ?? 0;
    const before = tokens();
    assert.ok(before >= 2, `the code exchange and a renewal: ${before} token requests`);
    const answer = await w.page.goto(`${proxy.origin}/ui/events`);
    assert.equal(answer?.status(), 200, 'the renewed token is accepted upstream');
    assert.equal(await w.page.locator('h1').textContent(), 'Events');
    assert.ok(tokens() > before, 'renewed again: the token was still near its end');
    const cookie = (await w.context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    await w.context.close();
    assert.deepEqual(w.problems, []);
    assert.doesNotMatch(proxy.process.stderr(), /failed/);

    await idp.close(); // the IdP is gone: renewal fails
    const r = await fetch(`${proxy.origin}/ui/pages`, { headers: { cookie }, redirect: 'manual' });
    assert.equal(r.status, 302, 'sent through sign-in, not an error page');
    assert.ok((r.headers.get('location') ?? '').startsWith(`${idp.issuer}/auth?`), r.headers.get('location') ?? '');
    assert.match(proxy.process.stderr(), /svc console: renewing the sign-in of user:alice failed \(.+\); signing in again/);
  });
});
