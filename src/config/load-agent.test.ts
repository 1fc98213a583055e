import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigError } from '../core/errors.js';
import { loadAgentDir, loadAgents } from './load-agent.js';
import { writeSecret } from './secrets.js';

const root = mkdtempSync(join(tmpdir(), 'svc-load-'));
after(() => rmSync(root, { recursive: true, force: true }));
const home = join(root, 'home');
const HMAC = 'f0e1d2c3b4a5968778695a4b3c2d1e0f';
writeSecret(home, 'alert-escalation/webhook-hmac', HMAC);
const ctx = { env: { SLACK_BOT_TOKEN: 'xoxb-123', SLACK_ONCALL_USER: 'U42', PATH: process.env.PATH }, home };

const AGENT = 'id: oncall-escalator\nprovider: rules\nskills: [skills/triage.md]\n';
const SOURCES = [
  'sources:',
  '  - id: alertmanager',
  '    type: webhook',
  '    port: 8787',
  '    secret: ${secret:alert-escalation/webhook-hmac}',
  '',
].join('\n');
const CHANNELS = 'channels:\n  - id: oncall-dm\n    type: file\n    direction: outbound\n    path: ./out/oncall-dm.jsonl\n';

let n = 0;
/** An agent directory with the template's files, any of them replaced; with `oncall`, an oncall.yaml too (only its being there is read here). */
function agentDir(files: { agent?: string; sources?: string; channels?: string; skill?: boolean; oncall?: string } = {}): string {
  const dir = join(root, `agent${++n}`);
  mkdirSync(join(dir, 'skills'), { recursive: true });
  writeFileSync(join(dir, 'agent.yaml'), files.agent ?? AGENT);
  writeFileSync(join(dir, 'event-sources.yaml'), files.sources ?? SOURCES);
  writeFileSync(join(dir, 'channels.yaml'), files.channels ?? CHANNELS);
  if (files.oncall !== undefined) writeFileSync(join(dir, 'oncall.yaml'), files.oncall);
  if (files.skill !== false) writeFileSync(join(dir, 'skills', 'triage.md'), '# Triage\nMap severity.\n');
  return dir;
}

function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ConfigError, `expected ConfigError, got ${String(err)}`);
    return err.message;
  }
  assert.fail('expected a ConfigError');
}

describe('loadAgentDir', () => {
  it('loads a valid directory with defaults applied, references resolved and paths absolute', () => {
    const dir = agentDir();
    assert.deepEqual(loadAgentDir(dir, ctx), {
      dir,
      agent: {
        id: 'oncall-escalator',
        provider: 'rules',
        skills: ['skills/triage.md'],
        dispatch: { maxAttempts: 5, initialBackoffMs: 500, maxBackoffMs: 30_000, concurrency: 16 },
        mcpServers: [],
        rateLimits: { tools: {} },
        rules: {},
      },
      sources: [{ id: 'alertmanager', type: 'webhook', port: 8787, bind: '127.0.0.1', secret: HMAC,
        fingerprintHeader: 'X-Alert-Fingerprint', signatureHeader: 'X-Signature', maxConnections: 512 }],
      channels: [{ id: 'oncall-dm', type: 'file', direction: 'outbound', path: join(dir, 'out', 'oncall-dm.jsonl'),
        to: 'on-call', timeoutMs: 10_000 }],
      skills: [{ path: join(dir, 'skills', 'triage.md'), text: '# Triage\nMap severity.\n' }],
    });
  });

  it('resolves env references in a slack channel', () => {
    const dir = agentDir({ channels: [
      'channels:',
      '  - id: dm',
      '    type: slack',
      '    direction: outbound',
      '    token: ${env:SLACK_BOT_TOKEN}',
      '    user: ${env:SLACK_ONCALL_USER}',
      '',
    ].join('\n') });
    assert.deepEqual(loadAgentDir(dir, ctx).channels, [{ id: 'dm', type: 'slack', direction: 'outbound', token: 'xoxb-123',
      user: 'U42', apiUrl: 'https://slack.com/api', timeoutMs: 10_000 }]);
  });

  it('reports a missing skill file at its list entry', () => {
    const dir = agentDir({ agent: 'id: a\nprovider: rules\nskills:\n  - skills/triage.md\n  - skills/gone.md\n' });
    assert.equal(errorOf(() => loadAgentDir(dir, ctx)), `${join(dir, 'agent.yaml')}:5:5: skills.1: file not found: skills/gone.md`);
  });

  it('rejects a literal webhook secret and a literal slack token, never echoing them', () => {
    const dir = agentDir({
      sources: SOURCES.replace('${secret:alert-escalation/webhook-hmac}', 'my-literal-hmac-key-0000'),
      channels: 'channels:\n  - id: dm\n    type: slack\n    direction: outbound\n    token: xoxb-literal-token\n    user: U1\n',
    });
    const msg = errorOf(() => loadAgentDir(dir, ctx));
    assert.equal(msg, [
      `${join(dir, 'event-sources.yaml')}:5:13: sources.0.secret: must be a \${env:…}, \${file:…} or \${secret:…} reference, not a literal secret`,
      `${join(dir, 'channels.yaml')}:5:12: channels.0.token: must be a \${env:…}, \${file:…} or \${secret:…} reference, not a literal secret`,
    ].join('\n'));
    assert.ok(!msg.includes('my-literal-hmac-key-0000') && !msg.includes('xoxb-literal-token'));
  });

  it('checks the keys of teams, pagerduty and email channels at their positions; literal secrets refused unquoted', () => {
    const dir = agentDir({ channels: [
      'channels:',
      '  - id: room',
      '    type: teams',
      '    direction: outbound',
      '    url: not-a-url',
      '  - id: pd',
      '    type: pagerduty',
      '    direction: outbound',
      '    routingKey: LiteralRoutingKey000000000000042',
      '  - id: mail',
      '    type: email',
      '    direction: outbound',
      '    smtp: { host: smtp.example.com, tls: startls, username: svc, password: literal-smtp-pass }',
      '    from: svc',
      '    to: oncall@example.com',
      '',
    ].join('\n') });
    const msg = errorOf(() => loadAgentDir(dir, ctx));
    const c = join(dir, 'channels.yaml');
    assert.equal(msg, [
      `${c}:5:10: channels.0.url: must be an http(s) URL`,
      `${c}:9:17: channels.1.routingKey: must be a \${env:…}, \${file:…} or \${secret:…} reference, not a literal secret`,
      `${c}:13:42: channels.2.smtp.tls: expected one of "starttls", "implicit", "none"`,
      `${c}:13:76: channels.2.smtp.password: must be a \${env:…}, \${file:…} or \${secret:…} reference, not a literal secret`,
      `${c}:14:11: channels.2.from: must be an email address`,
    ].join('\n'));
    assert.ok(!msg.includes('LiteralRoutingKey') && !msg.includes('literal-smtp-pass'));
  });

  it('a Teams workflow URL written literally is refused at its position, unquoted (it carries its signature)', () => {
    const dir = agentDir({ channels: [
      'channels:',
      '  - id: hook',
      '    type: webhook',
      '    direction: outbound',
      '    url: https://hooks.example.com/in',
      '  - id: room',
      '    type: teams',
      '    direction: outbound',
      '    url: https://example.webhook.office.com/wf?sig=LiteralSig',
      '',
    ].join('\n') });
    const msg = errorOf(() => loadAgentDir(dir, ctx));
    assert.equal(msg, `${join(dir, 'channels.yaml')}:9:10: channels.1.url: must be a \${env:…}, \${file:…} or \${secret:…} reference, not a literal secret`);
    assert.ok(!msg.includes('LiteralSig'));
  });

  it('loads teams, pagerduty and email channels with their defaults', () => {
    const key = 'R0ut1ngKey00000000000000000000ab';
    const dir = agentDir({ channels: [
      'channels:',
      '  - { id: room, type: teams, direction: outbound, url: "${env:TEAMS_URL}" }',
      '  - { id: pd, type: pagerduty, direction: outbound, routingKey: "${env:PD_KEY}" }',
      '  - id: mail',
      '    type: email',
      '    direction: outbound',
      '    smtp: { host: smtp.example.com, username: svc, password: "${env:SMTP_PASSWORD}" }',
      '    from: svc@example.com',
      '    to: oncall@example.com',
      '',
    ].join('\n') });
    const loaded = loadAgentDir(dir, { ...ctx, env: { ...ctx.env, PD_KEY: key, SMTP_PASSWORD: 'pw-from-env',
      TEAMS_URL: 'https://example.webhook.office.com/wf?sig=abc' } });
    assert.deepEqual(loaded.channels, [
      { id: 'room', type: 'teams', direction: 'outbound', url: 'https://example.webhook.office.com/wf?sig=abc', timeoutMs: 10_000 },
      { id: 'pd', type: 'pagerduty', direction: 'outbound', routingKey: key, url: 'https://events.pagerduty.com/v2/enqueue', timeoutMs: 10_000 },
      { id: 'mail', type: 'email', direction: 'outbound', smtp: { host: 'smtp.example.com', tls: 'starttls', username: 'svc', password: 'pw-from-env' },
        from: 'svc@example.com', to: 'oncall@example.com', timeoutMs: 10_000 },
    ]);
  });

  it('reports an unresolvable secret naming file, line and key, and problems of every file at once', () => {
    const dir = agentDir({
      agent: 'id: a\nprovider: rules\nsklls: []\n',
      sources: SOURCES.replace('alert-escalation/webhook-hmac', 'alert-escalation/rotated'),
    });
    assert.equal(errorOf(() => loadAgentDir(dir, ctx)), [
      `${join(dir, 'agent.yaml')}:3:1: sklls: unknown key "sklls"`,
      `${join(dir, 'event-sources.yaml')}:5:13: sources.0.secret: secret "alert-escalation/rotated" not found in $SVC_HOME/secrets (${join(home, 'secrets')}); store it with \`svc secret set alert-escalation/rotated\``,
    ].join('\n'));
  });

  it('a directory that is not there is one line saying how to make one, not a missing file each', () => {
    const missing = join(root, 'no-such-agent');
    assert.equal(errorOf(() => loadAgentDir(missing, ctx)),
      `${missing}: no such agent directory (svc init --template alert-escalation --provider rules DIR makes one)`);
  });

  it('reports duplicate source and channel ids within an agent', () => {
    const dir = agentDir({
      sources: `${SOURCES}  - id: alertmanager\n    type: webhook\n    port: 8788\n    secret: \${secret:alert-escalation/webhook-hmac}\n`,
      channels: `${CHANNELS}  - id: oncall-dm\n    type: file\n    direction: outbound\n    path: b.jsonl\n`,
    });
    const s = join(dir, 'event-sources.yaml');
    const c = join(dir, 'channels.yaml');
    assert.equal(errorOf(() => loadAgentDir(dir, ctx)), [
      `${s}:6:9: sources.1.id: duplicate source id "alertmanager" (first at ${s}:2:9)`,
      `${c}:6:9: channels.1.id: duplicate channel id "oncall-dm" (first at ${c}:2:9)`,
    ].join('\n'));
  });

  it('reports a missing agent.yaml', () => {
    const dir = join(root, 'empty');
    mkdirSync(dir);
    assert.equal(errorOf(() => loadAgentDir(dir, ctx)), [
      `${join(dir, 'agent.yaml')}: file not found`,
      `${join(dir, 'event-sources.yaml')}: file not found`,
      `${join(dir, 'channels.yaml')}: file not found`,
    ].join('\n'));
  });
});

describe('loadAgents', () => {
  it('loads several agents in order', () => {
    const a = agentDir({ agent: 'id: a\nprovider: rules\n' });
    const b = agentDir({ agent: 'id: b\nprovider: rules\n', sources: SOURCES.replace('alertmanager', 'grafana') });
    assert.deepEqual(loadAgents([a, b], ctx).map((l) => [l.agent.id, l.sources[0]?.id]), [['a', 'alertmanager'], ['b', 'grafana']]);
  });

  it('rejects duplicate agent ids across directories', () => {
    const a = agentDir({ agent: 'id: same\nprovider: rules\n' });
    const b = agentDir({ agent: '# second\nid: same\nprovider: rules\n', sources: SOURCES.replace('8787', '8790') });
    assert.equal(errorOf(() => loadAgents([a, b], ctx)),
      `${join(b, 'agent.yaml')}:2:5: id: duplicate agent id "same" (also in ${join(a, 'agent.yaml')}:1:5)`);
  });

  it('rejects the same source id on the same port, allows it on another port', () => {
    const a = agentDir({ agent: 'id: a\nprovider: rules\n' });
    const b = agentDir({ agent: 'id: b\nprovider: rules\n' });
    const c = agentDir({ agent: 'id: c\nprovider: rules\n', sources: SOURCES.replace('8787', '8799') });
    assert.equal(errorOf(() => loadAgents([a, b], ctx)),
      `${join(b, 'event-sources.yaml')}:2:9: sources.0.id: source id "alertmanager" is already served on port 8787 (${join(a, 'event-sources.yaml')}:2:9)`);
    assert.equal(loadAgents([a, c], ctx).length, 2);
  });

  it('console: (the team console, §24.6): loaded with its defaults; a literal client secret, a bad publicUrl or agents that disagree are refused at their positions', () => {
    const block = (secret: string, url = 'https://svc.example.com'): string => `console:\n  port: 9470\n  publicUrl: ${url}\n  oidc:\n`
      + `    issuer: https://id.example.com\n    clientId: svc-team\n    clientSecret: ${secret}\n`;
    const env = { ...ctx, env: { ...ctx.env, TEAM_SECRET: 'from-the-environment' } };
    const ok = loadAgentDir(agentDir({ agent: `id: a\nprovider: rules\n${block('${env:TEAM_SECRET}')}` }), env);
    assert.deepEqual(ok.agent.console, { bind: '127.0.0.1', port: 9470, publicUrl: 'https://svc.example.com', maxConnections: 128,
      oidc: { issuer: 'https://id.example.com', clientId: 'svc-team', clientSecret: 'from-the-environment', scopes: ['email', 'profile'] } });
    const literal = agentDir({ agent: `id: a\nprovider: rules\n${block('hunter2-team-secret')}` });
    const msg = errorOf(() => loadAgentDir(literal, env));
    assert.equal(msg, `${join(literal, 'agent.yaml')}:9:19: console.oidc.clientSecret: must be a \${env:…}, \${file:…} or \${secret:…} reference, not a literal secret`);
    const query = agentDir({ agent: `id: a\nprovider: rules\n${block('${env:TEAM_SECRET}', 'https://svc.example.com/?x=1')}` });
    assert.equal(errorOf(() => loadAgentDir(query, env)), `${join(query, 'agent.yaml')}:5:14: console.publicUrl: must not carry a query or a fragment`);
    const a = agentDir({ agent: `id: a\nprovider: rules\n${block('${env:TEAM_SECRET}')}` });
    const b = agentDir({ agent: `id: b\nprovider: rules\n${block('${env:TEAM_SECRET}', 'https://other.example.com')}`, sources: SOURCES.replace('8787', '8791') });
    assert.match(errorOf(() => loadAgents([a, b], env)), /console: differs from .+ in console\.publicUrl; agents that set console must agree$/);
  });

  it('controlPlane.auth.console.clientId: the console\'s public client is kept; a bad one or an unknown key is refused, naming it', () => {
    const auth = (console: string): string => `id: a\nprovider: rules\ncontrolPlane:\n  auth:\n    enabled: true\n    issuer: https://id.example.com\n    audience: svc\n    console: ${console}\n`;
    const ok = loadAgentDir(agentDir({ agent: auth('{ clientId: svc-console }') }), ctx);
    assert.deepEqual(ok.agent.controlPlane?.auth?.console, { clientId: 'svc-console' });
    const bad = agentDir({ agent: auth('{ clientId: "svc console" }') });
    assert.match(errorOf(() => loadAgentDir(bad, ctx)), /agent\.yaml:8:\d+: controlPlane\.auth\.console\.clientId: must be 1-256 visible ASCII characters/);
    const unknown = agentDir({ agent: auth('{ clientId: c, secret: x }') });
    assert.match(errorOf(() => loadAgentDir(unknown, ctx)), /controlPlane\.auth\.console.*secret/);
  });

  it('rejects sources sharing a port with different bind addresses', () => {
    const a = agentDir({ agent: 'id: a\nprovider: rules\n' });
    const b = agentDir({ agent: 'id: b\nprovider: rules\n',
      sources: SOURCES.replace('alertmanager', 'other').replace('port: 8787', 'port: 8787\n    bind: 0.0.0.0') });
    assert.equal(errorOf(() => loadAgents([a, b], ctx)),
      `${join(b, 'event-sources.yaml')}:5:11: sources.0.bind: port 8787 is also used with bind "127.0.0.1" (${join(a, 'event-sources.yaml')}:2:5); sources sharing a port must share the bind address`);
  });

  it('requires agents that set controlPlane to agree, naming both files and the differing key', () => {
    const a = agentDir({ agent: 'id: a\nprovider: rules\ncontrolPlane:\n  port: 9464\n' });
    const b = agentDir({ agent: 'id: b\nprovider: rules\n', sources: SOURCES.replace('8787', '8801') });
    const c = agentDir({ agent: 'id: c\nprovider: rules\ncontrolPlane: { bind: 127.0.0.1 }\n', sources: SOURCES.replace('8787', '8802') });
    const d = agentDir({ agent: 'id: d\nprovider: rules\n\ncontrolPlane:\n  port: 9999\n', sources: SOURCES.replace('8787', '8803') });
    // Equal after defaults (bind 127.0.0.1, port 9464), and b does not set it: no problem.
    assert.equal(loadAgents([a, b, c], ctx).length, 3);
    assert.equal(errorOf(() => loadAgents([a, b, d], ctx)),
      `${join(d, 'agent.yaml')}:5:3: controlPlane: differs from ${join(a, 'agent.yaml')}:4:3 in controlPlane.port; agents that set controlPlane must agree`);
  });

  it('collects the problems of every directory', () => {
    const a = agentDir({ agent: 'id: a\nprovider: rules\nskills: [nope.md]\n' });
    const b = agentDir({ agent: 'id: b\nprovider: openai\n', sources: SOURCES.replace('8787', '8804') });
    assert.equal(errorOf(() => loadAgents([a, b], ctx)), [
      `${join(a, 'agent.yaml')}:3:10: skills.0: file not found: nope.md`,
      `${join(b, 'agent.yaml')}:1:1: model: required key missing (provider openai)`,
      `${join(b, 'agent.yaml')}:2:11: provider: no API key for provider "openai": set OPENAI_API_KEY in the environment, or apiKey: \${env:NAME} or \${secret:PATH} in agent.yaml`,
    ].join('\n'));
  });
});

describe('mcpServers, rateLimits, rules.lookup and audit', () => {
  const MCP = 'mcpServers:\n  - id: runbooks\n    command: node\n    args: [./mcp.js]\n';

  it('loads them with their defaults', () => {
    const dir = agentDir({ agent: `${AGENT}${MCP}rules:\n  lookup: { server: runbooks, tool: lookup_runbook }\n`
      + 'rateLimits:\n  provider: { perSecond: 0.5, burst: 2 }\n  tools: { lookup_runbook: { perSecond: 1, burst: 1 } }\n'
      + 'audit:\n  export:\n    - id: siem\n      type: http\n      url: http://127.0.0.1:8088/audit\n'
      + '    - id: syslog\n      type: syslog\n      address: 127.0.0.1:6514\n' });
    const { agent } = loadAgentDir(dir, ctx);
    assert.deepEqual(agent.mcpServers[0], { id: 'runbooks', command: 'node', args: ['./mcp.js'], env: {}, callTimeoutMs: 30_000,
      pingIntervalMs: 10_000, pingTimeoutMs: 5_000, restart: { initialBackoffMs: 500, maxBackoffMs: 30_000 },
      circuit: { failureThreshold: 5, openMs: 30_000 }, drainTimeoutMs: 5_000 });
    assert.deepEqual(agent.rules, { lookup: { server: 'runbooks', tool: 'lookup_runbook', timeoutMs: 10_000 } });
    assert.deepEqual(agent.rateLimits, { provider: { perSecond: 0.5, burst: 2 }, tools: { lookup_runbook: { perSecond: 1, burst: 1 } } });
    assert.equal(agent.audit?.export.length, 2);
    assert.deepEqual(agent.audit?.backpressure, { maxBacklogRows: 10_000 });
    assert.deepEqual(agent.audit?.export[1], { id: 'syslog', type: 'syslog', address: '127.0.0.1:6514', appName: 'svc',
      batchMaxRows: 500, timeoutMs: 10_000, retry: { initialBackoffMs: 500, maxBackoffMs: 30_000 } });
  });

  it('rejects a lookup of an undeclared server, duplicate ids and inverted bounds, naming each key', () => {
    const dir = agentDir({ agent: `${AGENT}${MCP}  - id: runbooks\n    command: node\n    restart: { initialBackoffMs: 900, maxBackoffMs: 100 }\n`
      + 'rules:\n  lookup: { server: pager, tool: x }\n'
      + 'audit:\n  export:\n    - { id: a, type: http, url: "http://127.0.0.1:1/x" }\n    - { id: a, type: syslog, address: "h:1" }\n'
      + '  backpressure: { maxBacklogRows: 10, resumeBelowRows: 10 }\n  batch: { minIntervalMs: 500, maxIntervalMs: 100 }\n' });
    const message = errorOf(() => loadAgentDir(dir, ctx));
    assert.match(message, /mcpServers\.1\.id: duplicate MCP server id "runbooks"/);
    assert.match(message, /mcpServers\.1\.restart\.initialBackoffMs: must not exceed/);
    assert.match(message, /rules\.lookup\.server: no MCP server "pager"/);
    assert.match(message, /audit\.export\.1\.id: duplicate exporter id "a"/);
    assert.match(message, /audit\.backpressure\.resumeBelowRows: must be below maxBacklogRows/);
    assert.match(message, /audit\.batch\.minIntervalMs: must not exceed/);
  });

  it('rejects a literal exporter token and a malformed syslog address', () => {
    const dir = agentDir({ agent: `${AGENT}audit:\n  export:\n    - { id: a, type: http, url: "http://127.0.0.1:1/x", token: hunter2-literal }\n`
      + '    - { id: b, type: syslog, address: "no-port" }\n    - { id: c, type: syslog, address: "h:70000" }\n' });
    const message = errorOf(() => loadAgentDir(dir, ctx));
    assert.match(message, /audit\.export\.0\.token/);
    assert.match(message, /audit\.export\.1\.address: must be host:port/);
    assert.match(message, /audit\.export\.2\.address: port must be 1-65535/);
    assert.doesNotMatch(message, /hunter2/);
  });

  it('requires MCP server ids unique across agents and agents that set audit to agree', () => {
    const audit = (url: string) => `audit:\n  export:\n    - { id: siem, type: http, url: "${url}" }\n`;
    const a = agentDir({ agent: `${AGENT}${MCP}${audit('http://127.0.0.1:1/a')}` });
    const b = agentDir({ agent: `id: billing\nprovider: rules\n${MCP}${audit('http://127.0.0.1:1/b')}`,
      sources: SOURCES.replace('8787', '8788') });
    const message = errorOf(() => loadAgents([a, b], ctx));
    assert.match(message, /mcpServers\.0\.id: MCP server id "runbooks" is also declared at/);
    assert.match(message, /audit: differs from .* in audit\.export\.0\.url; agents that set audit must agree/);
    assert.doesNotMatch(message, /127\.0\.0\.1:1\/b/);
  });
});

describe('real providers (anthropic, openai)', () => {
  const KEY = 'sk-ant-test-0123456789abcdef';
  const withKey = { ...ctx, env: { ...ctx.env, ANTHROPIC_API_KEY: KEY, OPENAI_API_KEY: 'sk-proj-test-0123456789' } };

  it('take the key from ANTHROPIC_API_KEY / OPENAI_API_KEY and fill in baseUrl and the llm defaults', () => {
    const a = loadAgentDir(agentDir({ agent: 'id: a\nprovider: anthropic\nmodel: claude-haiku-4-5\n' }), withKey).agent;
    assert.equal(a.apiKey, KEY);
    assert.equal(a.baseUrl, 'https://api.anthropic.com');
    assert.deepEqual(a.llm, { maxSteps: 8, maxTokens: 1024, temperature: 0, callTimeoutMs: 30_000, triageTimeoutMs: 120_000,
      onFailure: 'rules', severityFloor: 'rules', maxAttempts: 3, retry: { initialBackoffMs: 500, maxBackoffMs: 30_000 } });
    const o = loadAgentDir(agentDir({ agent: 'id: o\nprovider: openai\nmodel: llama3\nbaseUrl: http://127.0.0.1:8000/v1\n'
      + 'tools: [runbooks__*]\nllm: { maxSteps: 4, onFailure: dead-letter, temperature: 1.5 }\n' }), withKey).agent;
    assert.equal(o.apiKey, 'sk-proj-test-0123456789');
    assert.equal(o.baseUrl, 'http://127.0.0.1:8000/v1');
    assert.deepEqual(o.tools, ['runbooks__*']);
    assert.equal(o.llm?.maxSteps, 4);
    assert.equal(o.llm?.onFailure, 'dead-letter');
    assert.equal(loadAgentDir(agentDir({ agent: 'id: d\nprovider: openai\nmodel: m\n' }), withKey).agent.baseUrl, 'https://api.openai.com/v1');
  });

  it('take apiKey from a reference, and refuse a literal one without quoting it', () => {
    const env = { ...ctx, env: { ...ctx.env, MY_MODEL_KEY: 'sk-from-my-var-123456' } };
    assert.equal(loadAgentDir(agentDir({ agent: 'id: a\nprovider: openai\nmodel: m\napiKey: ${env:MY_MODEL_KEY}\n' }), env).agent.apiKey,
      'sk-from-my-var-123456');
    const dir = agentDir({ agent: 'id: a\nprovider: openai\nmodel: m\napiKey: sk-literal-in-the-file-999\n' });
    const message = errorOf(() => loadAgentDir(dir, env));
    assert.equal(message, `${join(dir, 'agent.yaml')}:4:9: apiKey: must be a \${env:…}, \${file:…} or \${secret:…} reference, not a literal secret`);
  });

  it('exit 2 material: a missing key names the variable, never a value', () => {
    const dir = agentDir({ agent: 'id: a\n\nprovider: anthropic\nmodel: claude-haiku-4-5\n' });
    assert.equal(errorOf(() => loadAgentDir(dir, { ...ctx, env: { ...ctx.env, ANTHROPIC_API_KEY: '  ' } })),
      `${join(dir, 'agent.yaml')}:3:11: provider: no API key for provider "anthropic": set ANTHROPIC_API_KEY in the environment, or apiKey: \${env:NAME} or \${secret:PATH} in agent.yaml`);
    const unset = agentDir({ agent: 'id: a\nprovider: openai\nmodel: m\napiKey: ${env:NOT_SET_ANYWHERE}\n' });
    assert.match(errorOf(() => loadAgentDir(unset, ctx)), /apiKey: environment variable "NOT_SET_ANYWHERE" is not set/);
    const spaced = agentDir({ agent: 'id: a\nprovider: openai\nmodel: m\napiKey: ${env:SPACED}\n' });
    const message = errorOf(() => loadAgentDir(spaced, { ...ctx, env: { SPACED: 'sk-has a-space' } }));
    assert.match(message, /apiKey: the API key must be printable ASCII without spaces/);
    assert.doesNotMatch(message, /has a-space/);
  });

  it('reject a bad baseUrl, an unknown llm key, a missing model and bounds that contradict each other', () => {
    const dir = agentDir({ agent: ['id: a', 'provider: anthropic', 'baseUrl: not a url',
      'llm:', '  maxSteps: 0', '  reasoning: high', '  temperature: 1.5', '  callTimeoutMs: 9000', '  triageTimeoutMs: 5000', ''].join('\n') });
    const file = join(dir, 'agent.yaml');
    assert.equal(errorOf(() => loadAgentDir(dir, withKey)), [
      `${file}:3:10: baseUrl: must be an http(s) URL`,
      `${file}:5:13: llm.maxSteps: must be >= 1`,
      `${file}:6:3: llm.reasoning: unknown key "reasoning"`,
    ].join('\n'));
    const semantic = agentDir({ agent: ['id: a', 'provider: anthropic', 'baseUrl: https://user:pw@api.example.com/v1?x=1',
      'llm:', '  temperature: 1.5', '  callTimeoutMs: 9000', '  triageTimeoutMs: 5000', ''].join('\n') });
    const s = join(semantic, 'agent.yaml');
    const message = errorOf(() => loadAgentDir(semantic, withKey));
    assert.equal(message, [
      `${s}:1:1: model: required key missing (provider anthropic)`,
      `${s}:3:10: baseUrl: must not contain credentials (use apiKey)`,
      `${s}:3:10: baseUrl: must not contain a query or a fragment`,
      `${s}:3:10: baseUrl: must not end in /v1: svc appends /v1/messages (e.g. https://api.anthropic.com)`,
      `${s}:5:16: llm.temperature: must be <= 1 for provider anthropic`,
      `${s}:6:18: llm.callTimeoutMs: must not exceed llm.triageTimeoutMs`,
    ].join('\n'));
    assert.doesNotMatch(message, /pw@/);
  });

  it('take llm.severityFloor as rules or a fixed severity, and name the line and column of a bad one', () => {
    const p2 = loadAgentDir(agentDir({ agent: 'id: a\nprovider: anthropic\nmodel: m\nllm: { severityFloor: P2 }\n' }), withKey).agent;
    assert.equal(p2.llm?.severityFloor, 'P2');
    const dir = agentDir({ agent: ['id: a', 'provider: anthropic', 'model: m', 'llm:', '  severityFloor: critical', ''].join('\n') });
    assert.equal(errorOf(() => loadAgentDir(dir, withKey)),
      `${join(dir, 'agent.yaml')}:5:18: llm.severityFloor: expected one of "rules", "P1", "P2", "P3"`);
  });

  it('rules takes none of their keys', () => {
    const dir = agentDir({ agent: 'id: a\nprovider: rules\nmodel: m\ntools: [x]\nllm: { maxSteps: 2 }\n' });
    const file = join(dir, 'agent.yaml');
    assert.equal(errorOf(() => loadAgentDir(dir, withKey)), [
      `${file}:3:8: model: applies to providers "anthropic" and "openai" only`,
      `${file}:4:8: tools: applies to providers "anthropic" and "openai" only`,
      `${file}:5:6: llm: applies to providers "anthropic" and "openai" only`,
    ].join('\n'));
  });
});

describe('source authentication, tls and MCP commands (contract §12, §13)', () => {
  writeSecret(home, 'alert-escalation/webhook-token', 'token-0123456789abcdef0123');
  const source = (extra: string): string => 'sources:\n  - id: am\n    type: webhook\n    port: 8787\n' + extra;

  it('a bearer token alone is enough; HMAC is optional then', () => {
    const loaded = loadAgentDir(agentDir({ sources: source('    bearerToken: ${secret:alert-escalation/webhook-token}\n') }), ctx);
    assert.equal(loaded.sources[0]?.bearerToken, 'token-0123456789abcdef0123');
    assert.equal(loaded.sources[0]?.secret, undefined);
  });

  it('a bearer token with characters Authorization: Bearer cannot carry is refused, without quoting it', () => {
    writeSecret(home, 'alert-escalation/bad-token', 'S3CRET token with spaces!');
    const message = errorOf(() => loadAgentDir(agentDir({ sources: source('    bearerToken: ${secret:alert-escalation/bad-token}\n') }), ctx));
    assert.match(message, /sources\.0\.bearerToken: must be token68 characters/);
    assert.ok(!message.includes('S3CRET'), message);
  });

  it('a source without any method, a literal token or password, and a timestamp without HMAC are refused', () => {
    const dir = agentDir({ sources: source('    timestampHeader: X-Ts\n') });
    const message = errorOf(() => loadAgentDir(dir, ctx));
    assert.match(message, /sources\.0\.secret: needs at least one authentication method: secret \(HMAC\), bearerToken or basicAuth/);
    assert.match(message, /sources\.0\.timestampHeader: applies to HMAC signatures only/);
    const literal = agentDir({ sources: source('    bearerToken: literal-token-0123456789\n    basicAuth: { username: am, password: literal-password-0123 }\n') });
    const text = errorOf(() => loadAgentDir(literal, ctx));
    assert.match(text, /sources\.0\.bearerToken: must be a \$\{env:…\}/);
    assert.match(text, /sources\.0\.basicAuth\.password: must be a \$\{env:…\}/);
    assert.ok(!text.includes('literal-'), 'the error quotes a secret');
  });

  it('tls must be PEM text that forms a usable pair', () => {
    writeFileSync(join(root, 'not-a-cert.pem'), '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
    writeSecret(home, 'alert-escalation/tls-key', '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----');
    const dir = agentDir({ sources: source(`    secret: \${secret:alert-escalation/webhook-hmac}\n    tls: { cert: "\${file:${join(root, 'not-a-cert.pem')}}", key: "\${secret:alert-escalation/tls-key}" }\n`) });
    assert.match(errorOf(() => loadAgentDir(dir, ctx)), /sources\.0\.tls: certificate and key are not a usable pair/);
  });

  it('an MCP server whose command does not exist is a configuration error naming it', () => {
    const dir = agentDir({ agent: `${AGENT}mcpServers:\n  - id: runbooks\n    command: no-such-command-svc\n  - id: local\n    command: ./bin/missing.sh\n` });
    const message = errorOf(() => loadAgentDir(dir, ctx));
    assert.match(message, /agent\.yaml:6:14: mcpServers\.0\.command: MCP server "runbooks": command "no-such-command-svc" not found on PATH/);
    assert.match(message, /mcpServers\.1\.command: MCP server "local": command "\.\/bin\/missing\.sh" not found relative to the agent directory/);
  });
});

describe('audit.checkpoints.key (contract §20.2)', () => {
  const block = (key: string): string => `${AGENT}audit:\n  checkpoints:\n    key: ${key}\n`;

  it('an Ed25519 PEM through ${secret:…} loads; the defaults apply', () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    writeSecret(home, 'audit/checkpoint-key', privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
    const loaded = loadAgentDir(agentDir({ agent: block('${secret:audit/checkpoint-key}') }), ctx);
    assert.deepEqual({ ...loaded.agent.audit?.checkpoints, key: loaded.agent.audit?.checkpoints?.key.startsWith('-----BEGIN PRIVATE KEY-----') },
      { key: true, everyRows: 1000, everySeconds: 60 });
  });

  it('a literal, another reference kind, or a key that is not Ed25519 is refused at file:line:col, never quoting the key', () => {
    const literal = agentDir({ agent: block('not-a-reference-0123') });
    assert.equal(errorOf(() => loadAgentDir(literal, ctx)),
      `${join(literal, 'agent.yaml')}:6:10: audit.checkpoints.key: must be a \${env:…}, \${file:…} or \${secret:…} reference, not a literal secret`);
    const viaEnv = agentDir({ agent: block('${env:SLACK_BOT_TOKEN}') });
    assert.equal(errorOf(() => loadAgentDir(viaEnv, ctx)),
      `${join(viaEnv, 'agent.yaml')}:6:10: audit.checkpoints.key: must be a \${secret:…} reference to an Ed25519 private key (PEM), e.g. \${secret:audit/checkpoint-key}`);
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    writeSecret(home, 'audit/ec-key', privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
    const ec = agentDir({ agent: block('${secret:audit/ec-key}') });
    const message = errorOf(() => loadAgentDir(ec, ctx));
    assert.equal(message, `${join(ec, 'agent.yaml')}:6:10: audit.checkpoints.key: the referenced secret is a ec key, not Ed25519; `
      + 'create one with `svc init … --checkpoint-key` or `openssl genpkey -algorithm ed25519`');
    assert.doesNotMatch(message, /BEGIN/);
  });
});

describe('the ack source (contract §18.6)', () => {
  const ACK = ['  - id: ack-links', '    type: ack', '    port: 8790', '    secret: ${secret:alert-escalation/webhook-hmac}', ''].join('\n');

  it('loads beside the webhook sources, which stay the ingest list, with bind 127.0.0.1 by default', () => {
    const loaded = loadAgentDir(agentDir({ sources: `${SOURCES}${ACK}    publicUrl: https://svc.example.com/ack\n` }), ctx);
    assert.deepEqual(loaded.sources.map((s) => s.id), ['alertmanager']);
    assert.deepEqual(loaded.ackSource, { id: 'ack-links', type: 'ack', port: 8790, bind: '127.0.0.1', secret: HMAC,
      publicUrl: 'https://svc.example.com/ack', maxConnections: 512 });
  });

  it('refuses a literal secret, a second ack source, a publicUrl with a query and a port a webhook source uses', () => {
    const dir = agentDir({ sources: `${SOURCES}${ACK.replace('${secret:alert-escalation/webhook-hmac}', 'literal-secret-value-123')}` });
    const literal = errorOf(() => loadAgentDir(dir, ctx));
    assert.match(literal, /sources\.1\.secret: must be a \$\{env:/);
    assert.doesNotMatch(literal, /literal-secret-value-123/);
    const two = errorOf(() => loadAgentDir(agentDir({ sources: `${SOURCES}${ACK}${ACK.replace('ack-links', 'more').replace('8790', '8791')}` }), ctx));
    assert.match(two, /sources\.2\.type: an agent has at most one ack source/);
    const query = errorOf(() => loadAgentDir(agentDir({ sources: `${SOURCES}${ACK}    publicUrl: https://x.example/ack?a=1\n` }), ctx));
    assert.match(query, /sources\.1\.publicUrl: must not carry a query or a fragment/);
    const shared = errorOf(() => loadAgents([agentDir({ sources: `${SOURCES}${ACK.replace('8790', '8787')}` })], ctx));
    assert.match(shared, /sources\.1\.port: port 8787 is also used by .*event-sources\.yaml:2:\d+; an ack source needs a port of its own/);
  });
});

describe('the slack source (contract §18.2)', () => {
  const SLACK = ['  - id: slack-actions', '    type: slack', '    port: 8789', '    signingSecret: ${secret:alert-escalation/webhook-hmac}', ''].join('\n');
  it('loads as slackSource; a literal signing secret and a shared port are refused', () => {
    assert.deepEqual(loadAgentDir(agentDir({ sources: `${SOURCES}${SLACK}` }), ctx).slackSource,
      { id: 'slack-actions', type: 'slack', port: 8789, bind: '127.0.0.1', signingSecret: HMAC, maxConnections: 512 });
    const literal = errorOf(() => loadAgentDir(agentDir({ sources: `${SOURCES}${SLACK.replace('${secret:alert-escalation/webhook-hmac}', 'literal-signing-secret-1')}` }), ctx));
    assert.match(literal, /sources\.1\.signingSecret: must be a \$\{env:/);
    assert.doesNotMatch(literal, /literal-signing-secret-1/);
    const shared = errorOf(() => loadAgents([agentDir({ sources: `${SOURCES}${SLACK.replace('8789', '8787')}` })], ctx));
    assert.match(shared, /sources\.1\.port: port 8787 is also used by .*; a slack source needs a port of its own/);
  });
});

describe('a channel\'s own recipient: slack user or conversation (contract §18, §24.2)', () => {
  const slack = (id: string, ...keys: string[]): string => [`  - id: ${id}`, '    type: slack', '    direction: outbound',
    '    token: ${env:SLACK_BOT_TOKEN}', ...keys.map((k) => `    ${k}`), ''].join('\n');

  it('conversation names a shared channel, no user needed; neither is needed once oncall.yaml is there', () => {
    assert.deepEqual(loadAgentDir(agentDir({ channels: `${CHANNELS}${slack('slack-room', 'conversation: C0123ABC')}` }), ctx).channels[1],
      { id: 'slack-room', type: 'slack', direction: 'outbound', token: 'xoxb-123', conversation: 'C0123ABC', apiUrl: 'https://slack.com/api',
        timeoutMs: 10_000 });
    assert.equal(loadAgentDir(agentDir({ channels: `${CHANNELS}${slack('slack-dm')}`, oncall: '' }), ctx).channels[1]?.id, 'slack-dm');
  });

  it('both user and conversation, or a channel name for an id: named where they are', () => {
    const dir = agentDir({ channels: `${CHANNELS}${slack('both', 'user: U42', 'conversation: C0123ABC')}${slack('named', 'conversation: "#oncall"')}` });
    const file = join(dir, 'channels.yaml');
    assert.deepEqual(errorOf(() => loadAgentDir(dir, ctx)).split('\n'), [
      `${file}:11:19: channels.1.conversation: set user (direct messages to one Slack user) or conversation (messages into a shared channel), `
        + 'not both: people\'s direct messages come from their contacts in oncall.yaml',
      `${file}:16:19: channels.2.conversation: must be a Slack conversation id such as C0123ABCDEF (in Slack: the channel's details, at the bottom `
        + 'of About), not a name like #oncall',
    ]);
  });

  it('neither, without oncall.yaml: every message would name no person, so it is refused — on each type whose recipient is optional', () => {
    const BOT = '110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
    const channels = `${CHANNELS}${slack('slack-dm')}  - { id: tg, type: telegram, direction: outbound, token: "\${env:TELEGRAM_BOT_TOKEN}" }\n`;
    const dir = agentDir({ channels });
    const withBot = { ...ctx, env: { ...ctx.env, TELEGRAM_BOT_TOKEN: BOT } };
    const file = join(dir, 'channels.yaml');
    assert.deepEqual(errorOf(() => loadAgentDir(dir, withBot)).split('\n'), [
      `${file}:6:5: channels.1: channel slack-dm (type: slack) has no \`user\` or \`conversation\`: it sends only to people's contacts in oncall.yaml, `
        + 'and this agent has no oncall.yaml: every message goes to the channel\'s own recipient, so set one',
      `${file}:10:5: channels.2: channel tg (type: telegram) has no \`chat\`: it sends only to people's contacts in oncall.yaml, `
        + 'and this agent has no oncall.yaml: every message goes to the channel\'s own recipient, so set one',
    ]);
    assert.deepEqual(loadAgentDir(agentDir({ channels, oncall: '' }), withBot).channels.map((c) => c.id), ['oncall-dm', 'slack-dm', 'tg']);
  });
});

describe('twilio and telegram channels, the twilio source (contract §21.4, §21.5)', () => {
  const TOKEN = 'f0e1d2c3b4a5968778695a4b3c2d1e0f';
  const BOT = '110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
  const env = { ...ctx, env: { ...ctx.env, TWILIO_AUTH_TOKEN: TOKEN, TELEGRAM_BOT_TOKEN: BOT } };
  const twilio = (id: string, mode: string, extra: string[] = []): string => [`  - id: ${id}`, '    type: twilio', '    direction: outbound',
    `    accountSid: AC${'0123456789abcdef'.repeat(2)}`, '    authToken: ${env:TWILIO_AUTH_TOKEN}', '    from: "+15005550006"', `    mode: ${mode}`, ...extra, ''].join('\n');
  const TELEGRAM = ['  - id: tg', '    type: telegram', '    direction: outbound', '    token: ${env:TELEGRAM_BOT_TOKEN}', '    chat: 123456789', ''].join('\n');
  const source = (id: string, channel: string, port: number): string =>
    `  - { id: ${id}, type: twilio, port: ${port}, publicUrl: "https://svc.example.com/twilio", channel: ${channel} }\n`;

  it('load with their defaults; the twilio sources are listed apart from the ingest sources', () => {
    const loaded = loadAgentDir(agentDir({ channels: `${CHANNELS}${twilio('sms', 'sms')}${twilio('phone', 'voice')}${TELEGRAM}`,
      sources: `${SOURCES}${source('twilio-phone', 'phone', 8791)}`, oncall: '' }), env);
    assert.deepEqual(loaded.sources.map((s) => s.id), ['alertmanager']);
    assert.deepEqual(loaded.twilioSources, [{ id: 'twilio-phone', type: 'twilio', port: 8791, bind: '127.0.0.1', publicUrl: 'https://svc.example.com/twilio',
      channel: 'phone', maxConnections: 512 }]);
    assert.deepEqual(loaded.channels[1], { id: 'sms', type: 'twilio', direction: 'outbound', accountSid: `AC${'0123456789abcdef'.repeat(2)}`,
      authToken: TOKEN, from: '+15005550006', mode: 'sms', apiUrl: 'https://api.twilio.com', timeoutMs: 10_000 });
    assert.deepEqual(loaded.channels[3], { id: 'tg', type: 'telegram', direction: 'outbound', token: BOT, chat: '123456789',
      apiUrl: 'https://api.telegram.org', timeoutMs: 10_000 });
  });

  it('a voice channel without its source, a source naming no twilio channel or one already served: each named where it is', () => {
    const dir = agentDir({ channels: `${CHANNELS}${twilio('phone', 'voice')}`,
      sources: `${SOURCES}${source('t1', 'oncall-dm', 8791)}${source('t2', 'nope', 8792)}`, oncall: '' });
    assert.deepEqual(errorOf(() => loadAgentDir(dir, env)).split('\n'), [
      `${join(dir, 'event-sources.yaml')}:6:95: sources.1.channel: no type: twilio channel "oncall-dm" in channels.yaml (its twilio channels: phone)`,
      `${join(dir, 'event-sources.yaml')}:7:95: sources.2.channel: no type: twilio channel "nope" in channels.yaml (its twilio channels: phone)`,
      `${join(dir, 'channels.yaml')}:12:11: channels.1.mode: voice calls fetch their TwiML from a type: twilio source: add one to event-sources.yaml `
        + 'with channel: phone and a publicUrl Twilio can reach',
    ]);
    const twice = agentDir({ channels: `${CHANNELS}${twilio('phone', 'voice')}`, sources: `${SOURCES}${source('t1', 'phone', 8791)}${source('t2', 'phone', 8792)}`,
      oncall: '' });
    assert.match(errorOf(() => loadAgentDir(twice, env)), /sources\.2\.channel: channel "phone" is already served by .*event-sources\.yaml:6:5; one source per Twilio channel/);
    const shared = errorOf(() => loadAgents([agentDir({ channels: `${CHANNELS}${twilio('phone', 'voice')}`, sources: `${SOURCES}${source('t1', 'phone', 8787)}`,
      oncall: '' })], env));
    assert.match(shared, /sources\.1\.port: port 8787 is also used by .*; a twilio source needs a port of its own/);
  });

  it('secrets only as references, never quoted; a SID, a number, a mode and a bot token of the wrong form are named', () => {
    const literal = agentDir({ channels: `${CHANNELS}${twilio('sms', 'sms').replace('${env:TWILIO_AUTH_TOKEN}', TOKEN)}${TELEGRAM.replace('${env:TELEGRAM_BOT_TOKEN}', BOT)}` });
    const message = errorOf(() => loadAgentDir(literal, env));
    assert.deepEqual(message.split('\n'), [
      `${join(literal, 'channels.yaml')}:10:16: channels.1.authToken: must be a \${env:…}, \${file:…} or \${secret:…} reference, not a literal secret`,
      `${join(literal, 'channels.yaml')}:16:12: channels.2.token: must be a \${env:…}, \${file:…} or \${secret:…} reference, not a literal secret`,
    ]);
    assert.ok(!message.includes(TOKEN) && !message.includes(BOT));
    const wrong = agentDir({ channels: `${CHANNELS}${twilio('sms', 'fax').replace(`AC${'0123456789abcdef'.repeat(2)}`, 'AC123').replace('"+15005550006"', '"015005550006"')}`
      + TELEGRAM.replace('123456789', '"@alice"') });
    const bad = errorOf(() => loadAgentDir(wrong, { ...env, env: { ...env.env, TELEGRAM_BOT_TOKEN: 'not-a-bot-token' } }));
    assert.match(bad, /channels\.1\.accountSid: must be a Twilio Account SID: AC followed by 32 hex digits/);
    assert.match(bad, /channels\.1\.from: must be a phone number in E\.164/);
    assert.match(bad, /channels\.1\.mode: /);
    assert.match(bad, /channels\.2\.token: must be a Telegram bot token as @BotFather gives it: <bot id>:<secret>/);
    assert.match(bad, /channels\.2\.chat: must be a Telegram chat id/);
    assert.doesNotMatch(bad, /not-a-bot-token/);
  });
});
