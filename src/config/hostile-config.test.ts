/**
 * Contract §11.7 over the agent files as a whole: whatever a reference resolves to, in whatever key,
 * no configuration error quotes it (each problem names file, line, key and the reference kind), and
 * the skill files are read bounded like the YAML files.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parseDocument } from 'yaml';
import { ConfigError } from '../core/errors.js';
import { resolveControlPlane } from './control-plane.js';
import { loadAgents } from './load-agent.js';
import { writeSecret } from './secrets.js';

const root = mkdtempSync(join(tmpdir(), 'svc-hostile-'));
after(() => rmSync(root, { recursive: true, force: true }));
const home = join(root, 'home');
writeSecret(home, 'hmac', 'f0e1d2c3b4a5968778695a4b3c2d1e0f');
const CANARY = 'CANARY-9b7e51';

/** Every key the loader knows, most of them set, across two agents (rules and openai). */
const RULES_AGENT = `id: rules-agent
provider: rules
skills: [skills/triage.md]
controlPlane:
  bind: 127.0.0.1
  port: 9464
  auth: { enabled: true, provider: oidc, issuer: https://id.example.com, audience: svc, scopes: [control:read], allowLoopback: true }
dispatch: { maxAttempts: 5, initialBackoffMs: 500, maxBackoffMs: 30000, concurrency: 16 }
mcpServers:
  - id: runbooks
    command: node
    args: [./mcp.js]
    env: { MODE: test }
    callTimeoutMs: 30000
    rateLimit: { perSecond: 5, burst: 5 }
rules:
  lookup: { server: runbooks, tool: lookup_runbook, timeoutMs: 10000 }
rateLimits:
  provider: { perSecond: 2, burst: 5 }
  tools: { lookup_runbook: { perSecond: 1, burst: 1 } }
audit:
  export:
    - id: siem
      type: http
      url: http://127.0.0.1:8088/audit
      format: json
      token: \${env:SIEM_TOKEN}
    - id: syslog
      type: syslog
      address: 127.0.0.1:6514
      appName: svc
  backpressure: { maxBacklogRows: 10000, resumeBelowRows: 5000 }
store: { kind: sqlite, leaseMs: 60000, retention: { events: 30d } }
`;
const LLM_AGENT = `id: llm-agent
provider: openai
model: gpt-4o-mini
baseUrl: http://127.0.0.1:8000/v1
apiKey: \${env:OPENAI_KEY}
tools: [runbooks__*]
llm: { maxSteps: 8, maxTokens: 1024, temperature: 0, callTimeoutMs: 30000, triageTimeoutMs: 120000, onFailure: rules }
`;
const SOURCES = `sources:
  - id: alertmanager
    type: webhook
    port: 8787
    bind: 127.0.0.1
    secret: \${secret:hmac}
    fingerprintHeader: X-Alert-Fingerprint
    signatureHeader: X-Signature
    timestampHeader: X-Signature-Timestamp
`;
const CHANNELS = `channels:
  - id: oncall-dm
    type: file
    direction: outbound
    path: ./out/oncall-dm.jsonl
    to: on-call
  - id: slack-dm
    type: slack
    direction: outbound
    token: \${env:SLACK_TOKEN}
    user: U42
    apiUrl: https://slack.com/api
  - id: hook
    type: webhook
    direction: outbound
    url: http://127.0.0.1:9000/hook
    maxAttempts: 3
    timeoutMs: 10000
`;
const FILES = { 'agent.yaml': RULES_AGENT, 'event-sources.yaml': SOURCES, 'channels.yaml': CHANNELS } as const;
const BASE_ENV = { SIEM_TOKEN: 'siem-token-0000', OPENAI_KEY: 'sk-test-0000', SLACK_TOKEN: 'xoxb-0000', PATH: process.env.PATH };

let n = 0;
function agentDir(files: Partial<Record<keyof typeof FILES, string>>): string {
  const dir = join(root, `a${++n}`);
  mkdirSync(join(dir, 'skills'), { recursive: true });
  for (const [name, text] of Object.entries({ ...FILES, ...files })) writeFileSync(join(dir, name), text);
  writeFileSync(join(dir, 'skills', 'triage.md'), '# Triage\n');
  writeFileSync(join(dir, 'mcp.js'), '');
  return dir;
}

/** Paths of every scalar in a YAML text. */
function scalarPaths(text: string): Array<Array<string | number>> {
  const out: Array<Array<string | number>> = [];
  const walk = (v: unknown, path: Array<string | number>): void => {
    if (Array.isArray(v)) v.forEach((item, i) => walk(item, [...path, i]));
    else if (v !== null && typeof v === 'object') for (const [k, item] of Object.entries(v)) walk(item, [...path, k]);
    else out.push(path);
  };
  walk(parseDocument(text).toJS(), []);
  return out;
}

function withValue(text: string, path: Array<string | number>, value: string): string {
  const doc = parseDocument(text);
  doc.setIn(path, value);
  return doc.toString();
}

/** The whole of what `svc up` checks before starting: the files, then the daemon-wide control plane. */
function check(dirs: string[], env: NodeJS.ProcessEnv): string | null {
  try {
    resolveControlPlane(loadAgents(dirs, { env, home }), env, home);
    return null;
  } catch (err) {
    assert.ok(err instanceof ConfigError, `expected a ConfigError, got ${String(err)}`);
    return err.message;
  }
}

describe('no configuration error quotes a resolved value (contract §11.7)', () => {
  const hostile = [
    `${CANARY}\nroot:$6$salt$hash:19000:0:99999:7:::`,
    CANARY.toLowerCase(),
    `http://${CANARY}.invalid:99999/x?q=${CANARY}#f`,
    `  ${CANARY} with spaces  `,
    `"${CANARY}"\u202e\u0000`,
  ];

  for (const [name, text] of Object.entries({ ...FILES, 'agent.yaml (openai)': LLM_AGENT })) {
    it(`every key of ${name}, set from \${env:…} and \${file:…}`, () => {
      const file = name.split(' ')[0] as keyof typeof FILES;
      let refused = 0;
      for (const path of scalarPaths(text)) {
        for (const [i, value] of hostile.entries()) {
          const kind = i % 2 === 0 ? 'env' : 'file';
          const dir = agentDir({ [file]: withValue(text, path, kind === 'env' ? '${env:HOSTILE}' : '${file:hostile.txt}') });
          writeFileSync(join(dir, 'hostile.txt'), value);
          const message = check([dir], { ...BASE_ENV, HOSTILE: value });
          if (message === null) continue;
          refused++;
          assert.ok(!message.toLowerCase().includes(CANARY.toLowerCase()), `${path.join('.')} = ${JSON.stringify(value)}:\n${message}`);
          // A problem at the key itself names the file, the position, the key and the reference kind.
          const key = path.join('.');
          for (const line of message.split('\n').filter((l) => l.includes(`: ${key}: `))) {
            assert.match(line, new RegExp(`^${join(dir, file).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:\\d+:\\d+: `), line);
            assert.ok(line.includes(`\${${kind}:…}`), line);
          }
        }
      }
      assert.ok(refused > 0);
    });
  }

  it('ids from references are not quoted in cross-file problems either', () => {
    const env = { ...BASE_ENV, ID: 'canary-dup-id' };
    const channels = CHANNELS.replace('id: oncall-dm', 'id: ${env:ID}').replace('id: slack-dm', 'id: ${env:ID}');
    const a = agentDir({ 'channels.yaml': channels });
    const inOne = check([a], env) ?? assert.fail('expected problems');
    assert.ok(!inOne.includes('canary-dup-id'), inOne);
    assert.match(inOne, /channels\.1\.id: duplicate channel id <\$\{env:…\} value> \(first at /);
    const agent = RULES_AGENT.replace('id: rules-agent', 'id: ${env:ID}');
    const b = agentDir({ 'agent.yaml': agent });
    const c = agentDir({ 'agent.yaml': agent.replace('id: runbooks', 'id: other').replace('server: runbooks', 'server: other'),
      'event-sources.yaml': SOURCES.replace('8787', '8788') });
    const across = check([b, c], env) ?? assert.fail('expected problems');
    assert.ok(!across.includes('canary-dup-id'), across);
    assert.match(across, /agent\.yaml:1:5: id: duplicate agent id <\$\{env:…\} value> \(also in /);
  });

  it('a control plane bound beyond loopback without auth names file, line, key and reference kind', () => {
    const agent = RULES_AGENT.replace('  bind: 127.0.0.1', '  bind: ${env:BIND}').replace(/\n {2}auth: .*\n/, '\n');
    const dir = agentDir({ 'agent.yaml': agent });
    assert.equal(check([dir], { ...BASE_ENV, BIND: '10.1.2.3' }),
      `${join(dir, 'agent.yaml')}:5:9: controlPlane.bind: not a loopback address (from a \${env:…} reference; the value is not shown); `
      + 'binding the control plane beyond loopback requires controlPlane.auth.enabled: true');
    assert.equal(check([dir], { ...BASE_ENV, BIND: '10.1.2.3', SVC_METRICS_PORT: '0' }), null);
  });
});

describe('skill files are read bounded', () => {
  const skillAt = (dir: string, setup: (path: string) => void): string => {
    const path = join(dir, 'skills', 'triage.md');
    rmSync(path, { recursive: true, force: true });
    setup(path);
    return check([dir], BASE_ENV) ?? assert.fail('expected a problem');
  };
  const where = (dir: string): string => `${join(dir, 'agent.yaml')}:3:10: skills.0: skill file skills/triage.md`;

  it('refuses a FIFO and a device at once, and a directory', () => {
    const a = agentDir({});
    assert.equal(skillAt(a, (p) => execFileSync('mkfifo', [p])),
      `${where(a)} is a FIFO, not a regular file; skill files are regular files of at most 1 MiB`);
    const b = agentDir({});
    assert.equal(skillAt(b, (p) => symlinkSync('/dev/zero', p)),
      `${where(b)} is a character device, not a regular file; skill files are regular files of at most 1 MiB`);
    const c = agentDir({});
    assert.equal(skillAt(c, (p) => mkdirSync(p)), `${where(c)} is a directory, not a regular file; skill files are regular files of at most 1 MiB`);
  });

  it('refuses a skill file over 1 MiB', () => {
    const a = agentDir({});
    assert.equal(skillAt(a, (p) => writeFileSync(p, 'x'.repeat(1024 * 1024 + 1))),
      `${where(a)} is larger than 1 MiB (1048577 bytes); skill files are regular files of at most 1 MiB`);
  });
});
