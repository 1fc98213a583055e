/**
 * Config reload end to end (issue 26 §3), through the built CLI against a real daemon while a loop
 * posts signed alerts: `svc reload` with a new channel (the next alerts reach it), with an invalid
 * channels.yaml (refused naming file:line:col, the old configuration keeps serving), with a changed
 * ingest port (refused, naming the key that needs a restart), and SIGHUP with another new channel.
 * At the end every alert that was answered 202 reached the first channel exactly once (its receiver
 * counts Idempotency-Keys), and the audit chain holds config.reloaded with each changed file's sha256.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort, postAlert } from './support/http.js';
import type { Daemon } from './support/daemon.js';
import { startDaemon } from './support/daemon.js';
import { oncallYaml } from './support/oncall-yaml.js';
import { auditRows, queryStore, readJsonLines } from './support/store.js';
import type { ScaffoldedAgent } from './support/svc.js';
import { appendAgentYaml, lineOf, runSvc, scaffoldAgent, tempEnv } from './support/svc.js';
import { waitFor } from './support/wait.js';

/** The files a process holds open (a descriptor closed meanwhile is skipped). */
const openFiles = (pid: number): string[] => readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
  try {
    return [readlinkSync(`/proc/${pid}/fd/${fd}`)];
  } catch {
    return [];
  }
});

const sha = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

/** A webhook channel's receiver: every Idempotency-Key (deliveryId) it was handed, in order. */
function startReceiver(): Promise<{ port: number; keys: string[]; close(): Promise<void> }> {
  const keys: string[] = [];
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      keys.push(String(req.headers['idempotency-key']));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({
    port: (server.address() as { port: number }).port, keys,
    close: () => new Promise<void>((done) => { server.closeAllConnections(); server.close(() => done()); }) })));
}

const hook = (id: string, port: number): string => `  - id: ${id}
    type: webhook
    direction: outbound
    url: http://127.0.0.1:${port}/hook
`;

describe('config reload while alerts flow', () => {
  const t = tempEnv();
  let agent: ScaffoldedAgent;
  let env: NodeJS.ProcessEnv;
  let a: Awaited<ReturnType<typeof startReceiver>>;
  let b: Awaited<ReturnType<typeof startReceiver>>;
  let c: Awaited<ReturnType<typeof startReceiver>>;
  let baseChannels = '';
  const channelsFile = (): string => join(agent.dir, 'channels.yaml');
  const svc = (args: string[]) => runSvc(args, { env, cwd: agent.dir });
  /** Event ids answered 202, and any other answer (there must be none). */
  const accepted: string[] = [];
  const refused: string[] = [];
  let flowing = true;
  let flow: Promise<void> = Promise.resolve();

  before(async () => {
    agent = await scaffoldAgent(t);
    [a, b, c] = await Promise.all([startReceiver(), startReceiver(), startReceiver()]);
    appendAgentYaml(agent.dir, `controlPlane:\n  bind: 127.0.0.1\n  port: ${agent.cpPort}`);
    baseChannels = `${readFileSync(channelsFile(), 'utf8')}${hook('hook-a', a.port)}`;
    writeFileSync(channelsFile(), baseChannels);
    env = { ...t.env, SVC_METRICS_PORT: '' };
    const up = await svc(['up', '-d']);
    assert.equal(up.code, 0, up.stderr + up.stdout);
    flow = (async () => {
      for (let i = 0; flowing; i += 1) {
        const res = await postAlert(agent.url, agent.secret, agent.fixture, `reload-${i}`);
        if (res.status === 202) accepted.push(String(res.json?.eventId));
        else refused.push(`${res.status}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
  });
  after(async () => {
    flowing = false;
    await flow;
    await svc(['down']);
    await Promise.all([a.close(), b.close(), c.close()]);
    t.cleanup();
  });

  /** Waits for an alert accepted from now on, and returns its id. */
  const nextAccepted = async (): Promise<string> => {
    const seen = accepted.length;
    return waitFor('an alert accepted after this point', () => accepted[seen]);
  };

  it('svc reload with a new channel: applied, audited with the file\'s sha256, and the next alerts reach the new channel', async () => {
    writeFileSync(channelsFile(), `${baseChannels}${hook('hook-b', b.port)}`);
    const r = await svc(['reload']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `svc reload: applied; 1 file(s) changed\n  ${channelsFile()}\n  agent oncall-escalator: channels added: hook-b\n`);
    const id = await nextAccepted();
    await waitFor('the new channel receiving an alert accepted after the reload', () => b.keys.includes(`${id}.hook-b`));
    const row = auditRows(t.home).find((x) => x.kind === 'config.reloaded');
    assert.ok(row, 'config.reloaded audited');
    assert.equal(row.actor, 'admin-socket');
    assert.deepEqual(row.data, { files: [{ path: channelsFile(), sha256: sha(channelsFile()) }],
      agents: [{ agentId: 'oncall-escalator', channelsAdded: ['hook-b'], channelsRemoved: [], channelsChanged: [], keys: [] }] });
  });

  it('svc reload with an invalid channels.yaml: exit 1 naming file:line:col, audited, and the running configuration keeps serving', async () => {
    const valid = readFileSync(channelsFile(), 'utf8');
    writeFileSync(channelsFile(), valid.replace('  - id: hook-b\n', '  - id: hook-b\n    colour: blue\n'));
    const r = await svc(['reload']);
    const line = lineOf(channelsFile(), 'colour: blue');
    writeFileSync(channelsFile(), valid);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.ok(r.stderr.startsWith('svc reload: refused; the running configuration stays.\n'), r.stderr);
    assert.ok(r.stderr.includes(`${channelsFile()}:${line}:5: channels.2.colour: unknown key "colour"`), r.stderr);
    const row = auditRows(t.home).find((x) => x.kind === 'config.reload-refused');
    assert.ok(row, 'config.reload-refused audited');
    assert.equal(row.data.reason, 'invalid');
    const id = await nextAccepted();
    await waitFor('both channels of the running configuration delivering after the refusal',
      () => a.keys.includes(`${id}.hook-a`) && b.keys.includes(`${id}.hook-b`));
  });

  it('svc reload that moves the ingest port: refused, naming the key that needs a restart; ingest stays where it was', async () => {
    const file = join(agent.dir, 'event-sources.yaml');
    const valid = readFileSync(file, 'utf8');
    const port = Number(new URL(agent.url).port);
    writeFileSync(file, valid.replace(`port: ${port}`, `port: ${await freePort()}`));
    const r = await svc(['reload']);
    writeFileSync(file, valid);
    assert.equal(r.code, 1);
    assert.equal(r.stderr, 'svc reload: refused; the running configuration stays.\n'
      + 'this change needs a restart (svc down, then svc up): oncall-escalator: event-sources.yaml sources.alertmanager.port\n');
    const rows = auditRows(t.home).filter((x) => x.kind === 'config.reload-refused');
    assert.equal(rows[rows.length - 1]?.data.reason, 'needs-restart');
    await nextAccepted();
  });

  it('SIGHUP reloads too (and still reopens the logs): a channel added for it receives the next alerts', async () => {
    writeFileSync(channelsFile(), `${readFileSync(channelsFile(), 'utf8')}${hook('hook-c', c.port)}`);
    const pid = Number(readFileSync(join(t.home, 'up.pid'), 'utf8'));
    process.kill(pid, 'SIGHUP');
    const row = await waitFor('config.reloaded by SIGHUP', () => auditRows(t.home).find((x) => x.kind === 'config.reloaded' && x.actor === 'signal:SIGHUP'));
    assert.deepEqual(row.data.files, [{ path: channelsFile(), sha256: sha(channelsFile()) }]);
    assert.ok(readFileSync(join(t.home, 'up.log'), 'utf8').includes('reopened 1 agent log(s)'));
    const id = await nextAccepted();
    await waitFor('the channel added by SIGHUP receiving an alert', () => c.keys.includes(`${id}.hook-c`));
  });

  it('svc reload that moves the file channel: the next alerts go to the new file, and the old one is closed once its events are done', async () => {
    const pid = Number(readFileSync(join(t.home, 'up.pid'), 'utf8'));
    const first = join(agent.dir, 'out', 'oncall-dm.jsonl');
    const moved = join(agent.dir, 'out', 'moved.jsonl');
    await waitFor('the daemon holding the first file open', () => openFiles(pid).includes(first));
    const valid = readFileSync(channelsFile(), 'utf8');
    assert.ok(valid.includes('path: ./out/oncall-dm.jsonl'));
    writeFileSync(channelsFile(), valid.replace('path: ./out/oncall-dm.jsonl', 'path: ./out/moved.jsonl'));
    const r = await svc(['reload']);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.includes('channels changed: oncall-dm'), r.stdout);
    const id = await nextAccepted();
    await waitFor('an alert accepted after the reload in the moved file', () => existsSync(moved) && readFileSync(moved, 'utf8').includes(id));
    // Before, a retired channel stayed open until shutdown: every reload that changed one kept a file or a socket.
    await waitFor('the first file closed', () => !openFiles(pid).includes(first));
    assert.ok(openFiles(pid).includes(moved), 'the moved file is the one held open');
    await waitFor('the retirement reported', () => readFileSync(join(t.home, 'up.log'), 'utf8').includes('closed 1 channel(s) the reload retired'));
  });

  it('nothing lost: every alert answered 202 reached the first channel exactly once', async () => {
    flowing = false;
    await flow;
    assert.deepEqual(refused, [], 'every alert was answered 202');
    assert.ok(accepted.length > 20, `only ${accepted.length} alerts flowed`);
    const expected = accepted.map((id) => `${id}.hook-a`).sort();
    await waitFor('every accepted alert at the first channel', () => expected.every((k) => a.keys.includes(k)), 60_000);
    assert.deepEqual([...a.keys].sort(), expected);
  });
});

describe('svc reload and a person or channel the store still names (issue 33.4)', () => {
  let d: Daemon | undefined;
  after(async () => { await d?.stop(); });
  const oncallDm = '  - { id: oncall-dm, type: file, direction: outbound, path: ./out/oncall-dm.jsonl }\n';
  const room = '  - { id: room, type: file, direction: outbound, path: ./out/room.jsonl }\n';

  it('dropping bob and the channel room while a page can reach them and an override names bob: refused naming all; restarted anyway, '
    + 'each is page.nobody-on-call and the override never wins', async () => {
    d = await startDaemon({ channelsYaml: `channels:\n${oncallDm}${room}`,
      files: { 'oncall.yaml': oncallYaml('1h', '1h').replace('{ notify: [person:bob], after: 1h }', '{ notify: [person:bob, channel:room], after: 1h }') } });
    const a = d;
    const svc = (...args: string[]) => runSvc(args, { env: a.env, cwd: a.dir });
    assert.equal((await postAlert(a.url, a.secret, a.fixture, 'strand-1')).status, 202);
    const page = await waitFor('the page opened', () => queryStore<{ id: string }>(a.home, 'SELECT id FROM pages')[0], 60_000);
    const now = Date.now();
    const added = await svc('oncall', 'override', 'add', '--schedule', 'primary', '--person', 'bob', '--from', new Date(now - 60_000).toISOString(),
      '--to', new Date(now + 3_600_000).toISOString(), '--json');
    assert.equal(added.code, 0, added.stderr);
    const override = (JSON.parse(added.stdout) as { id: string }).id;

    // The new files have no bob and no room: step 2 of the open page (person:bob, channel:room) and the override would reach nobody.
    const file = join(a.dir, 'oncall.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('  - { id: bob, contacts: { oncall-dm: bob } }\n', '')
      .replace('{ notify: [person:bob, channel:room], after: 1h }', '{ notify: [person:alice], after: 1h }'));
    writeFileSync(join(a.dir, 'channels.yaml'), `channels:\n${oncallDm}`);
    const { title } = await (await fetch(`${a.cp}/pages/${page.id}`)).json() as { title: string };
    const refused = await svc('reload');
    assert.equal(refused.code, 1);
    assert.equal(refused.stderr, 'svc reload: refused; the running configuration stays.\n'
      + 'the new configuration drops people, schedules or channels the store still names:\n'
      + `  agent oncall-escalator: open page ${page.id} ("${title.slice(0, 60)}", policy default) notifies person:bob, which the new oncall.yaml does not have, `
      + 'and channel:room, which the new channels.yaml does not have\n'
      + `  agent oncall-escalator: override ${override} puts bob on call for primary until ${new Date(now + 3_600_000).toISOString()}, `
      + 'and the new oncall.yaml has no person bob\n'
      + 'resolve those pages or remove those overrides (svc oncall override rm ID) first, or keep the person, schedule or channel\n');
    assert.deepEqual(auditRows(a.home).filter((r) => r.kind === 'config.reload-refused').map((r) => r.data.reason), ['strands-state']);
    assert.match((await svc('oncall')).stdout, /^primary\s+bob\s+override\s/m, 'still bob: the running configuration stays');

    // A restart does not ask: what the store names and the file lacks reaches nobody, loudly.
    assert.equal((await svc('down')).code, 0);
    const up = await svc('up', '-d');
    assert.equal(up.code, 0, up.stderr);
    assert.match((await svc('oncall')).stdout, /^primary\s+alice\s+rotation\s/m, 'an override for a person the file lacks never wins');
    const oncall = await (await fetch(`${a.cp}/oncall`)).json() as { schedules: Array<{ onCall: Array<{ person: string; source: string }> }> };
    assert.deepEqual(oncall.schedules[0]?.onCall.map((o) => [o.person, o.source]), [['alice', 'rotation']]);
    const escalated = await svc('escalate', page.id);
    assert.equal(escalated.code, 0, escalated.stderr);
    const nobody = await waitFor('page.nobody-on-call for bob and room', () => {
      const rows = auditRows(a.home).filter((r) => r.kind === 'page.nobody-on-call');
      return rows.length >= 2 ? rows : undefined;
    }, 30_000);
    assert.deepEqual(nobody.map((r) => r.data), [{ pageId: page.id, person: 'bob', missing: true, step: 2, loop: 0 },
      { pageId: page.id, channel: 'room', missing: true, step: 2, loop: 0 }]);
    const warned = await waitFor('a warning in the agent log for each', () => {
      const lines = readJsonLines(a.logFile).filter((l) => l.event === 'page.nobody-on-call');
      return lines.length >= 2 ? lines : undefined;
    }, 30_000);
    assert.deepEqual(warned.map((l) => [l.level, l.person ?? l.channel]), [['warn', 'bob'], ['warn', 'room']]);
    assert.ok(!auditRows(a.home).some((r) => r.kind === 'message.failed'), 'no send to the dropped channel was even tried');
  });
});

