import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
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
    assert.deepEqual(resolveRefs('hello', ctx), { ok: true, value: 'hello', usedRef: false });
  });

  it('keeps a literal $ that is not followed by {', () => {
    assert.deepEqual(resolveRefs('cost $5 and $$ and a$', ctx), { ok: true, value: 'cost $5 and $$ and a$', usedRef: false });
  });

  it('resolves env, file (trimmed, relative to baseDir) and secret (trimmed) references', () => {
    assert.deepEqual(resolveRefs('${env:SLACK}', ctx), { ok: true, value: 'xoxb-env', usedRef: true });
    assert.deepEqual(resolveRefs('${file:token.txt}', ctx), { ok: true, value: 'tok-from-file', usedRef: true });
    assert.deepEqual(resolveRefs('${secret:alert-escalation/webhook-hmac}', ctx), { ok: true, value: SECRET, usedRef: true });
  });

  it('resolves references embedded in a longer string', () => {
    assert.deepEqual(resolveRefs('Bearer ${env:SLACK}/${file:token.txt}!', ctx),
      { ok: true, value: 'Bearer xoxb-env/tok-from-file!', usedRef: true });
  });

  it('does not resolve references inside resolved values', () => {
    assert.deepEqual(resolveRefs('${env:NESTED}', ctx), { ok: true, value: '${env:SLACK}', usedRef: true });
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
    assert.equal(readSecret(h, 'team/svc/key'), 'value-1');
    writeSecret(h, 'team/svc/key', 'value-2');
    assert.equal(readSecret(h, 'team/svc/key'), 'value-2');
    assert.deepEqual(readdirSync(join(h, 'secrets', 'team', 'svc')), ['key']);
  });

  it('writeSecret refuses empty values and bad paths', () => {
    assert.throws(() => writeSecret(home, 'e', ' \n'), UsageError);
    assert.throws(() => writeSecret(home, '../escape', 'v'), UsageError);
    assert.equal(secretExists(home, 'e'), false);
  });

  it('readSecret returns null for a missing secret; secretExists tells files only', () => {
    assert.equal(readSecret(home, 'alert-escalation/missing'), null);
    assert.equal(readSecret(home, 'alert-escalation/webhook-hmac/below-a-file'), null);
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
