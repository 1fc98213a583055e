import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../core/errors.js';
import { DEFAULT_HOST_TIMEOUT_MS, loadFleetFile, locateFleetFile, untrustedReason } from './fleet.js';
import { writeSecret } from './secrets.js';

const root = mkdtempSync(join(tmpdir(), 'svc-fleet-config-'));
const home = join(root, 'home');
writeSecret(home, 'fleet/us', 'client-secret-value');
after(() => rmSync(root, { recursive: true, force: true }));

function load(text: string, env: NodeJS.ProcessEnv = {}): ReturnType<typeof loadFleetFile> {
  const file = join(root, 'fleet.yaml');
  writeFileSync(file, text);
  return loadFleetFile(file, { env, home });
}

function problems(text: string, env: NodeJS.ProcessEnv = {}): string {
  try {
    load(text, env);
  } catch (err) {
    assert.ok(err instanceof ConfigError);
    return err.message;
  }
  assert.fail('expected a ConfigError');
}

describe('fleet.yaml', () => {
  it('the contract example, an oauth2-client host and defaults', () => {
    const fleet = load([
      'hosts:',
      '  - name: eu-1',
      '    url: https://eu-1.example.com:9464/svc/',
      '    auth:',
      '      type: bearer',
      '      token: ${env:FLEET_TOKEN}',
      '    timeoutMs: 5000',
      '    labels: { region: eu }',
      '  - name: us-1',
      '    url: http://10.0.0.1:9464',
      '    auth: { type: oauth2-client, tokenEndpoint: "https://idp.example.com/token", clientId: fleet, clientSecretRef: "secret:fleet/us", scopes: [control:read], audience: svc }',
      '  - { name: lab, url: "http://127.0.0.1:9464" }',
    ].join('\n'), { FLEET_TOKEN: 'abc.def' });
    assert.deepEqual(fleet.hosts.map((h) => [h.name, h.base, h.timeoutMs]), [
      ['eu-1', 'https://eu-1.example.com:9464/svc', 5000], ['us-1', 'http://10.0.0.1:9464', DEFAULT_HOST_TIMEOUT_MS], ['lab', 'http://127.0.0.1:9464', DEFAULT_HOST_TIMEOUT_MS],
    ]);
    assert.deepEqual(fleet.hosts[0]?.auth, { type: 'bearer', token: 'abc.def' });
    assert.deepEqual(fleet.hosts[0]?.labels, { region: 'eu' });
    assert.deepEqual(fleet.hosts[1]?.auth, { type: 'oauth2-client', tokenEndpoint: 'https://idp.example.com/token', clientId: 'fleet',
      clientSecret: 'client-secret-value', scopes: ['control:read'], audience: 'svc' });
    assert.deepEqual(fleet.hosts[2]?.auth, { type: 'none' });
  });

  it('every problem with file:line:col and key path, no value quoted', () => {
    const text = [
      'hosts:',
      '  - name: a',
      '    url: http://user:pw@h:1',
      '    auth: { type: bearer, token: hunter2-literal }',
      '  - name: a',
      '    url: http://h:2',
      '    auth: { type: oauth2-client, tokenEndpoint: "http://idp/token", clientId: c, clientSecretRef: "secret:fleet/missing" }',
      '  - name: b',
      '    url: http://h:3',
      '    timeoutMs: 10',
      '    auth: { type: kerberos }',
    ].join('\n');
    const schema = problems(text);
    assert.match(schema, /fleet\.yaml:3:10: hosts\.0\.url: must be an http\(s\) URL without credentials, query or fragment/);
    assert.match(schema, /fleet\.yaml:4:34: hosts\.0\.auth\.token: must be a \$\{env:…\}, \$\{file:…\} or \$\{secret:…\} reference/);
    assert.match(schema, /fleet\.yaml:10:16: hosts\.2\.timeoutMs: must be >= 100/);
    assert.match(schema, /fleet\.yaml:11:19: hosts\.2\.auth\.type: expected one of "bearer", "oauth2-client"/);
    assert.ok(!schema.includes('hunter2') && !schema.includes(':pw@'));
    // Names and references are checked once the file is valid.
    const second = problems(text.replace('http://user:pw@h:1', 'http://h:1').replace('hunter2-literal', '"${env:T}"')
      .replace('timeoutMs: 10', 'timeoutMs: 1000').replace('type: kerberos', 'type: bearer, token: "${env:T}"'), { T: 'tok' });
    assert.match(second, /fleet\.yaml:5:11: hosts\.1\.name: duplicate host name "a" \(first at .*fleet\.yaml:2:11\)/);
    assert.match(second, /fleet\.yaml:7:\d+: hosts\.1\.auth\.clientSecretRef: secret "fleet\/missing" not found/);
  });

  it('no hosts, an unknown key, an unset variable', () => {
    assert.match(problems('hosts: []\n'), /hosts: must have at least 1 item/);
    assert.match(problems('hosts:\n  - { name: a, url: "http://h:1" }\ndefaults: {}\n'), /fleet\.yaml:3:1: defaults: unknown key "defaults"/);
    assert.match(problems('hosts:\n  - { name: a, url: "http://h:1", auth: { type: bearer, token: "${env:NOPE}" } }\n'),
      /hosts\.0\.auth\.token: environment variable "NOPE" is not set/);
  });

  it('where: --file, else ./fleet.yaml, else $SVC_HOME/fleet.yaml', () => {
    const cwd = join(root, 'cwd');
    mkdirSync(cwd, { recursive: true });
    const env = { SVC_HOME: home };
    assert.throws(() => locateFleetFile(undefined, cwd, env), /no fleet\.yaml: looked for .*cwd\/fleet\.yaml and .*home\/fleet\.yaml/);
    writeFileSync(join(home, 'fleet.yaml'), '');
    assert.equal(locateFleetFile(undefined, cwd, env), join(home, 'fleet.yaml'));
    writeFileSync(join(cwd, 'fleet.yaml'), '');
    assert.equal(locateFleetFile(undefined, cwd, env), join(cwd, 'fleet.yaml'));
    assert.equal(locateFleetFile('other.yaml', cwd, env), join(cwd, 'other.yaml'));
  });

  it('which files are trusted with secrets when found without --file: only $SVC_HOME/fleet.yaml', () => {
    const uid = process.getuid?.() ?? 0;
    const repo = join(root, 'cloned-repo');
    mkdirSync(repo, { recursive: true });
    // Yours, 0644, but in a directory that is not $SVC_HOME: a repository just cloned, say.
    const cloned = join(repo, 'fleet.yaml');
    writeFileSync(cloned, 'hosts: []\n', { mode: 0o644 });
    assert.equal(untrustedReason(cloned, uid, home), `is not in $SVC_HOME (${home}) and was not named with --file`);
    chmodSync(cloned, 0o664);
    assert.equal(untrustedReason(cloned, uid, home), 'is writable by group or others');
    const own = join(home, 'fleet.yaml');
    writeFileSync(own, 'hosts: []\n', { mode: 0o644 });
    assert.equal(untrustedReason(own, uid, home), null);
    // The working directory reached through a link to $SVC_HOME: the same file, compared by real path.
    const linked = join(root, 'home-link');
    symlinkSync(home, linked);
    assert.equal(untrustedReason(join(linked, 'fleet.yaml'), uid, home), null);
    // A ./fleet.yaml that is a link to the home's own file is that file.
    symlinkSync(own, join(root, 'linked-fleet.yaml'));
    assert.equal(untrustedReason(join(root, 'linked-fleet.yaml'), uid, home), null);
  });
});
