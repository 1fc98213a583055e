/**
 * The listeners of the sources that answer people (an ack-link source here, §18.6) are listeners like
 * the ingest ones: `svc check` looks at their ports, `svc up` names them, a `svc check` beside the
 * running daemon calls them its own, and a port in use fails the start with a sentence that names the
 * source and the port. `svc webhook send` picks the one webhook source beside them.
 */
import assert from 'node:assert/strict';
import { appendFileSync, copyFileSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { freePort } from './support/http.js';
import { runSvc, scaffoldAgent, tempEnv } from './support/svc.js';

describe('ack source ports', () => {
  const t = tempEnv();
  const stops: string[] = [];
  after(async () => {
    for (const dir of stops) await runSvc(['down'], { env: t.env, cwd: dir });
    t.cleanup();
  });

  it('are checked, named at start, held by their own daemon, and a port in use is said plainly', async () => {
    const a = await scaffoldAgent(t, 'answers');
    copyFileSync(join(a.dir, 'oncall.example.yaml'), join(a.dir, 'oncall.yaml')); // an ack source answers pages
    const sourcesFile = join(a.dir, 'event-sources.yaml');
    const secretRef = /secret: (\$\{secret:[^}]+\})/.exec(readFileSync(sourcesFile, 'utf8'))?.[1];
    assert.ok(secretRef !== undefined);
    const ackPort = await freePort();
    appendFileSync(sourcesFile, `  - id: ack-links\n    type: ack\n    port: ${ackPort}\n    secret: ${secretRef}\n`);
    const who = `ack source ack-links of agent oncall-escalator`;

    // Held by something else: svc check names it, and svc up says why it cannot start.
    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(ackPort, '127.0.0.1', () => resolve()));
    try {
      const check = await runSvc(['check', a.dir, '--json'], { env: t.env, cwd: a.dir });
      assert.equal(check.code, 2, check.stdout);
      const report = JSON.parse(check.stdout) as { agents: Array<{ sources: string[] }>; problems: string[] };
      assert.deepEqual(report.problems, [`port ${ackPort} (${who}): in use`]);
      assert.deepEqual(report.agents[0]?.sources, ['alertmanager', 'ack-links']);
      const up = await runSvc(['up', '-d'], { env: t.env, cwd: a.dir });
      assert.equal(up.code, 1, up.stdout);
      assert.match(up.stderr, new RegExp(`svc up: startup failed: ack source ack-links cannot listen on port ${ackPort}: EADDRINUSE`));
      assert.doesNotMatch(up.stderr, /address already in use/);
    } finally {
      await new Promise<void>((resolve) => squatter.close(() => resolve()));
    }

    const free = await runSvc(['check', a.dir], { env: t.env, cwd: a.dir });
    assert.equal(free.code, 0, free.stderr);
    assert.match(free.stdout, /agent oncall-escalator: 2 source\(s\)/);
    assert.match(free.stdout, new RegExp(`ports free: .*127\\.0\\.0\\.1:${ackPort}`));

    const up = await runSvc(['up', '-d'], { env: t.env, cwd: a.dir });
    assert.equal(up.code, 0, up.stderr);
    stops.push(a.dir);
    assert.match(up.stdout, new RegExp(`  ${who}: http://127\\.0\\.0\\.1:${ackPort}\\n`));
    const running = await runSvc(['check', a.dir, '--json'], { env: t.env, cwd: a.dir });
    assert.equal(running.code, 0, running.stdout);
    const held = JSON.parse(running.stdout) as { running?: { heldPorts: string[] }; problems: string[] };
    assert.ok(held.running?.heldPorts.includes(`127.0.0.1:${ackPort}`), JSON.stringify(held));

    // The alert sender's source is the only webhook source: no --source needed beside the ack source.
    const sent = await runSvc(['webhook', 'send', 'fixtures/mock-alert.json'], { env: t.env, cwd: a.dir });
    assert.equal(sent.code, 0, sent.stderr);
    assert.match(sent.stdout, /HTTP 202/);
    const wrong = await runSvc(['webhook', 'send', '--source', 'ack-links', 'fixtures/mock-alert.json'], { env: t.env, cwd: a.dir });
    assert.equal(wrong.code, 2, wrong.stdout);
    assert.match(wrong.stderr, /--source ack-links: an ack source answers people, it takes no alerts; webhook sources: alertmanager/);
  });
});
