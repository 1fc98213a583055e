import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { UsageError } from '../core/errors.js';
import { homePaths, svcHome } from './paths.js';
import { resolveRefs } from './refs.js';
import { readSecret, secretExists, validateSecretPath, writeSecret } from './secrets.js';

const root = mkdtempSync(join(tmpdir(), 'svc-refs-'));
after(() => rmSync(root, { recursive: true, force: true }));

const home = join(root, 'home');
const baseDir = join(root, 'cfg');
mkdirSync(baseDir, { recursive: true });
const SECRET = 'hmac-value-0123456789abcdef';
writeSecret(home, 'alert-escalation/webhook-hmac', `  ${SECRET}\n`);
writeFileSync(join(baseDir, 'token.txt'), '  tok-from-file \n');
const env = { SLACK: 'xoxb-env', EMPTY: '', NESTED: '${env:SLACK}' };
const ctx = { env, home, baseDir };

describe('resolveRefs', () => {
  it('returns plain strings untouched, with usedRef false', () => {
    assert.deepEqual(resolveRefs('hello', ctx), { ok: true, value: 'hello', usedRef: false, kinds: [] });
  });

  it('keeps a literal $ that is not followed by {', () => {
    assert.deepEqual(resolveRefs('cost $5 and $$ and a$', ctx), { ok: true, value: 'cost $5 and $$ and a$', usedRef: false, kinds: [] });
  });

  it('resolves env, file (trimmed, relative to baseDir) and secret (trimmed) references', () => {
    assert.deepEqual(resolveRefs('${env:SLACK}', ctx), { ok: true, value: 'xoxb-env', usedRef: true, kinds: ['env'] });
    assert.deepEqual(resolveRefs('${file:token.txt}', ctx), { ok: true, value: 'tok-from-file', usedRef: true, kinds: ['file'] });
    assert.deepEqual(resolveRefs('${secret:alert-escalation/webhook-hmac}', ctx), { ok: true, value: SECRET, usedRef: true, kinds: ['secret'] });
  });

  it('resolves references embedded in a longer string', () => {
    assert.deepEqual(resolveRefs('Bearer ${env:SLACK}/${file:token.txt}!', ctx),
      { ok: true, value: 'Bearer xoxb-env/tok-from-file!', usedRef: true, kinds: ['env', 'file'] });
  });

  it('does not resolve references inside resolved values', () => {
    assert.deepEqual(resolveRefs('${env:NESTED}', ctx), { ok: true, value: '${env:SLACK}', usedRef: true, kinds: ['env'] });
  });

  it('names the unresolvable reference', () => {
    assert.deepEqual(resolveRefs('${env:MISSING}', ctx), { ok: false, error: 'environment variable "MISSING" is not set' });
    assert.deepEqual(resolveRefs('${env:EMPTY}', ctx), { ok: false, error: 'environment variable "EMPTY" is empty' });
    assert.deepEqual(resolveRefs('${file:nope.txt}', ctx),
      { ok: false, error: `file "nope.txt" not found (${join(baseDir, 'nope.txt')})` });
    assert.deepEqual(resolveRefs('${secret:alert-escalation/other}', ctx), {
      ok: false,
      error: `secret "alert-escalation/other" not found in $SVC_HOME/secrets (${join(home, 'secrets')}); store it with \`svc secret set alert-escalation/other\``,
    });
    assert.deepEqual(resolveRefs('${foo:x}', ctx), { ok: false, error: 'unknown reference kind "foo" (use env, file or secret)' });
    assert.deepEqual(resolveRefs('abc${env:SLACK', ctx), { ok: false, error: 'malformed reference: "${" without a closing "}"' });
    assert.deepEqual(resolveRefs('${SLACK}', ctx),
      { ok: false, error: 'malformed reference: expected ${env:NAME}, ${file:PATH} or ${secret:PATH}' });
  });

  it('fails the whole value when one of several references fails, without the resolved part', () => {
    const r = resolveRefs('${secret:alert-escalation/webhook-hmac}:${env:MISSING}', ctx);
    assert.equal(r.ok, false);
    assert.ok(!JSON.stringify(r).includes(SECRET));
  });

  it('rejects secret paths that leave $SVC_HOME/secrets', () => {
    writeFileSync(join(home, 'outside'), 'do-not-read');
    for (const p of ['../outside', '/etc/passwd', 'a/../../outside', './x']) {
      const r = resolveRefs(`\${secret:${p}}`, ctx);
      assert.equal(r.ok, false, p);
      assert.ok(!r.ok && r.error.startsWith(`invalid secret path ${JSON.stringify(p)}: `), p);
    }
  });
});

describe('hostile references (contract §11.7)', () => {
  const CANARY = 'CANARY-4f1d9e-do-not-print';
  /** The error of a reference that must fail; the canary is never in it. */
  const refused = (ref: string): string => {
    const r = resolveRefs(ref, ctx);
    assert.equal(r.ok, false, ref);
    const error = r.ok ? '' : r.error;
    assert.ok(!error.includes(CANARY), error);
    return error;
  };

  it('${file:…} refuses a FIFO at once instead of waiting for a writer', () => {
    execFileSync('mkfifo', [join(baseDir, 'pipe')]);
    assert.match(refused('${file:pipe}'), /^file "pipe" is a FIFO, not a regular file$/);
  });

  it('${file:…} refuses devices and directories before reading a byte', () => {
    assert.match(refused('${file:/dev/zero}'), /^file "\/dev\/zero" is a character device, not a regular file$/);
    assert.match(refused('${file:/dev/urandom}'), /is a character device/);
    mkdirSync(join(baseDir, 'dir'), { recursive: true });
    assert.match(refused('${file:dir}'), /^file "dir" is a directory, not a regular file$/);
  });

  it('${file:…} reads at most 64 KiB', () => {
    writeFileSync(join(baseDir, 'max.txt'), 'k'.repeat(64 * 1024));
    const ok = resolveRefs('${file:max.txt}', ctx);
    assert.ok(ok.ok && ok.value.length === 64 * 1024);
    writeFileSync(join(baseDir, 'big.txt'), `${CANARY}${'k'.repeat(64 * 1024)}`);
    assert.match(refused('${file:big.txt}'), /^file "big.txt" is larger than 64 KiB \(\d+ bytes\)$/);
  });

  it('${file:…} still follows a symbolic link (operators point at mounted files)', () => {
    writeFileSync(join(baseDir, 'target.txt'), 'via-link');
    symlinkSync(join(baseDir, 'target.txt'), join(baseDir, 'link.txt'));
    assert.deepEqual(resolveRefs('${file:link.txt}', ctx), { ok: true, value: 'via-link', usedRef: true, kinds: ['file'] });
  });

  it('${secret:…} refuses a symbolic link, to a private file or not', () => {
    const target = join(root, 'elsewhere.txt');
    writeFileSync(target, CANARY, { mode: 0o600 });
    mkdirSync(join(home, 'secrets', 'links'), { recursive: true, mode: 0o700 });
    symlinkSync(target, join(home, 'secrets', 'links', 'key'));
    assert.match(refused('${secret:links/key}'), /^secret "links\/key" is a symbolic link/);
  });

  it('${secret:…} refuses a path through a symbolic-linked directory', () => {
    const realDir = join(root, 'real-secrets');
    mkdirSync(realDir, { mode: 0o700 });
    writeFileSync(join(realDir, 'key'), CANARY, { mode: 0o600 });
    symlinkSync(realDir, join(home, 'secrets', 'linked-dir'));
    assert.match(refused('${secret:linked-dir/key}'), /^secret "linked-dir\/key" is a symbolic link/);
  });

  it('${secret:…} refuses a file with any permission bit for group or others; 0600 and 0400 pass', () => {
    const file = join(home, 'secrets', 'modes');
    writeFileSync(file, CANARY, { mode: 0o600 });
    for (const mode of [0o644, 0o640, 0o604, 0o620, 0o602, 0o610, 0o601, 0o660]) {
      chmodSync(file, mode);
      const error = refused('${secret:modes}');
      assert.equal(error, `secret "modes" is accessible by group or others (mode ${mode.toString(8).padStart(4, '0')}); `
        + `secrets must be private: chmod 600 ${file}`);
    }
    for (const mode of [0o600, 0o400]) {
      chmodSync(file, mode);
      assert.deepEqual(resolveRefs('${secret:modes}', ctx), { ok: true, value: CANARY, usedRef: true, kinds: ['secret'] });
    }
  });

  it('${secret:…} refuses a FIFO, a directory and a file over 64 KiB', () => {
    execFileSync('mkfifo', ['-m', '600', join(home, 'secrets', 'fifo')]);
    assert.match(refused('${secret:fifo}'), /^secret "fifo" is a FIFO, not a regular file$/);
    mkdirSync(join(home, 'secrets', 'a-dir'), { mode: 0o700 });
    assert.match(refused('${secret:a-dir}'), /^secret "a-dir" is a directory, not a regular file$/);
    writeFileSync(join(home, 'secrets', 'huge'), CANARY.repeat(5000), { mode: 0o600 });
    assert.match(refused('${secret:huge}'), /^secret "huge" is larger than 64 KiB/);
  });
});

describe('secret store', () => {
  it('validateSecretPath accepts plain relative paths and rejects the rest', () => {
    validateSecretPath('a');
    validateSecretPath('alert-escalation/webhook-hmac');
    validateSecretPath('A.b_c-1/x');
    validateSecretPath('x'.repeat(256));
    const bad = ['', '/abs', '..', '.', 'a/..', 'a/./b', 'a//b', 'a/', 'a\\b', 'a b', 'x'.repeat(257), 'é', 'a/%2e%2e'];
    for (const p of bad) assert.throws(() => validateSecretPath(p), UsageError, JSON.stringify(p));
  });

  it('writeSecret stores the trimmed value with mode 0600 in 0700 directories, atomically', () => {
    const h = join(root, 'home2');
    writeSecret(h, 'team/svc/key', ' value-1 \n');
    const file = join(h, 'secrets', 'team', 'svc', 'key');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(statSync(join(h, 'secrets', 'team', 'svc')).mode & 0o777, 0o700);
    assert.deepEqual(readSecret(h, 'team/svc/key'), { ok: true, text: 'value-1' });
    writeSecret(h, 'team/svc/key', 'value-2');
    assert.deepEqual(readSecret(h, 'team/svc/key'), { ok: true, text: 'value-2' });
    assert.deepEqual(readdirSync(join(h, 'secrets', 'team', 'svc')), ['key']);
  });

  it('writeSecret refuses empty values and bad paths', () => {
    assert.throws(() => writeSecret(home, 'e', ' \n'), UsageError);
    assert.throws(() => writeSecret(home, '../escape', 'v'), UsageError);
    assert.equal(secretExists(home, 'e'), false);
  });

  it('readSecret says not-found for a missing secret; secretExists tells files only', () => {
    assert.deepEqual(readSecret(home, 'alert-escalation/missing'), { ok: false, reason: 'not-found' });
    assert.deepEqual(readSecret(home, 'alert-escalation/webhook-hmac/below-a-file'), { ok: false, reason: 'not-found' });
    assert.equal(secretExists(home, 'alert-escalation/webhook-hmac'), true);
    assert.equal(secretExists(home, 'alert-escalation'), false);
  });
});

describe('paths', () => {
  it('uses $SVC_HOME, else ~/.svc', () => {
    assert.equal(svcHome({ SVC_HOME: '/srv/svc' }), '/srv/svc');
    assert.ok(svcHome({}).endsWith('/.svc'));
    assert.ok(svcHome({ SVC_HOME: '' }).endsWith('/.svc'));
  });

  it('lays out the files of contract §1', () => {
    const p = homePaths('/h');
    assert.deepEqual(
      { home: p.home, db: p.db, logs: p.logs, log: p.log('a1'), secrets: p.secrets, pid: p.pidFile, state: p.stateFile, up: p.upLog },
      { home: '/h', db: '/h/svc.db', logs: '/h/logs', log: '/h/logs/a1.log', secrets: '/h/secrets', pid: '/h/up.pid',
        state: '/h/up-state.json', up: '/h/up.log' },
    );
  });
});
