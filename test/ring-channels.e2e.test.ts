/**
 * Channels that ring a phone, against the built daemon, a local ntfy server and a local Pushover API
 * (contract §21.2, §21.3). `svc check` refuses a contact that is no topic, at its position. A P1 page
 * to alice, who has an ntfy topic and a Pushover key, reaches both: ntfy at priority 5 with
 * Acknowledge/Resolve buttons that POST her one-time links, Pushover at emergency priority. Three
 * pages are answered at once:
 *
 *   - page A: alice acknowledges in Pushover → the leader's poll acknowledges the page as alice
 *     (`via: pushover`, the device in the row), and its receipt needs no cancel;
 *   - page B: `svc ack` → the receipt is cancelled at Pushover, once, and no longer watched;
 *   - page C: the ntfy button's POST (as the phone sends it) acknowledges through the link, and the
 *     receipt is cancelled too.
 *
 * Both tokens are canaries: they are in no file svc wrote.
 */
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { FakeNtfy } from './support/fake-ntfy.js';
import { startFakeNtfy } from './support/fake-ntfy.js';
import type { FakePushover } from './support/fake-pushover.js';
import { startFakePushover } from './support/fake-pushover.js';
import { freePort, postWebhook, sign } from './support/http.js';
import { aliceOnlyYaml, alertInGroup } from './support/oncall-yaml.js';
import { auditRows, queryStore } from './support/store.js';
import { runSvc, scaffoldAgent, tempEnv } from './support/svc.js';
import { waitFor } from './support/wait.js';

const NTFY_TOKEN = 'tk_CanaryNtfyToken000000000e2e';
const PUSHOVER_TOKEN = 'aCanaryPushoverToken000000e2e0';
const ALICE_KEY = 'uQiRzpo4DXghDmr9QzzfQu27cmVRsG';
const TOPIC = 'alice-7f3k2q';

function allText(dir: string): string {
  let out = '';
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    out += statSync(path).isDirectory() ? allText(path) : readFileSync(path, 'latin1');
  }
  return out;
}

describe('ntfy and pushover e2e', () => {
  const t = tempEnv();
  let ntfy: FakeNtfy | null = null;
  let pushover: FakePushover | null = null;
  let dir = '';
  after(async () => {
    if (dir) await runSvc(['down'], { env: t.env, cwd: dir });
    await ntfy?.close();
    await pushover?.close();
    t.cleanup();
  });

  it('a page reaches ntfy and Pushover; a Pushover ack acknowledges it, svc ack and the ntfy button cancel the receipt', async () => {
    ntfy = await startFakeNtfy({ token: NTFY_TOKEN });
    pushover = await startFakePushover({ token: PUSHOVER_TOKEN, users: [ALICE_KEY] });
    const po = pushover;
    const a = await scaffoldAgent(t, 'ring');
    dir = a.dir;
    t.env.NTFY_TOKEN = NTFY_TOKEN;
    t.env.PUSHOVER_TOKEN = PUSHOVER_TOKEN;
    writeFileSync(join(a.dir, 'channels.yaml'), [
      'channels:',
      '  - { id: oncall-dm, type: file, direction: outbound, path: ./out/oncall-dm.jsonl }',
      `  - { id: push, type: ntfy, direction: outbound, server: "${ntfy.url}", token: "\${env:NTFY_TOKEN}" }`,
      `  - { id: pushover, type: pushover, direction: outbound, token: "\${env:PUSHOVER_TOKEN}", apiUrl: "${po.apiUrl}", retry: 30, expire: 600 }`,
      '',
    ].join('\n'));
    const sourcesFile = join(a.dir, 'event-sources.yaml');
    const secretRef = /secret: (\$\{secret:[^}]+\})/.exec(readFileSync(sourcesFile, 'utf8'))?.[1];
    assert.ok(secretRef !== undefined);
    const ackPort = await freePort();
    appendFileSync(sourcesFile, `  - id: ack-links\n    type: ack\n    port: ${ackPort}\n    secret: ${secretRef}\n`);

    // svc check names a contact that is no topic at its position.
    writeFileSync(join(a.dir, 'oncall.yaml'), aliceOnlyYaml(`oncall-dm: alice, push: alice/phone, pushover: ${ALICE_KEY}`));
    const check = await runSvc(['check'], { env: t.env, cwd: a.dir });
    assert.equal(check.code, 2, check.stdout);
    assert.match(check.stderr, /oncall\.yaml:3:54: people\.0\.contacts\.push: must be an ntfy topic: 1-64 letters, digits, "-" and "_" \(channel push is type: ntfy\)/);

    writeFileSync(join(a.dir, 'oncall.yaml'), aliceOnlyYaml(`oncall-dm: alice, push: ${TOPIC}, pushover: ${ALICE_KEY}`));
    const up = await runSvc(['up', '-d'], { env: t.env, cwd: a.dir });
    assert.equal(up.code, 0, up.stderr);

    const page = async (group: string): Promise<{ pageId: string; receipt: string; actions: Array<{ label: string; url?: string }> }> => {
      const known = new Set(queryStore<{ id: string }>(t.home, 'SELECT id FROM pages').map((r) => r.id));
      const body = alertInGroup(a.fixture, group).replace('c3a1f0e29b7d4e55', group);
      assert.equal((await postWebhook(a.url, body, { 'x-signature': sign(a.secret, body), 'x-alert-fingerprint': group })).status, 202);
      const pageId = await waitFor(`the page of ${group}`, () => queryStore<{ id: string }>(t.home, 'SELECT id FROM pages').map((r) => r.id)
        .find((id) => !known.has(id)));
      const pushed = await waitFor(`ntfy got ${group}`, () => ntfy?.publishes.find((p) => p.status === 200 && p.body.includes(`Page ${pageId} opened`)));
      const sent = await waitFor(`pushover got ${group}`, () => po.messages.find((m) => m.status === 200 && m.form.message?.includes(pageId)));
      assert.equal(pushed.topic, TOPIC);
      assert.equal(pushed.priority, 5);
      assert.equal(pushed.headers.authorization, `Bearer ${NTFY_TOKEN}`);
      assert.deepEqual(pushed.actions.map((x) => [x.action, x.label, x.method, x.clear]), [['http', 'Acknowledge', 'POST', true], ['http', 'Resolve', 'POST', true]]);
      assert.ok(pushed.actions.every((x) => x.url?.startsWith(`http://127.0.0.1:${ackPort}/ack/v2.`)));
      assert.deepEqual([sent.form.user, sent.form.priority, sent.form.retry, sent.form.expire, sent.form.url_title], [ALICE_KEY, '2', '30', '600', 'Acknowledge']);
      return { pageId, receipt: sent.receipt ?? '', actions: pushed.actions };
    };
    const state = (id: string): string | undefined => queryStore<{ state: string }>(t.home, 'SELECT state FROM pages WHERE id = ?', id)[0]?.state;
    const kept = (): string[] => queryStore<{ receipt: string }>(t.home, 'SELECT receipt FROM page_receipts').map((r) => r.receipt);

    // Three pages, then three answers at once: A in Pushover, B with svc ack, C with the ntfy button as the phone POSTs it.
    const pageA = await page('ring-a');
    const pageB = await page('ring-b');
    const pageC = await page('ring-c');
    await waitFor('the receipts kept with the pages', () => [pageA, pageB, pageC].every((p) => kept().includes(p.receipt)));
    po.acknowledge(pageA.receipt, 'alice-iphone');
    const ack = await runSvc(['ack', pageB.pageId, '--as', 'alice'], { env: t.env, cwd: a.dir });
    assert.equal(ack.code, 0, ack.stderr);
    const button = await fetch(pageC.actions[0]?.url ?? '', { method: 'POST' });
    assert.equal(button.status, 200);
    assert.equal(state(pageC.pageId), 'acknowledged');

    await waitFor('page A acknowledged through Pushover', () => state(pageA.pageId) === 'acknowledged');
    await waitFor('receipts B and C cancelled at Pushover', () => [pageB, pageC].every((p) => po.cancels.some((c) => c.receipt === p.receipt && c.status === 200)));
    await waitFor('every receipt let go', () => kept().length === 0);
    const ackRow = auditRows(t.home).find((r) => r.kind === 'page.acknowledged' && r.data.pageId === pageA.pageId);
    assert.equal(ackRow?.actor, `pushover:${pageA.receipt}`);
    assert.deepEqual([ackRow?.data.by, ackRow?.data.via, ackRow?.data.device], ['alice', 'pushover', 'alice-iphone']);
    const linkRow = auditRows(t.home).find((r) => r.kind === 'page.acknowledged' && r.data.pageId === pageC.pageId);
    assert.deepEqual([linkRow?.data.by, linkRow?.data.via], ['alice', 'link']);

    assert.deepEqual(po.cancels.map((c) => c.receipt).sort(), [pageB.receipt, pageC.receipt].sort(), 'each cancelled once; A needed none');
    for (const r of [pageA.receipt, pageB.receipt, pageC.receipt]) {
      const times = po.polls.filter((p) => p.receipt === r).map((p) => p.atMs);
      assert.ok(times.slice(1).every((at, i) => at - (times[i] as number) >= 5_000), `receipt ${r} asked at most every 5 s`);
    }

    const down = await runSvc(['down'], { env: t.env, cwd: a.dir });
    assert.equal(down.code, 0, down.stderr);
    dir = '';
    const written = allText(t.home) + allText(a.dir);
    for (const secret of [NTFY_TOKEN, PUSHOVER_TOKEN]) assert.ok(!written.includes(secret), 'a token is in no file svc wrote');
  });
});
