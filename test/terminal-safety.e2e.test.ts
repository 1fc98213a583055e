/**
 * Terminal control sequences in what svc prints (issue 19): an alert whose labels and annotations
 * carry an OSC 52 clipboard write (`ESC ] 52 ; c ; … BEL`), a line erase and a right-to-left override
 * goes through a real daemon, and a host (a stand-in control plane) serves rows and log records
 * carrying the same; `svc events`, `svc logs`, `svc fleet events` and `svc fleet logs` (the built CLI)
 * print them with every control shown as an escape, never a raw ESC, BEL, C1 or bidi character, each
 * record on its own line, and `--json` stays JSON with the exact values.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDaemon } from './support/daemon.js';
import type { Daemon } from './support/daemon.js';
import { startFakeControlPlane } from './support/fake-control-plane.js';
import type { FakeControlPlane } from './support/fake-control-plane.js';
import { postAlert } from './support/http.js';
import { runSvc } from './support/svc.js';
import type { RunResult } from './support/svc.js';
import { waitFor } from './support/wait.js';

const HOSTILE = 'Evil\u001b]52;c;cm0gLXJmIH4=\u0007\u001b[2K\u202eetaR\u2066';
/** What must never reach a terminal raw: C0 controls but the line break, DEL, C1, bidi overrides and isolates. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what must not be printed
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('terminal control sequences from alerts and hosts are shown, never obeyed (built CLI)', () => {
  let d: Daemon;
  let host: FakeControlPlane;
  const svc = (...args: string[]): Promise<RunResult> => runSvc(args, { env: d.env, cwd: d.dir });

  before(async () => {
    d = await startDaemon();
    const body = d.fixture.replaceAll('HighErrorRate', JSON.stringify(HOSTILE).slice(1, -1))
      .replace('checkout-api 5xx ratio above 5% for 10 minutes', JSON.stringify(`line one\n${HOSTILE}`).slice(1, -1));
    assert.ok(body.includes('\\u001b]52'));
    const res = await postAlert(d.url, d.secret, body, 'hostile-1');
    assert.equal(res.status, 202);
    await waitFor('the hostile alert processed', async () => (await svc('events', '--json')).stdout.includes('"processed"'), 60_000);
    const ts = '2030-01-01T00:00:00.000Z';
    host = await startFakeControlPlane({
      events: [{ ts, id: HOSTILE, agentId: 'agent-1', sourceId: 'am', kind: 'webhook', status: 'processed', fingerprint: `fp\n${HOSTILE}`, payload: {} }],
      logs: [{ ts, level: 'info', agentId: 'agent-1', event: 'dispatch.triaged', summary: `line one\r\n${HOSTILE}` }],
    });
    writeFileSync(join(d.dir, 'fleet.yaml'),
      `hosts:\n  - { name: h1, url: "http://127.0.0.1:${d.cpPort}" }\n  - { name: h2, url: "${host.url}" }\n`);
  });
  after(async () => { await Promise.all([d.stop(), host.close()]); });

  const check = (what: string, r: RunResult): void => {
    assert.equal(r.code, 0, `${what}: ${r.stderr}`);
    const raw = RAW.exec(r.stdout + r.stderr);
    assert.equal(raw, null, `${what} printed U+${raw?.[0]?.charCodeAt(0).toString(16).padStart(4, '0')} raw`);
  };

  it('svc events and svc fleet events: tables and --json', async () => {
    for (const args of [['events'], ['events', '--json'], ['fleet', 'events'], ['fleet', 'events', '--json']]) {
      const r = await svc(...args);
      check(args.join(' '), r);
      if (args.includes('--json')) {
        const items = (JSON.parse(r.stdout) as { items: Array<{ id: string; payload: { commonLabels?: { alertname: string } } }> }).items;
        assert.ok(items.some((i) => i.payload.commonLabels?.alertname === HOSTILE), `${args.join(' ')}: the exact label in JSON`);
        if (args[0] === 'fleet') assert.ok(items.some((i) => i.id === HOSTILE), 'the exact id in JSON');
      }
    }
    const table = await svc('fleet', 'events');
    const row = table.stdout.split('\n').find((l) => l.startsWith('h2'));
    const shown = 'Evil\\u001b]52;c;cm0gLXJmIH4=\\u0007\\u001b[2K\\u202eetaR\\u2066';
    assert.deepEqual(row?.split(/ +/), ['h2', '2030-01-01T00:00:00.000Z', shown, '-', '-', '-', '-', 'agent-1', 'am', 'processed', `fp\\u000a${shown}`]);
  });

  it('svc logs and svc fleet logs: each record on one line, its controls as escapes', async () => {
    const shown = 'summary=line one\\u000d\\u000aEvil\\u001b]52;c;cm0gLXJmIH4=\\u0007\\u001b[2K\\u202eetaR\\u2066';
    const logs = await svc('logs', '--url', host.url);
    check('logs', logs);
    assert.equal(logs.stdout, `2030-01-01T00:00:00.000Z info  agent-1 dispatch.triaged ${shown}\n`);
    const json = await svc('logs', '--json', '--url', host.url);
    check('logs --json', json);
    assert.equal((JSON.parse(json.stdout) as { summary: string }).summary, `line one\r\n${HOSTILE}`);
    const fleet = await svc('fleet', 'logs', '--host', 'h2');
    check('fleet logs', fleet);
    assert.equal(fleet.stdout, `h2  2030-01-01T00:00:00.000Z info  agent-1 dispatch.triaged ${shown}\n`);
    for (const args of [['logs'], ['fleet', 'logs'], ['fleet', 'logs', '--json']]) check(args.join(' '), await svc(...args));
  });
});
