import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { z } from 'zod';
import { ConfigError } from '../core/errors.js';
import { channelsFileSchema, sourcesFileSchema } from './schema.js';
import { writeSecret } from './secrets.js';
import { loadYamlFile } from './yaml-file.js';

const root = mkdtempSync(join(tmpdir(), 'svc-yaml-'));
after(() => rmSync(root, { recursive: true, force: true }));
const home = join(root, 'home');
const SECRET = 'Zq8-this-is-the-hmac-key-9f3a';
writeSecret(home, 'hooks/hmac', SECRET);
writeSecret(home, 'hooks/short', 'tiny-SECRET-x');
const SECRET_KEYS = [/^sources\.\d+\.secret$/];
const ctx = { env: { HOOK_SECRET: SECRET }, home, secretKeys: SECRET_KEYS };

let n = 0;
function file(text: string): string {
  const path = join(root, `f${++n}.yaml`);
  writeFileSync(path, text);
  return path;
}

/** The ConfigError message thrown by `fn`. */
function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ConfigError, `expected ConfigError, got ${String(err)}`);
    return err.message;
  }
  assert.fail('expected a ConfigError');
}

const small = z.strictObject({
  name: z.string(),
  port: z.number().int(),
  nested: z.strictObject({ a: z.number(), b: z.string().default('bee') }).optional(),
  list: z.array(z.strictObject({ x: z.number() })).default([]),
});

describe('loadYamlFile', () => {
  it('returns the validated value with defaults applied and aliases followed', () => {
    const f = file('name: svc\nport: 80\nnested: &n\n  a: 1\nlist:\n  - x: 1\n  - x: 2\n');
    const loaded = loadYamlFile(f, small, ctx);
    assert.deepEqual(loaded.value, { name: 'svc', port: 80, nested: { a: 1, b: 'bee' }, list: [{ x: 1 }, { x: 2 }] });
    assert.equal(loaded.where(['list', 1, 'x']), `${f}:7:8`);
    assert.equal(loaded.problem(['port'], 'bad'), `${f}:2:7: port: bad`);
  });

  it('reports a missing file', () => {
    const f = join(root, 'absent.yaml');
    assert.equal(errorOf(() => loadYamlFile(f, small, ctx)), `${f}: file not found`);
  });

  it('reports YAML syntax errors with line and column', () => {
    const f = file('name: svc\nport: [1, 2\nlist: 3\n');
    assert.equal(errorOf(() => loadYamlFile(f, small, ctx)),
      `${f}:3:1: Flow sequence in block collection must be sufficiently indented and end with a ]`);
    // One bare ${…} inside a flow mapping: the first errors, the echo counted, and what to do.
    const bare = file('name: svc\nport: 1\nnested: { a: ${secret:smtp/password}, b: x, c: y, d: z }\n');
    assert.equal(errorOf(() => loadYamlFile(bare, small, ctx)), [
      `${bare}:3:15: Unexpected flow-map-start at node end (a \${…} reference inside { … } must be quoted: "\${secret:…}")`,
      `${bare}:3:16: Unexpected scalar at node end`,
      `${bare}:3:37: Unexpected comma token in YAML stream: ","`,
      `${bare}: and 12 more YAML syntax error(s) after these, most often caused by the first: fix it and check again`,
    ].join('\n'));
    const dup = file('name: a\nport: 1\nname: b\n');
    assert.equal(errorOf(() => loadYamlFile(dup, small, ctx)), `${dup}:3:1: Map keys must be unique`);
  });

  it('reports a missing key at its parent mapping', () => {
    const f = file('# comment\nname: svc\nnested:\n  b: x\n');
    assert.equal(errorOf(() => loadYamlFile(f, small, ctx)),
      [`${f}:2:1: port: required key missing`, `${f}:4:3: nested.a: required key missing`].join('\n'));
  });

  it('reports a wrong type at the value', () => {
    const f = file('name: svc\nport: "8080"\nlist:\n  - x: one\n');
    assert.equal(errorOf(() => loadYamlFile(f, small, ctx)),
      [`${f}:2:7: port: expected number, got string`, `${f}:4:8: list.0.x: expected number, got string`].join('\n'));
  });

  it('reports an unknown key at the key itself', () => {
    const f = file('name: svc\nport: 1\nnested:\n  a: 1\n  colour: blue\nextra: true\n');
    assert.equal(errorOf(() => loadYamlFile(f, small, ctx)),
      [`${f}:5:3: nested.colour: unknown key "colour"`, `${f}:6:1: extra: unknown key "extra"`].join('\n'));
  });

  it('reports an empty value at its key', () => {
    const f = file('name: svc\nport:\n');
    assert.equal(errorOf(() => loadYamlFile(f, small, ctx)), `${f}:2:1: port: expected number, got null`);
  });

  it('reports an empty file', () => {
    const f = file('# nothing here\n');
    assert.equal(errorOf(() => loadYamlFile(f, small, ctx)), `${f}:1:1: file is empty (expected a mapping)`);
  });

  it('reports an alias without an anchor', () => {
    const f = file('name: *nope\nport: 1\n');
    assert.equal(errorOf(() => loadYamlFile(f, small, ctx)), `${f}:1:7: name: alias "*nope" refers to no anchor`);
  });

  it('lists every problem of the file, sorted by position', () => {
    const f = file([
      'sources:',
      '  - id: Bad_Id',
      '    type: webhook',
      '    port: 70000',
      '    secret: ${env:HOOK_SECRET}',
      '  - id: b',
      '    type: webhook',
      '    secret: ${secret:hooks/missing}',
      '    signatureHeader: "not a header"',
      '    colour: red',
      '',
    ].join('\n'));
    assert.equal(errorOf(() => loadYamlFile(f, sourcesFileSchema, ctx)), [
      `${f}:2:9: sources.0.id: must match ^[a-z0-9][a-z0-9._-]{0,63}$`,
      `${f}:4:11: sources.0.port: must be <= 65535`,
      `${f}:6:5: sources.1.port: required key missing`,
      `${f}:8:13: sources.1.secret: secret "hooks/missing" not found in $SVC_HOME/secrets (${join(home, 'secrets')}); store it with \`svc secret set hooks/missing\``,
      `${f}:9:22: sources.1.signatureHeader: must be an HTTP header name`,
      `${f}:10:5: sources.1.colour: unknown key "colour"`,
    ].join('\n'));
  });

  it('reports unresolvable env and file references with file:line:col and key path', () => {
    const f = file('sources:\n  - id: a\n    type: webhook\n    port: 8787\n    secret: ${env:UNSET_VAR}\n');
    assert.equal(errorOf(() => loadYamlFile(f, sourcesFileSchema, ctx)),
      `${f}:5:13: sources.0.secret: environment variable "UNSET_VAR" is not set`);
    const g = file('sources:\n  - id: a\n    type: webhook\n    port: 8787\n    secret: "${file:keys/hmac}"\n');
    assert.equal(errorOf(() => loadYamlFile(g, sourcesFileSchema, ctx)),
      `${g}:5:13: sources.0.secret: file "keys/hmac" not found (${join(root, 'keys/hmac')})`);
  });

  it('rejects a literal secret without echoing it', () => {
    const literal = 'literal-hmac-key-1234567890';
    const f = file(`sources:\n  - id: a\n    type: webhook\n    port: 8787\n    secret: ${literal}\n`);
    const msg = errorOf(() => loadYamlFile(f, sourcesFileSchema, ctx));
    assert.equal(msg, `${f}:5:13: sources.0.secret: must be a \${env:…}, \${file:…} or \${secret:…} reference, not a literal secret`);
    assert.ok(!msg.includes(literal));
    const num = file('sources:\n  - id: a\n    type: webhook\n    port: 8787\n    secret: 12345678901234567890\n');
    assert.match(errorOf(() => loadYamlFile(num, sourcesFileSchema, ctx)), /:5:13: sources\.0\.secret: must be a \$\{env:/);
  });

  it('never puts a resolved secret into an error, even when it fails validation', () => {
    const f = file('sources:\n  - id: a\n    type: webhook\n    port: "x"\n    secret: ${secret:hooks/short}\n');
    const msg = errorOf(() => loadYamlFile(f, sourcesFileSchema, ctx));
    assert.equal(msg, [
      `${f}:4:11: sources.0.port: expected number, got string`,
      `${f}:5:13: sources.0.secret: must be at least 16 characters (from a \${secret:…} reference; the value is not shown)`,
    ].join('\n'));
    assert.ok(!msg.includes('tiny-SECRET-x'));
  });

  it('names the key and the reference kind, never the value, when a referenced value fails validation (contract §11.7)', () => {
    const canary = 'CANARY-7c1e-root:$6$salt$hash:19000:0:99999:7:::';
    writeFileSync(join(root, 'shadow-like'), `${canary}\nsecond-line\n`);
    const env = { BIND: canary, PORT: canary };
    const f = file([
      'sources:', '  - id: a', '    type: webhook', '    port: ${env:PORT}', '    bind: ${file:shadow-like}',
      '    secret: ${secret:hooks/hmac}', '    signatureHeader: "X-${env:BIND}"', '',
    ].join('\n'));
    const msg = errorOf(() => loadYamlFile(f, sourcesFileSchema, { ...ctx, env }));
    assert.equal(msg, [
      `${f}:4:11: sources.0.port: expected number; the reference resolved to text that is not one (from a \${env:…} reference; the value is not shown)`,
      `${f}:5:11: sources.0.bind: must be an IP address or a host name (from a \${file:…} reference; the value is not shown)`,
      `${f}:7:22: sources.0.signatureHeader: must be an HTTP header name (from a \${env:…} reference; the value is not shown)`,
    ].join('\n'));
    assert.ok(!msg.includes('CANARY'));
  });

  it('scrubs resolved values from later messages too (problem, quote)', () => {
    const f = file('sources:\n  - id: ${env:ID}\n    type: webhook\n    port: 8787\n    secret: ${secret:hooks/hmac}\n');
    const loaded = loadYamlFile(f, sourcesFileSchema, { ...ctx, env: { ID: 'canary-id-42' } });
    assert.equal(loaded.quote(['sources', 0, 'id'], 'canary-id-42'), '<${env:…} value>');
    assert.equal(loaded.quote(['sources', 0, 'type'], 'webhook'), '"webhook"');
    assert.deepEqual(loaded.refKinds(['sources', 0, 'secret']), ['secret']);
    assert.equal(loaded.problem(['sources', 0, 'id'], `id "canary-id-42" and ${SECRET} are taken`),
      `${f}:2:9: sources.0.id: id "<\${env:…} value>" and <\${secret:…} value> are taken`);
  });

  it('refuses a file over 1 MiB from its size, before reading it', () => {
    const f = join(root, 'huge.yaml');
    writeFileSync(f, `name: x\n#${'c'.repeat(1024 * 1024)}\n`);
    assert.equal(errorOf(() => loadYamlFile(f, small, ctx)),
      `${f}: the file is larger than 1 MiB (${1024 * 1024 + 10} bytes); configuration files are regular files of at most 1 MiB`);
  });

  it('refuses a FIFO, a directory and a device without blocking', () => {
    const fifo = join(root, 'fifo.yaml');
    execFileSync('mkfifo', [fifo]);
    assert.match(errorOf(() => loadYamlFile(fifo, small, ctx)), /fifo\.yaml: the file is a FIFO, not a regular file;/);
    assert.match(errorOf(() => loadYamlFile(root, small, ctx)), /: the file is a directory, not a regular file;/);
    assert.match(errorOf(() => loadYamlFile('/dev/zero', small, ctx)), /^\/dev\/zero: the file is a character device, not a regular file;/);
  });

  it('resolves references and applies defaults on a valid file', () => {
    const f = file('sources:\n  - id: a\n    type: webhook\n    port: 8787\n    secret: ${secret:hooks/hmac}\n');
    assert.deepEqual(loadYamlFile(f, sourcesFileSchema, ctx).value, {
      sources: [{ id: 'a', type: 'webhook', port: 8787, bind: '127.0.0.1', secret: SECRET,
        fingerprintHeader: 'X-Alert-Fingerprint', signatureHeader: 'X-Signature', maxConnections: 512 }],
    });
  });

  it('reports a bad discriminator and a missing one', () => {
    const f = file('channels:\n  - id: a\n    type: fax\n  - id: b\n    direction: outbound\n');
    assert.equal(errorOf(() => loadYamlFile(f, channelsFileSchema, ctx)), [
      `${f}:3:11: channels.0.type: expected one of "file", "slack", "webhook", "teams", "pagerduty", "email", "ntfy", "pushover", "twilio", "telegram"`,
      `${f}:4:5: channels.1.type: required key missing`,
    ].join('\n'));
  });
});

describe('references in numeric and boolean keys (contract §13)', () => {
  it('converts and validates them after resolution', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-yaml-ref-'));
    const schema = z.strictObject({ port: z.number().int().min(1).max(65535), on: z.boolean(), name: z.string() });
    const file = join(dir, 'x.yaml');
    writeFileSync(file, 'port: ${env:PORT}\non: ${env:ON}\nname: ${env:PORT}\n');
    const ok = loadYamlFile(file, schema, { env: { PORT: '8787', ON: 'true' }, home: dir });
    assert.deepEqual(ok.value, { port: 8787, on: true, name: '8787' });
    const bad = (env: Record<string, string>): string => {
      try {
        loadYamlFile(file, schema, { env, home: dir });
      } catch (err) {
        return (err as Error).message;
      }
      return 'no error';
    };
    assert.match(bad({ PORT: 'eighty', ON: 'true' }), /x\.yaml:1:7: port: expected number; the reference resolved to text that is not one/);
    assert.match(bad({ PORT: '70000', ON: 'true' }), /port: must be <= 65535/);
    assert.match(bad({ PORT: '1', ON: 'yes' }), /on: expected boolean; the reference resolved/);
    rmSync(dir, { recursive: true, force: true });
  });
});
