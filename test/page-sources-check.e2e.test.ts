/**
 * An ack source (§18.6) or a Slack source (§18.2) on an agent without an oncall.yaml would listen for
 * pages that never exist: `svc check` and `svc up` refuse it (exit 2), naming the source and the file,
 * exactly as a person reads it; with an oncall.yaml beside it the same configuration checks ok.
 */
import assert from 'node:assert/strict';
import { appendFileSync, copyFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { freePort } from './support/http.js';
import { runSvc, scaffoldAgent, tempEnv } from './support/svc.js';

describe('page sources without pages', () => {
  const t = tempEnv();
  after(() => t.cleanup());

  it('svc check and svc up refuse an ack and a slack source when the agent has no oncall.yaml', async () => {
    const a = await scaffoldAgent(t, 'no-pages');
    const sourcesFile = join(a.dir, 'event-sources.yaml');
    const secretRef = /secret: (\$\{secret:[^}]+\})/.exec(readFileSync(sourcesFile, 'utf8'))?.[1];
    assert.ok(secretRef !== undefined);
    appendFileSync(sourcesFile, `  - id: ack-links\n    type: ack\n    port: ${await freePort()}\n    secret: ${secretRef}\n`
      + `  - id: slack-actions\n    type: slack\n    port: ${await freePort()}\n    signingSecret: ${secretRef}\n`);
    const problem = (id: string, type: string): string => `${sourcesFile}: source ${id} (type: ${type}) answers pages, but agent `
      + `oncall-escalator has no oncall.yaml (${join(a.dir, 'oncall.yaml')}): add one, or remove the source`;
    const expected = `svc: configuration error:\n${problem('ack-links', 'ack')}\n${problem('slack-actions', 'slack')}\n`;
    const check = await runSvc(['check'], { env: t.env, cwd: a.dir });
    assert.equal(check.code, 2, check.stderr);
    assert.equal(check.stderr, expected);
    const up = await runSvc(['up', '-d'], { env: t.env, cwd: a.dir });
    assert.equal(up.code, 2, up.stderr);
    assert.equal(up.stderr, expected);
    assert.ok(!existsSync(join(t.home, 'up.pid')), 'nothing started');

    copyFileSync(join(a.dir, 'oncall.example.yaml'), join(a.dir, 'oncall.yaml'));
    const ok = await runSvc(['check'], { env: t.env, cwd: a.dir });
    assert.equal(ok.code, 0, ok.stderr);
  });
});
