/**
 * Debian's chromium driven by playwright-core (browsers cannot be downloaded here). `openPage` gives a
 * page that records every console error, page error and Content-Security-Policy violation, so a test
 * can assert a view loaded cleanly; `axe` runs axe-core in a page (the script injected as content,
 * in a context that bypasses CSP for that purpose only).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--no-first-run'];

/** Set to 1, the browser tests draw the screenshots docs/console.md shows into docs/console/. */
export const UPDATE_SCREENSHOTS_ENV = 'SVC_UPDATE_SCREENSHOTS';
const DOCS_SHOTS = fileURLToPath(new URL('../../docs/console/', import.meta.url));
let tempShots: string | null = null;

/**
 * Where the screenshot `name` goes. By default a temporary folder of this process, removed when it
 * exits, so that a test run leaves the tracked pictures as they are; with SVC_UPDATE_SCREENSHOTS=1,
 * `docs/console/<name>.png`. Either way the page is drawn by a real browser.
 */
export function screenshotPath(name: string): string {
  if (process.env[UPDATE_SCREENSHOTS_ENV] === '1') return join(DOCS_SHOTS, `${name}.png`);
  if (tempShots === null) {
    const dir = mkdtempSync(join(tmpdir(), 'svc-screenshots-'));
    tempShots = dir;
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return join(tempShots, `${name}.png`);
}

export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  /** Console errors, page errors and CSP violations seen so far. */
  problems: string[];
}

export interface TestBrowser {
  browser: Browser;
  openPage(options?: BrowserContextOptions): Promise<WatchedPage>;
  /** axe-core's violations of impact serious or critical on `url` (a fresh CSP-bypassing context). */
  axe(url: string, options?: BrowserContextOptions): Promise<Array<{ id: string; impact: string; help: string; nodes: number }>>;
  close(): Promise<void>;
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export async function startBrowser(): Promise<TestBrowser> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
  return {
    browser,
    async openPage(options = {}) {
      const context = await browser.newContext(options);
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
      page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
      await page.exposeBinding('__reportCspViolation', (_source, text: string) => { problems.push(`csp: ${text}`); });
      // A string: the test's TypeScript has no DOM types, and the page runs it as it is.
      await page.addInitScript({ content: `document.addEventListener('securitypolicyviolation',
        (e) => window.__reportCspViolation(e.violatedDirective + ' ' + e.blockedURI));` });
      return { page, context, problems };
    },
    async axe(url, options = {}) {
      const context = await browser.newContext({ ...options, bypassCSP: true });
      try {
        const page = await context.newPage();
        await page.goto(url);
        await page.addScriptTag({ content: AXE_SOURCE });
        const result = await page.evaluate<Array<{ id: string; impact: string; help: string; nodes: number }>>(`axe.run().then((r) => r.violations.map((v) =>
          ({ id: v.id, impact: v.impact || '', help: v.help, nodes: v.nodes.length })))`);
        return result.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      } finally {
        await context.close();
      }
    },
    close: () => browser.close(),
  };
}
