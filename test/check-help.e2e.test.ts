/**
 * `svc check --help` names the keys `svc check --json` prints (issue 26.8: the help listed three of
 * five): the keys are read from the help text and compared with a real run's output.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runSvc, scaffoldAgent, tempEnv } from './support/svc.js';

describe('svc check --help', () => {
  const t = tempEnv();
  after(() => t.cleanup());

  it('lists exactly the keys of svc check --json', async () => {
    const { dir } = await scaffoldAgent(t, 'agent', 'rules');
    const help = await runSvc(['check', '--help'], { env: t.env, cwd: dir });
    assert.equal(help.code, 0, help.stderr);
    const flat = help.stdout.replace(/\s+/g, ' ');
    const listed = /--json print \{([^}]*)\} as JSON/.exec(flat)?.[1];
    assert.ok(listed !== undefined, flat);
    const keys = [...listed.matchAll(/"([a-z]+)"/gi)].map((m) => m[1]);
    const run = await runSvc(['check', '--json'], { env: t.env, cwd: dir });
    assert.equal(run.code, 0, run.stderr);
    const report = JSON.parse(run.stdout) as Record<string, unknown>;
    assert.deepEqual(keys.sort(), Object.keys(report).sort());
    // "running" appears only while this home's daemon runs; the help says so.
    assert.match(flat, /"running" \{pid, heldPorts\} while this home's daemon runs/);
  });
});
