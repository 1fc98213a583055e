/**
 * The first hour (contract §25.2, §25.3): `npm run demo`'s script shows the pager end to end as a
 * newcomer reads it — page, escalation, an ack through the link, Alertmanager's resolve to everyone,
 * `svc explain`, the verified chain; `svc ps` lists every listener the daemon has (ingest, control
 * plane, ack, Slack) at 80 columns and in /status; an ack source's `publicUrl` changes on `svc reload`,
 * and the links of later messages start with it while the listener keeps serving them.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runCli } from '../src/cli/program.js';
import type { StatusSnapshot } from '../src/control-plane/routes/status-route.js';
import { cliHarness } from './support/cli.js';
import type { Daemon } from './support/daemon.js';
import { startDaemon } from './support/daemon.js';
import { freePort, postAlert } from './support/http.js';
import { alertInGroup, oncallYaml } from './support/oncall-yaml.js';
import { auditRows, readJsonLines } from './support/store.js';
import { runSvc } from './support/svc.js';
import { waitFor } from './support/wait.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

describe('npm run demo (scripts/demo.sh, on the built CLI)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-demo-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('tells the pager\'s story: page, escalation, ack by link, resolve to everyone, explain, the chain verified', async () => {
    const [port, controlPort, ackPort] = [await freePort(), await freePort(), await freePort()];
    const env = { PATH: process.env.PATH, HOME: dir, NO_COLOR: '1', SVC_DEMO_DIR: join(dir, 'demo'), SVC_DEMO_PORT: String(port),
      SVC_DEMO_CONTROL_PORT: String(controlPort), SVC_DEMO_ACK_PORT: String(ackPort) };
    const { code, out } = await new Promise<{ code: number | null; out: string }>((resolve, reject) => {
      const child = spawn('bash', [join(ROOT, 'scripts', 'demo.sh')], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let text = '';
      child.stdout.on('data', (d: Buffer) => { text += d.toString(); });
      child.stderr.on('data', (d: Buffer) => { text += d.toString(); });
      const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`the demo ran past 120 s:\n${text}`)); }, 120_000);
      child.on('close', (c) => { clearTimeout(timer); resolve({ code: c, out: text }); });
    });
    assert.equal(code, 0, out);
    const pageId = /Page (p[0-9a-z]{12}) opened\./.exec(out)?.[1];
    assert.ok(pageId, out);
    // The story, in the order a reader meets it.
    const story = [
      `$ svc init --template alert-escalation --provider rules --port ${port} --control-port ${controlPort} pager`,
      `ack            oncall-escalator  ack-links     127.0.0.1:${ackPort}  http://127.0.0.1:${ackPort}/ack`,
      'HTTP 202 {"status":"accepted"',
      // What is wrong first (§24.1), then what happened and who is paged next.
      `-> to alice:\n   [P1] HighErrorRate on checkout-api-7f9c:8080\n   checkout-api 5xx ratio above 5% for 10 minutes\n`,
      `   Page ${pageId} opened.\n   Paged: step 1 of 2`,
      `-> to bob:\n   [P1] HighErrorRate on checkout-api-7f9c:8080\n   checkout-api 5xx ratio above 5% for 10 minutes\n`,
      `   Page ${pageId} escalated: nobody acknowledged the previous step.\n   Paged: step 2 of 2`,
      `HTTP 200: Acknowledge page ${pageId}? HighErrorRate on checkout-api-7f9c:8080 As bob. Acknowledge`,
      `HTTP 200: Acknowledged Page ${pageId} is acknowledged by bob; its escalation has stopped.`,
      'Everyone paged hears of the ack:\n-> to ',
      `Page ${pageId} acknowledged by bob.`,
      `-> to alice:\n   RESOLVED [P1] HighErrorRate on checkout-api-7f9c:8080`,
      `-> to bob:\n   RESOLVED [P1] HighErrorRate on checkout-api-7f9c:8080`,
      'acknowledged by bob via link',
      'verified: every row hashes and links',
      'chain ok: ',
      'svc down: stopped',
    ];
    let at = 0;
    for (const part of story) {
      const found = out.indexOf(part, at);
      assert.ok(found >= 0, `${JSON.stringify(part)} after offset ${at} of:\n${out}`);
      at = found + part.length;
    }
    // What the people got: alice at step 1, bob at step 2 and alice told of it (§21.1), the ack told to both (§24.1), then the
    // resolution to both — no later step.
    const lines = readJsonLines(join(dir, 'demo', 'pager', 'out', 'oncall-dm.jsonl'));
    assert.deepEqual(lines.map((l) => [l.deliveryId, l.pageKind]), [[`${pageId}.1.alice.oncall-dm`, 'escalation'], [`${pageId}.2.bob.oncall-dm`, 'escalation'],
      [`${pageId}.3.alice.oncall-dm`, 'escalated-past'], [`${pageId}.4.alice.oncall-dm`, 'acknowledged'], [`${pageId}.4.bob.oncall-dm`, 'acknowledged'],
      [`${pageId}.5.alice.oncall-dm`, 'resolved'], [`${pageId}.5.bob.oncall-dm`, 'resolved']]);
    assert.match(readFileSync(join(dir, 'demo', 'pager', 'alertmanager.yml'), 'utf8'), new RegExp(`url: http://127\\.0\\.0\\.1:${port}/webhooks/alertmanager`));
  });
});

describe('svc ps lists every listener; an ack source\'s publicUrl changes on svc reload', { timeout: 300_000 }, () => {
  let d: Daemon;
  let ackPort = 0;
  let slackPort = 0;
  const NEW_URL = 'https://svc.example.com/pager/ack';
  before(async () => {
    [ackPort, slackPort] = [await freePort(), await freePort()];
    d = await startDaemon({
      files: { 'oncall.yaml': oncallYaml('1h', '1h') },
      secrets: { 'ack/link-key': 'a'.repeat(64), 'slack/signing-secret': 's'.repeat(32) },
      sourcesYaml: [
        `  - { id: ack-links, type: ack, port: ${ackPort}, secret: "\${secret:ack/link-key}" }`,
        `  - { id: slack-actions, type: slack, port: ${slackPort}, signingSecret: "\${secret:slack/signing-secret}" }`,
      ].join('\n'),
    });
  });
  after(async () => {
    await d?.stop();
  });

  /** `svc ps` in-process, as on a terminal `columns` wide. */
  const ps = async (columns: number | null, ...args: string[]): Promise<string> => {
    const h = cliHarness(d.env, d.dir);
    h.ctx.columns = () => columns;
    assert.equal(await runCli(['ps', ...args], h.ctx), 0, h.err());
    return h.out();
  };

  it('lists ingest, control plane, ack and Slack listeners, with whole URLs at 80 columns', async () => {
    const ingestPort = Number(new URL(d.url).port);
    const status = JSON.parse(await ps(null, '--json')) as StatusSnapshot;
    assert.deepEqual(status.listeners, [
      { kind: 'ingest', agent: 'oncall-escalator', source: 'alertmanager', bind: '127.0.0.1', port: ingestPort, url: d.url },
      { kind: 'control-plane', agent: null, source: null, bind: '127.0.0.1', port: d.cpPort, url: d.cp },
      { kind: 'ack', agent: 'oncall-escalator', source: 'ack-links', bind: '127.0.0.1', port: ackPort, url: `http://127.0.0.1:${ackPort}/ack` },
      { kind: 'slack', agent: 'oncall-escalator', source: 'slack-actions', bind: '127.0.0.1', port: slackPort,
        url: `http://127.0.0.1:${slackPort}/webhooks/slack-actions` },
    ]);
    const narrow = (await ps(80)).split('\n');
    assert.deepEqual(narrow.slice(0, 3), [`svc pid ${d.pid()}, up ${/ up (\d+) s /.exec(narrow[0] ?? '')?.[1] ?? '?'} s since ${status.startedAt}; store sqlite`,
      `control plane 127.0.0.1:${d.cpPort}, no auth`, '']);
    const table = narrow.slice(3, 8);
    assert.deepEqual(table.map((l) => l.split(/ {2,}/)), [
      ['LISTENER', 'SOURCE', 'URL'],
      ['ingest', 'alertmanager', d.url],
      ['control-plane', '-', d.cp],
      ['ack', 'ack-links', `http://127.0.0.1:${ackPort}/ack`],
      ['slack', 'slack-actions', `http://127.0.0.1:${slackPort}/webhooks/slack-actions`],
    ]);
    for (const line of narrow) assert.ok(line.length <= 80, `${line.length} columns: ${line}`);
    const wide = (await ps(160)).split('\n');
    assert.deepEqual(wide[3]?.split(/ {2,}/), ['LISTENER', 'AGENT', 'SOURCE', 'ADDRESS', 'URL']);
    assert.deepEqual(wide[6]?.split(/ {2,}/), ['ack', 'oncall-escalator', 'ack-links', `127.0.0.1:${ackPort}`, `http://127.0.0.1:${ackPort}/ack`]);
  });

  it('a new publicUrl applies on svc reload: later links start with it, the listener serves them, audited as config.reloaded', async () => {
    const out = join(d.dir, 'out', 'oncall-dm.jsonl');
    /** A new page (its own Alertmanager group): the links of alice's message. */
    const linksTo = async (group: string): Promise<{ ack: string }> => {
      const seen = readJsonLines(out).length;
      assert.equal((await postAlert(d.url, d.secret, alertInGroup(d.fixture, group), group)).status, 202);
      const line = await waitFor(`alice paged for ${group}`, () => readJsonLines(out).slice(seen).find((l) => l.to === 'alice'));
      return line.links as { ack: string };
    };
    const before = await linksTo('BeforeReload');
    assert.ok(before.ack.startsWith(`http://127.0.0.1:${ackPort}/ack/`), before.ack);

    const sources = join(d.dir, 'event-sources.yaml');
    writeFileSync(sources, readFileSync(sources, 'utf8').replace('type: ack,', `type: ack, publicUrl: "${NEW_URL}",`));
    const reload = await runSvc(['reload'], { env: d.env, cwd: d.dir });
    assert.equal(reload.code, 0, reload.stderr + reload.stdout);
    const row = auditRows(d.home).filter((r) => r.kind === 'config.reloaded').at(-1);
    assert.deepEqual((row?.data.agents as Array<{ keys: string[] }>)[0]?.keys, ['event-sources.yaml ack source.publicUrl']);

    const later = await linksTo('AfterReload');
    assert.ok(later.ack.startsWith(`${NEW_URL}/`), later.ack);
    // The proxy in front would forward <publicUrl>/<token> to the listener's /ack/<token>: the listener takes it.
    const token = later.ack.slice(NEW_URL.length + 1);
    const acked = await fetch(`http://127.0.0.1:${ackPort}/ack/${token}`, { method: 'POST', body: '',
      headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    assert.equal(acked.status, 200, await acked.text());
    const status = JSON.parse(await ps(null, '--json')) as StatusSnapshot;
    assert.equal(status.listeners?.find((l) => l.kind === 'ack')?.url, NEW_URL);
  });
});
