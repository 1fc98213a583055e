/**
 * Hostile configuration against the built CLI (contract §11.7): every attack ends `svc up` with exit 2
 * before anything starts, the message names the file, line, key and the reference kind, and the
 * content of an attacked file never shows: each holds a canary that must not appear on stdout or
 * stderr. Files that would block (/dev/zero, a FIFO) or cost memory (a 50 MB YAML file) are refused
 * for what they are.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './support/http.js';
import { editFile, lineOf, runSvc, setIngestPort, tempEnv } from './support/svc.js';
import type { RunResult } from './support/svc.js';

const CANARY = 'CANARY-e2e-3f9a1c77';

describe('configuration attacks (contract §11.7)', () => {
  const t = tempEnv();
  const base = join(t.work, 'base');
  const secretFile = join(t.home, 'secrets', 'alert-escalation', 'webhook-hmac');
  let n = 0;
  const variant = (): string => {
    const dir = join(t.work, `v${n++}`);
    cpSync(base, dir, { recursive: true });
    return dir;
  };
  /** `svc up -d` that must be refused as a configuration error, printing nothing of the canary. */
  const refused = async (dir: string, env: NodeJS.ProcessEnv = t.env): Promise<RunResult> => {
    const r = await runSvc(['up', '-d'], { env, cwd: dir });
    assert.equal(r.code, 2, `${r.stdout}${r.stderr}`);
    assert.match(r.stderr, /^svc: configuration error:\n/);
    assert.ok(!`${r.stdout}${r.stderr}`.includes(CANARY), r.stderr);
    assert.ok(!existsSync(join(t.home, 'up.pid')), 'nothing started');
    return r;
  };

  before(async () => {
    mkdirSync(t.work, { recursive: true });
    const r = await runSvc(['init', '--template', 'alert-escalation', '--provider', 'rules', base], { env: t.env, cwd: t.work });
    assert.equal(r.code, 0, r.stderr);
    setIngestPort(base, await freePort());
    // A file like /etc/shadow: what an attacker wants printed.
    writeFileSync(join(t.work, 'shadow'), `root:$6$${CANARY}$hash:19000:0:99999:7:::\nsvc:!:19000::::::\n`, { mode: 0o600 });
  });
  after(() => t.cleanup());

  it('bind: ${file:<a shadow-like file>} names file, line, key and reference kind, never the content', async () => {
    const dir = variant();
    const file = join(dir, 'event-sources.yaml');
    editFile(file, '    bind: 127.0.0.1', `    bind: \${file:${join(t.work, 'shadow')}}`);
    const r = await refused(dir);
    assert.ok(r.stderr.includes(`${file}:${lineOf(file, 'bind:')}:11: sources.0.bind: must be an IP address or a host name `
      + '(from a ${file:…} reference; the value is not shown)'), r.stderr);
  });

  it('controlPlane.bind and a numeric key from ${env:…}: named, never quoted', async () => {
    const dir = variant();
    const agent = join(dir, 'agent.yaml');
    writeFileSync(agent, `${readFileSync(agent, 'utf8')}\ncontrolPlane:\n  bind: \${env:CP_BIND}\n  port: \${env:CP_PORT}\n`);
    const r = await refused(dir, { ...t.env, CP_BIND: `${CANARY}\nsecond line`, CP_PORT: `9${CANARY}` });
    assert.ok(r.stderr.includes(`${agent}:${lineOf(agent, 'bind: ${env:CP_BIND}')}:9: controlPlane.bind: must be an IP address or a host name `
      + '(from a ${env:…} reference; the value is not shown)'), r.stderr);
    assert.ok(r.stderr.includes(`${agent}:${lineOf(agent, 'port: ${env:CP_PORT}')}:9: controlPlane.port: expected number`), r.stderr);
    assert.match(r.stderr, /controlPlane\.port: .*\(from a \$\{env:…\} reference; the value is not shown\)/);
  });

  it('${file:/dev/zero} and ${file:<a FIFO>} are refused at once for what they are', async () => {
    const dir = variant();
    const file = join(dir, 'event-sources.yaml');
    editFile(file, '${secret:alert-escalation/webhook-hmac}', '${file:/dev/zero}');
    const r = await refused(dir);
    assert.ok(r.stderr.includes(`${file}:${lineOf(file, '/dev/zero')}:13: sources.0.secret: file "/dev/zero" is a character device, not a regular file`), r.stderr);

    const fifoDir = variant();
    const fifo = join(fifoDir, 'hmac.pipe');
    execFileSync('mkfifo', [fifo]);
    const fifoFile = join(fifoDir, 'event-sources.yaml');
    editFile(fifoFile, '${secret:alert-escalation/webhook-hmac}', '${file:hmac.pipe}');
    const f = await refused(fifoDir);
    assert.ok(f.stderr.includes(`${fifoFile}:${lineOf(fifoFile, 'hmac.pipe')}:13: sources.0.secret: file "hmac.pipe" is a FIFO, not a regular file`), f.stderr);
  });

  it('${file:…} over 64 KiB is refused', async () => {
    const dir = variant();
    writeFileSync(join(dir, 'big-key'), `${CANARY}${'k'.repeat(70_000)}`);
    editFile(join(dir, 'event-sources.yaml'), '${secret:alert-escalation/webhook-hmac}', '${file:big-key}');
    const r = await refused(dir);
    assert.ok(r.stderr.includes(`sources.0.secret: file "big-key" is larger than 64 KiB (${CANARY.length + 70_000} bytes)`), r.stderr);
  });

  it('a 50 MB YAML file is refused from its size, not parsed', async () => {
    const dir = variant();
    const agent = join(dir, 'agent.yaml');
    writeFileSync(agent, Buffer.concat([readFileSync(agent), Buffer.from(`\n# ${CANARY}\n#`), Buffer.alloc(50 * 1024 * 1024, '#'), Buffer.from('\n')]));
    const size = readFileSync(agent).length;
    const r = await refused(dir);
    assert.ok(r.stderr.includes(`${agent}: the file is larger than 1 MiB (${size} bytes); configuration files are regular files of at most 1 MiB`), r.stderr);
  });

  it('a skill file that is a FIFO is refused', async () => {
    const dir = variant();
    const skill = join(dir, 'skills', 'triage.md');
    renameSync(skill, `${skill}.orig`);
    execFileSync('mkfifo', [skill]);
    const r = await refused(dir);
    assert.match(r.stderr, /agent\.yaml:\d+:\d+: skills\.0: skill file skills\/triage\.md is a FIFO, not a regular file/);
  });

  it('a secret readable by others (0644) and a symbolic-linked secret are refused', async () => {
    const dir = variant();
    const file = join(dir, 'event-sources.yaml');
    const at = `${file}:${lineOf(file, '${secret:')}:13: sources.0.secret: secret "alert-escalation/webhook-hmac"`;
    const original = readFileSync(secretFile);
    try {
      chmodSync(secretFile, 0o644);
      const open = await refused(dir);
      assert.ok(open.stderr.includes(`${at} is accessible by group or others (mode 0644); secrets must be private: chmod 600 ${secretFile}`), open.stderr);

      const target = join(t.work, 'linked-secret');
      writeFileSync(target, `${CANARY}-0123456789abcdef`, { mode: 0o600 });
      renameSync(secretFile, `${secretFile}.orig`);
      symlinkSync(target, secretFile);
      const linked = await refused(dir);
      assert.ok(linked.stderr.includes(`${at} is a symbolic link`), linked.stderr);
    } finally {
      execFileSync('rm', ['-f', secretFile]);
      writeFileSync(secretFile, original, { mode: 0o600 });
      chmodSync(secretFile, 0o600);
    }
    // The same directory starts once the secret is private again: the refusals above were about the secret.
    const check = await runSvc(['up', '-d'], { env: t.env, cwd: dir });
    assert.equal(check.code, 0, check.stderr);
    assert.equal((await runSvc(['down'], { env: t.env, cwd: dir })).code, 0);
  });

  it('fleet.yaml goes through the same loader: a FIFO is refused with exit 2', async () => {
    const fifo = join(t.work, 'fleet.pipe');
    execFileSync('mkfifo', [fifo]);
    const r = await runSvc(['fleet', 'ps', '--file', fifo], { env: t.env, cwd: t.work });
    assert.equal(r.code, 2, r.stderr);
    assert.ok(r.stderr.includes(`${fifo}: the file is a FIFO, not a regular file`), r.stderr);
  });
});
