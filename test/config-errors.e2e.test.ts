/**
 * Configuration errors stop `svc up` before anything starts: exit 2, file:line:col and the key path.
 * An unresolvable webhook secret never yields an unsigned door.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { freePort } from './support/http.js';
import { editFile, lineOf, runSvc, setIngestPort, tempEnv } from './support/svc.js';

/** 1-based line number of the first line of FILE containing `needle`. */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => { socket.destroy(); resolve(false); });
    socket.once('error', () => resolve(true));
  });
}

describe('configuration errors', () => {
  const t = tempEnv();
  const base = join(t.work, 'base');
  let port = 0;
  let n = 0;
  const variant = (): string => {
    const dir = join(t.work, `v${n++}`);
    cpSync(base, dir, { recursive: true });
    return dir;
  };
  const up = (dir: string) => runSvc(['up', '-d'], { env: t.env, cwd: dir });

  before(async () => {
    mkdirSync(t.work, { recursive: true });
    const r = await runSvc(['init', '--template', 'alert-escalation', '--provider', 'rules', base], { env: t.env, cwd: t.work });
    assert.equal(r.code, 0, r.stderr);
    port = await freePort();
    setIngestPort(base, port);
  });
  after(async () => {
    await runSvc(['down'], { env: t.env, cwd: base });
    t.cleanup();
  });

  it('a missing key', async () => {
    const dir = variant();
    const file = join(dir, 'agent.yaml');
    editFile(file, 'provider: rules\n', '');
    const r = await up(dir);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /agent\.yaml:\d+:\d+: provider: required key missing/);
    assert.ok(!existsSync(join(t.home, 'up.pid')));
  });

  it('a wrong type', async () => {
    const dir = variant();
    const file = join(dir, 'event-sources.yaml');
    editFile(file, `port: ${port}`, 'port: eighty');
    const r = await up(dir);
    assert.equal(r.code, 2);
    assert.ok(r.stderr.includes(`event-sources.yaml:${lineOf(file, 'port: eighty')}:`), r.stderr);
    assert.match(r.stderr, /sources\.0\.port: expected number/);
  });

  it('an unknown key', async () => {
    const dir = variant();
    const file = join(dir, 'channels.yaml');
    editFile(file, '    to: on-call\n', '    to: on-call\n    colour: blue\n');
    const r = await up(dir);
    assert.equal(r.code, 2);
    assert.ok(r.stderr.includes(`channels.yaml:${lineOf(file, 'colour: blue')}:5: channels.0.colour: unknown key "colour"`), r.stderr);
  });

  it('an unresolvable secret: exit 2 and no listener, never an unsigned door', async () => {
    const dir = variant();
    const file = join(dir, 'event-sources.yaml');
    editFile(file, '${secret:alert-escalation/webhook-hmac}', '${secret:alert-escalation/missing}');
    const r = await up(dir);
    assert.equal(r.code, 2);
    assert.ok(r.stderr.includes(`event-sources.yaml:${lineOf(file, 'missing}')}:`), r.stderr);
    assert.match(r.stderr, /sources\.0\.secret: .*alert-escalation\/missing/);
    assert.equal(await refused(port), true);
  });

  it('an unset environment reference and a literal secret', async () => {
    const dir = variant();
    const file = join(dir, 'event-sources.yaml');
    editFile(file, '${secret:alert-escalation/webhook-hmac}', '${env:SVC_TEST_UNSET_HMAC}');
    const r = await up(dir);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /sources\.0\.secret: .*SVC_TEST_UNSET_HMAC/);
    const literal = variant();
    editFile(join(literal, 'event-sources.yaml'), '${secret:alert-escalation/webhook-hmac}', 'plain-text-secret-value-1234');
    const r2 = await up(literal);
    assert.equal(r2.code, 2);
    assert.match(r2.stderr, /sources\.0\.secret: must be a \$\{env:…\}, \$\{file:…\} or \$\{secret:…\} reference/);
    assert.ok(!r2.stderr.includes('plain-text-secret-value-1234'));
  });

  it('a real provider without its key, with a bad baseUrl or an unknown llm key', async () => {
    const dir = variant();
    const file = join(dir, 'agent.yaml');
    editFile(file, 'provider: rules', 'provider: anthropic\nmodel: claude-haiku-4-5');
    const r = await up(dir);
    assert.equal(r.code, 2);
    assert.ok(r.stderr.includes(`agent.yaml:${lineOf(file, 'provider: anthropic')}:11: provider: no API key for provider "anthropic": set ANTHROPIC_API_KEY`), r.stderr);
    assert.equal(await refused(port), true);
    editFile(file, 'model: claude-haiku-4-5', 'model: claude-haiku-4-5\nbaseUrl: ftp://models.example.com\nllm: { maxSteps: 4, thinking: on }');
    const bad = await runSvc(['up', '-d'], { env: { ...t.env, ANTHROPIC_API_KEY: 'sk-ant-e2e-never-printed-0001' }, cwd: dir });
    assert.equal(bad.code, 2);
    assert.ok(bad.stderr.includes(`agent.yaml:${lineOf(file, 'baseUrl:')}:10: baseUrl: must be an http(s) URL`), bad.stderr);
    assert.match(bad.stderr, /llm\.thinking: unknown key "thinking"/);
    assert.doesNotMatch(bad.stderr, /never-printed/);
  });

  it('a bind from ${file:} that does not resolve: exit 2 from svc check and svc up, naming the key, never the value', async () => {
    const dir = variant();
    const file = join(dir, 'event-sources.yaml');
    writeFileSync(join(dir, 'bind-host'), 'internal-secret-name.invalid\n');
    editFile(file, '    bind: 127.0.0.1\n', '    bind: ${file:./bind-host}\n');
    const check = await runSvc(['check'], { env: t.env, cwd: dir });
    assert.equal(check.code, 2, check.stderr);
    assert.ok(check.stderr.includes(`${file}: sources.0.bind (source alertmanager of agent oncall-escalator): does not resolve as a host (ENOTFOUND)`), check.stderr);
    const r = await up(dir);
    assert.equal(r.code, 2, r.stderr);
    assert.ok(r.stderr.includes('sources.0.bind (source alertmanager of agent oncall-escalator): does not resolve as a host'), r.stderr);
    for (const out of [check.stdout, check.stderr, r.stdout, r.stderr]) assert.doesNotMatch(out, /internal-secret-name/);
    assert.ok(!existsSync(join(t.home, 'up.pid')));
  });
});
