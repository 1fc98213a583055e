/**
 * One-time ack links against the built daemon (contract §18.6): a file channel, an oncall.yaml and a
 * `type: ack` source. The page message carries the person's links; GET shows a confirm form and
 * changes nothing; POST acknowledges once (`via: link`) and the escalation stops; a used link stays
 * used after an unack; forged, expired and foreign tokens, and links of a resolved page, are refused;
 * once the page reopens, links from before it resolved are refused and the new message's links act.
 * Every refused POST whose token svc minted is audited `page.ack-refused`, on the page's timeline.
 */
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { mintAckToken } from '../src/oncall/ack-token.js';
import { freePort, postAlert } from './support/http.js';
import { auditRows, queryStore, readJsonLines } from './support/store.js';
import { runSvc, scaffoldAgent, tempEnv } from './support/svc.js';
import { oncallYaml } from './support/oncall-yaml.js';
import { waitFor } from './support/wait.js';

// A reopen window long enough for the test to fire the incident again after resolving it.
const ONCALL = oncallYaml('30s', '1h').replace('reopenWindow: 1s', 'reopenWindow: 10m');

type Line = Record<string, unknown>;

describe('ack links e2e', () => {
  const t = tempEnv();
  const stops: string[] = [];
  after(async () => {
    for (const dir of stops) await runSvc(['down'], { env: t.env, cwd: dir });
    t.cleanup();
  });

  it('GET asks, POST acks once and stops the escalation; forged, expired, foreign, used and resolved links change nothing', async () => {
    const a = await scaffoldAgent(t, 'links');
    writeFileSync(join(a.dir, 'oncall.yaml'), ONCALL);
    const sourcesFile = join(a.dir, 'event-sources.yaml');
    const secretRef = /secret: (\$\{secret:[^}]+\})/.exec(readFileSync(sourcesFile, 'utf8'))?.[1];
    assert.ok(secretRef !== undefined);
    const ackPort = await freePort();
    appendFileSync(sourcesFile, `  - id: ack-links\n    type: ack\n    port: ${ackPort}\n    secret: ${secretRef}\n`);
    const up = await runSvc(['up', '-d'], { env: t.env, cwd: a.dir });
    assert.equal(up.code, 0, up.stderr);
    stops.push(a.dir);
    const lines = (): Line[] => readJsonLines(join(a.dir, 'out', 'oncall-dm.jsonl'));
    const pageState = (id: string): string | undefined => queryStore<{ state: string }>(t.home, 'SELECT state FROM pages WHERE id = ?', id)[0]?.state;

    assert.equal((await postAlert(a.url, a.secret, a.fixture, 'links-1')).status, 202);
    const first = await waitFor('step 1 paged alice', () => lines().find((l) => l.to === 'alice'));
    const pageId = String(first.pageId);
    const links = first.links as { ack: string; resolve: string };
    const base = `http://127.0.0.1:${ackPort}/ack/`;
    assert.ok(links.ack.startsWith(base) && links.resolve.startsWith(base), JSON.stringify(links));
    assert.match(links.ack.slice(base.length), /^v2\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    // What is wrong (§24.1): the summary, the instance, the alert's own links (issue 26.6), who is paged now and next, one way to act.
    const esc = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    assert.match(String(first.text), new RegExp(`^${esc(`[P1] ${String(first.title)}\ncheckout-api 5xx ratio above 5% for 10 minutes\n`
      + 'Instance: checkout-api-7f9c:8080\nRunbook: https://runbooks.example.com/checkout-api/high-error-rate\n'
      + 'Source: http://prometheus.example.com:9090/graph?g0.expr=job%3Acheckout_5xx_ratio%3Arate5m+%3E+0.05\n'
      + `Alertmanager: http://alertmanager.example.com:9093\nPage ${pageId} opened.\n`)}`
      + `Paged: step 1 of 2[^\\n]*; next: [^\\n]+ at \\d\\d:\\d\\d [A-Z]{3,4} \\(in [^)]+\\)\\n${esc(`Acknowledge: ${links.ack} | Resolve: ${links.resolve}`)}$`));

    // GET: a confirm form, no script, the console-style headers; the page is untouched.
    const shown = await fetch(links.ack);
    assert.equal(shown.status, 200);
    assert.equal(shown.headers.get('referrer-policy'), 'no-referrer');
    assert.equal(shown.headers.get('cache-control'), 'no-store');
    assert.match(shown.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    const html = await shown.text();
    assert.match(html, new RegExp(`<h1>Acknowledge page ${pageId}\\?</h1>`));
    assert.match(html, /<form method="post"><button type="submit">Acknowledge<\/button><\/form>/);
    assert.doesNotMatch(html, /<script/i);
    assert.equal(pageState(pageId), 'triggered');

    // A second alert of the group joins the page: alice is told, with links of her own for this opening of it (left unused).
    assert.equal((await postAlert(a.url, a.secret, a.fixture, 'links-join')).status, 202);
    const joinNotice = await waitFor('the join told alice', () => lines().find((l) => l.deliveryId === `${pageId}.2.alice.oncall-dm`));
    const unused = joinNotice.links as { ack: string; resolve: string };
    assert.notEqual(unused.ack, links.ack);

    // Forged (another MAC), expired (minted for the past) and foreign (another agent) tokens: refused, nothing changes.
    const token = links.ack.slice(base.length);
    const forged = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    const expired = mintAckToken({ agentId: 'oncall-escalator', pageId, person: 'alice', action: 'ack', expiresAtMs: Date.now() - 1000, incarnation: 0 },
      a.secret);
    const foreign = mintAckToken({ agentId: 'other-agent', pageId, person: 'alice', action: 'ack', expiresAtMs: Date.now() + 60_000, incarnation: 0 },
      a.secret);
    const post = (t2: string): Promise<Response> => fetch(`${base}${t2}`, { method: 'POST', body: 'confirm=1',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    const refusedForged = await post(forged);
    assert.equal(refusedForged.status, 403);
    assert.match(await refusedForged.text(), /<p>This link is not valid\.<\/p>/);
    const refusedExpired = await post(expired);
    assert.equal(refusedExpired.status, 410);
    assert.match(await refusedExpired.text(), /<p>This link has expired\. Use svc ack or a newer message\.<\/p>/);
    assert.equal((await post(foreign)).status, 403);
    assert.equal(pageState(pageId), 'triggered');
    assert.equal(auditRows(t.home).filter((r) => r.kind === 'page.acknowledged').length, 0);
    // Refused POSTs of tokens svc minted are audited on the page; the forged one names nothing to trust: logged, not audited.
    const refusals = (): Array<[unknown, unknown]> => auditRows(t.home).filter((r) => r.kind === 'page.ack-refused').map((r) => [r.data.reason, r.data.pageId]);
    assert.deepEqual(refusals(), [['expired', pageId], ['foreign', pageId]]);
    const forgedLog = await waitFor('the forged token logged', () => readJsonLines(join(t.home, 'logs', 'oncall-escalator.log'))
      .find((l) => l.event === 'ack-link.refused' && l.reason === 'forged'));
    assert.equal(forgedLog.status, 403);

    // POST: acknowledged once, by alice, via link; the second POST is refused.
    const acked = await post(token);
    assert.equal(acked.status, 200);
    assert.match(await acked.text(), new RegExp(`<p>Page ${pageId} is acknowledged by alice; its escalation has stopped\\.</p>`));
    assert.equal(pageState(pageId), 'acknowledged');
    const ackRows = auditRows(t.home).filter((r) => r.kind === 'page.acknowledged');
    assert.equal(ackRows.length, 1);
    assert.deepEqual(ackRows[0]?.data, { pageId, by: 'alice', via: 'link', step: 1, loop: 0 });
    assert.match(String(ackRows[0]?.actor), /^link:[A-Za-z0-9_-]{22}$/);
    const second = await post(token);
    assert.equal(second.status, 409);
    assert.match(await second.text(), /<p>This link was already used; each link acts once\.<\/p>/);

    // Used stays used: after an unack the same link still does not act (the timeline remembers it).
    assert.equal((await runSvc(['unack', pageId], { env: t.env, cwd: a.dir })).code, 0);
    assert.equal((await post(token)).status, 409);
    assert.equal(pageState(pageId), 'triggered');
    assert.deepEqual(refusals().slice(2), [['used', pageId], ['used', pageId]]);

    // The resolve link resolves; afterwards every link of the page is refused as resolved.
    const resolved = await post(links.resolve.slice(base.length));
    assert.equal(resolved.status, 200);
    assert.equal(pageState(pageId), 'resolved');
    const late = await fetch(links.ack);
    assert.equal(late.status, 410);
    assert.match(await late.text(), new RegExp(`<p>Page ${pageId} is already resolved; this link no longer acts\\.</p>`));

    // Positive evidence the escalation stopped: after step 1 (and the join) only alice's status notices (§24.1: the ack, the unack,
    // the resolution) went out, bob never paged.
    await waitFor('alice told of the resolution', () => lines().some((l) => l.status === 'resolved'));
    assert.deepEqual(lines().map((l) => [l.deliveryId, l.pageKind]), [[first.deliveryId, 'escalation'], [`${pageId}.2.alice.oncall-dm`, 'join'],
      [`${pageId}.3.alice.oncall-dm`, 'acknowledged'], [`${pageId}.4.alice.oncall-dm`, 'unacknowledged'], [`${pageId}.5.alice.oncall-dm`, 'resolved']]);
    assert.equal(lines()[4]?.links, undefined, 'a resolution notice carries no links');
    assert.equal(auditRows(t.home).filter((r) => r.kind === 'page.escalated' && r.data.pageId === pageId).length, 0);
    const resolvedRow = auditRows(t.home).find((r) => r.kind === 'page.resolved');
    assert.equal(resolvedRow?.data.via, 'link');

    // The incident fires again: the page reopens (one page, its second opening) and its new message carries new links.
    const oldGet = await fetch(links.ack);
    assert.equal(oldGet.status, 410, 'resolved: the old links no longer act');
    assert.equal((await postAlert(a.url, a.secret, a.fixture, 'links-2')).status, 202);
    const reopened = await waitFor('the reopened page paged alice', () => lines().find((l) => l.deliveryId === `${pageId}.6.alice.oncall-dm`));
    assert.equal(pageState(pageId), 'triggered');
    const fresh = reopened.links as { ack: string; resolve: string };
    assert.notEqual(fresh.ack, links.ack);
    // A link from before the page resolved, never used: refused, audited, the reopened page untouched.
    const stale = await fetch(unused.ack);
    assert.equal(stale.status, 410);
    assert.match(await stale.text(), new RegExp(`<p>Page ${pageId} was resolved and has opened again since this link was sent; use the newest message\\.</p>`));
    assert.equal((await post(unused.ack.slice(base.length))).status, 410);
    assert.equal(pageState(pageId), 'triggered');
    assert.deepEqual(refusals().at(-1), ['reopened', pageId]);
    const fromNew = await post(fresh.ack.slice(base.length));
    assert.equal(fromNew.status, 200, 'the new message\'s link acts');
    assert.equal(pageState(pageId), 'acknowledged');

    // Every refusal names the page, so it is on the page's timeline (§17.9; the control plane's view of
    // it is in oncall-pages.e2e), in the order it happened.
    const timeline = auditRows(t.home).filter((r) => r.data.pageId === pageId);
    assert.deepEqual(timeline.filter((r) => r.kind === 'page.ack-refused').map((r) => r.data.reason), ['expired', 'foreign', 'used', 'used', 'reopened']);
  });
});
