/**
 * oncall.yaml through the built CLI (contract §17.1, §17.12): the scaffold's example validates once
 * renamed, and a bad file stops `svc check` and `svc up` with exit 2 naming file, line, column and key.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './support/http.js';
import { editFile, lineOf, runSvc, setIngestPort, tempEnv } from './support/svc.js';

describe('oncall.yaml in svc check and svc up', () => {
  const t = tempEnv();
  const base = join(t.work, 'base');
  let n = 0;
  /** A copy of the scaffold with oncall.example.yaml renamed to oncall.yaml. */
  const withOncall = (): { dir: string; file: string } => {
    const dir = join(t.work, `v${n++}`);
    cpSync(base, dir, { recursive: true });
    renameSync(join(dir, 'oncall.example.yaml'), join(dir, 'oncall.yaml'));
    return { dir, file: join(dir, 'oncall.yaml') };
  };

  before(async () => {
    mkdirSync(t.work, { recursive: true });
    const r = await runSvc(['init', '--template', 'alert-escalation', '--provider', 'rules', base], { env: t.env, cwd: t.work });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^ {2}oncall\.example\.yaml$/m);
    setIngestPort(base, await freePort());
  });
  after(() => t.cleanup());

  it('without oncall.yaml the agent has none; the example renamed validates (coverage included)', async () => {
    const plain = await runSvc(['check', '--json'], { env: t.env, cwd: base });
    assert.equal(plain.code, 0, plain.stderr);
    assert.equal((JSON.parse(plain.stdout) as { agents: Array<{ oncall: unknown }> }).agents[0]?.oncall, null);

    const { dir } = withOncall();
    const text = await runSvc(['check'], { env: t.env, cwd: dir });
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /agent oncall-escalator: 1 source\(s\), 1 channel\(s\), 0 MCP server\(s\); on call: 1 schedule\(s\), 1 policy\n/);
    const json = await runSvc(['check', '--json'], { env: t.env, cwd: dir });
    assert.deepEqual((JSON.parse(json.stdout) as { agents: Array<{ oncall: unknown }> }).agents[0]?.oncall,
      { people: 2, schedules: ['primary'], policies: ['default'], heartbeats: ['watchdog'] });
  });

  it('the example\'s phone block (ntfy push at once, a Twilio call after 5m) validates once uncommented with its channels and source (§21)', async () => {
    const { dir, file } = withOncall();
    /** Uncomments the block of FILE that starts at the line holding MARK and runs to the end of the comment block. */
    const uncomment = (path: string, mark: string, strip: RegExp): void => {
      const lines = readFileSync(path, 'utf8').split('\n');
      let at = lines.findIndex((l) => l.includes(mark));
      assert.ok(at >= 0, `${mark} in ${path}`);
      for (; at < lines.length && strip.test(lines[at] ?? ''); at += 1) lines[at] = (lines[at] ?? '').replace(strip, '$1');
      writeFileSync(path, lines.join('\n'));
    };
    uncomment(file, '# push: alice-7f3k2q', /^(\s*)# /);
    uncomment(join(dir, 'channels.yaml'), '- id: push', /^#( )/);
    uncomment(join(dir, 'event-sources.yaml'), '- id: twilio-phone', /^#( )/);
    const oncall = readFileSync(file, 'utf8');
    assert.match(oncall, /\n {6}push: alice-7f3k2q .*\n {6}phone: "\+4915112345678" .*\n {4}notify: .*\n {6}- \{ after: 0m, via: \[oncall-dm, push\] \}.*\n {6}- \{ after: 5m, via: \[phone\] \}/);
    const secret = await runSvc(['secret', 'set', 'twilio/auth-token'], { env: t.env, cwd: dir, input: `${'ab12'.repeat(8)}\n` });
    assert.equal(secret.code, 0, secret.stderr);
    const r = await runSvc(['check'], { env: t.env, cwd: dir });
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.match(r.stdout, /agent oncall-escalator: 2 source\(s\), 3 channel\(s\), 0 MCP server\(s\); on call: 1 schedule\(s\), 1 policy\n/);
  });

  it('an unknown person: svc check exits 2 naming file, line, column and key path', async () => {
    const { dir, file } = withOncall();
    editFile(file, 'people: [alice, bob]', 'people: [alice, carl]');
    const r = await runSvc(['check'], { env: t.env, cwd: dir });
    assert.equal(r.code, 2, r.stdout);
    const line = lineOf(file, 'people: [alice, carl]');
    assert.ok(r.stderr.includes(`${file}:${line}:25: schedules.0.rotations.0.people.1: unknown person "carl" (not in people)\n`), r.stderr);
    const json = await runSvc(['check', '--json'], { env: t.env, cwd: dir });
    assert.equal(json.code, 2);
    assert.deepEqual(JSON.parse(json.stdout), { ok: false, agents: [],
      problems: [`${file}:${line}:25: schedules.0.rotations.0.people.1: unknown person "carl" (not in people)`] });
  });

  it('a gap in the next 14 days: exit 2 naming the schedule and the first uncovered instant; allowGaps accepts it', async () => {
    const { dir, file } = withOncall();
    editFile(file, '        # only:', '        only:');
    editFile(file, '        #   - { days', '          - { days');
    const r = await runSvc(['check'], { env: t.env, cwd: dir });
    assert.equal(r.code, 2, r.stdout);
    assert.match(r.stderr, /oncall\.yaml:\d+:5: schedules\.0: schedule "primary" has nobody on call from \d{4}-\d\d-\d\d \d\d:\d\d Europe\/Berlin \(\d{4}-[^)]+Z\) \(the next 14 days are checked\): cover it with a rotation or a fallback, or set allowGaps: true\n/);
    editFile(file, '    # fallback: alice', '    fallback: alice');
    const fixed = await runSvc(['check'], { env: t.env, cwd: dir });
    assert.equal(fixed.code, 0, fixed.stderr);
  });

  it('svc up -d refuses a bad oncall.yaml before anything starts', async () => {
    const { dir, file } = withOncall();
    editFile(file, 'every: 1w', 'every: 30m');
    const r = await runSvc(['up', '-d'], { env: t.env, cwd: dir });
    assert.equal(r.code, 2, r.stdout);
    assert.ok(r.stderr.includes(`${file}:${lineOf(file, 'every: 30m')}:16: schedules.0.rotations.0.every: must be between 1h..4w\n`), r.stderr);
    assert.ok(!existsSync(join(t.home, 'up.pid')));
  });
});
