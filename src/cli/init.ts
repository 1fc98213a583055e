/**
 * `svc init --template alert-escalation --provider <p> [--id ID] [--port N] [--control-port N] [DIR]`:
 * writes the files of the template (contract §2, §12.4: `alertmanager.yml` too; §25.3: the ports in
 * every file that names them), never overwriting without --force, and creates
 * the referenced HMAC secret and bearer token in `$SVC_HOME/secrets` when they are missing. No secret
 * value is ever written into DIR. Agent ids are unique per `$SVC_HOME` (agent-registry.ts): a second
 * scaffold with an id already in use elsewhere is refused, naming the other directory.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHECKPOINT_SECRET, homePaths, svcHome } from '../config/paths.js';
import type { ProviderName } from '../config/schema.js';
import { DEFAULT_CONTROL_PLANE, PROVIDERS } from '../config/schema.js';
import { secretExists, writeSecret } from '../config/secrets.js';
import { ID_PATTERN } from '../config/schema.js';
import { RuntimeError, UsageError } from '../core/errors.js';
import { claimAgentId } from './agent-registry.js';
import type { CliContext } from './context.js';

export const TEMPLATES = ['alert-escalation'] as const;

/** Template file → scaffold file. `env.example` is stored without its dot so packaging keeps it. */
const FILES: ReadonlyArray<[string, string]> = [
  ['agent.yaml', 'agent.yaml'],
  ['event-sources.yaml', 'event-sources.yaml'],
  ['channels.yaml', 'channels.yaml'],
  ['skills/triage.md', 'skills/triage.md'],
  ['fixtures/mock-alert.json', 'fixtures/mock-alert.json'],
  // Alertmanager's resolved notification of the same group: it resolves the page the first one opened.
  ['fixtures/mock-alert-resolved.json', 'fixtures/mock-alert-resolved.json'],
  ['env.example', '.env.example'],
  ['README.md', 'README.md'],
  ['alertmanager.yml', 'alertmanager.yml'],
  // Pages, schedules and escalation (contract §17.12): renamed to oncall.yaml it turns them on.
  ['oncall.example.yaml', 'oncall.example.yaml'],
];

/** The template's agent id, and the folder of its secrets under `$SVC_HOME/secrets` (contract §12). */
const DEFAULT_ID = 'oncall-escalator';
const DEFAULT_SECRETS = 'alert-escalation';
/** The template's webhook port (contract §1); `--port` changes it. */
const INGEST_PORT = 8787;

/** A `--port`/`--control-port` value: a fixed TCP port (Alertmanager and the CLI must know where to go). */
function portOption(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const port = /^\d{1,5}$/.test(value) ? Number(value) : NaN;
  if (!(port >= 1 && port <= 65_535)) throw new UsageError(`svc init: ${flag} ${JSON.stringify(value.slice(0, 32))} must be a port number 1-65535`);
  return port;
}

/**
 * The control plane's block of agent.yaml (contract §3): written out when `--control-port` chose a
 * port, else a comment showing the default.
 */
function controlPlaneBlock(port: number | null): string {
  const on = port !== null;
  const c = on ? '' : '# ';
  return [
    '# The read-only HTTP control plane: svc ps, svc events, svc logs, /metrics, the console (docs/control-plane.md).',
    '# SVC_METRICS_PORT overrides the port; 0 turns the listener off.',
    `${c}controlPlane:`,
    `${c}  bind: ${DEFAULT_CONTROL_PLANE.bind}`,
    `${c}  port: ${port ?? DEFAULT_CONTROL_PLANE.port}`,
  ].join('\n');
}

/** The `audit.checkpoints` block of agent.yaml: on with `--checkpoint-key`, a comment without. */
function checkpointsBlock(on: boolean): string {
  const lines = [
    '# Signed checkpoints of the audit chain (docs/audit.md): `svc audit key` prints the public key,',
    '# `svc audit --verify --checkpoints $SVC_HOME/checkpoints.jsonl --public-key FILE` checks the store against them.',
    ...(on ? [] : ['# `svc init … --checkpoint-key` creates the key; then:']),
    `${on ? '' : '# '}audit:`,
    `${on ? '' : '# '}  checkpoints:`,
    `${on ? '' : '# '}    key: \${secret:${CHECKPOINT_SECRET}}`,
    `${on ? '' : '# '}    everyRows: 1000                   # a checkpoint after this many new rows,`,
    `${on ? '' : '# '}    everySeconds: 60                  # or after this long, whichever comes first (none while idle)`,
  ];
  return lines.join('\n');
}

/** Secret folder of an agent: the contract's names for the template's own id, the id otherwise. */
function secretFolder(id: string): string {
  return id === DEFAULT_ID ? DEFAULT_SECRETS : id;
}

/** What the template's placeholders become for each provider. */
const PROVIDER_VARS: Record<ProviderName, { model: string; env: string; readme: string; next: string }> = {
  rules: {
    model: '',
    env: '# The rules provider is built in and offline: it needs no key.',
    readme: 'The `rules` provider is built in, offline and deterministic: it applies `skills/triage.md` as fixed rules.',
    next: '',
  },
  anthropic: {
    model: [
      'model: claude-haiku-4-5',
      '# apiKey: ${env:ANTHROPIC_API_KEY}   # the default; or ${secret:<path>} after `svc secret set <path>`',
      '# baseUrl: https://api.anthropic.com',
      '# tools: [runbooks__*]               # MCP tools offered to the model, as <serverId>__<toolName> globs; default all',
      '# llm: { maxSteps: 8, maxTokens: 1024, temperature: 0, callTimeoutMs: 30000, triageTimeoutMs: 120000, onFailure: rules }',
      '',
    ].join('\n'),
    env: '# Anthropic Messages API key (required by provider anthropic)\nANTHROPIC_API_KEY=',
    readme: 'The `anthropic` provider triages with Claude (`model` in `agent.yaml`): `skills/triage.md` is its system prompt, '
      + 'the alert goes in as data, it may call the MCP tools the agent declares, and it answers through `submit_triage`. '
      + 'It needs `ANTHROPIC_API_KEY` in the environment (or `apiKey: ${secret:…}` in `agent.yaml`). When the model fails, '
      + 'the rules message goes out instead (`llm.onFailure: rules`, the default) and the audit chain says why.',
    next: 'export ANTHROPIC_API_KEY=… && ',
  },
  openai: {
    model: [
      'model: gpt-4o-mini',
      '# baseUrl: http://127.0.0.1:8000/v1   # any OpenAI-compatible endpoint (default https://api.openai.com/v1)',
      '# apiKey: ${env:OPENAI_API_KEY}       # the default; a local server that checks no key still needs some value',
      '# tools: [runbooks__*]                # MCP tools offered to the model, as <serverId>__<toolName> globs; default all',
      '# llm: { maxSteps: 8, maxTokens: 1024, temperature: 0, callTimeoutMs: 30000, triageTimeoutMs: 120000, onFailure: rules }',
      '',
    ].join('\n'),
    env: '# OpenAI-compatible endpoint key (required by provider openai; any value for a local server that checks none)\nOPENAI_API_KEY=',
    readme: 'The `openai` provider triages with any OpenAI-compatible chat-completions server (`model` and `baseUrl` in '
      + '`agent.yaml`; OpenAI by default, or a local model server): `skills/triage.md` is its system prompt, the alert goes '
      + 'in as data, it may call the MCP tools the agent declares, and it answers through `submit_triage`. It needs '
      + '`OPENAI_API_KEY` in the environment (or `apiKey: ${secret:…}`). When the model fails, the rules message goes out '
      + 'instead (`llm.onFailure: rules`, the default) and the audit chain says why.',
    next: 'export OPENAI_API_KEY=… && ',
  },
};

function templateDir(template: string): string {
  // dist/cli/init.js and src/cli/init.ts both sit two levels below the package root.
  return fileURLToPath(new URL(`../../templates/${template}/`, import.meta.url));
}

export function initCommand(
  dirArg: string | undefined,
  opts: { template?: string; provider?: string; force: boolean; id?: string; checkpointKey?: boolean; port?: string; controlPort?: string },
  ctx: CliContext,
): number {
  const template = opts.template;
  if (!template || !(TEMPLATES as readonly string[]).includes(template)) {
    throw new UsageError(`svc init: unknown template "${template ?? ''}"; valid templates: ${TEMPLATES.join(', ')}`);
  }
  const provider = opts.provider;
  if (!provider || !(PROVIDERS as readonly string[]).includes(provider)) {
    throw new UsageError(`svc init: unknown provider "${provider ?? ''}"; valid providers: ${PROVIDERS.join(', ')}`);
  }
  const vars = PROVIDER_VARS[provider as ProviderName];
  const agentId = opts.id ?? DEFAULT_ID;
  if (!ID_PATTERN.test(agentId)) throw new UsageError(`svc init: --id ${JSON.stringify(agentId)} must match ${ID_PATTERN.source}`);
  const ingestPort = portOption('--port', opts.port, INGEST_PORT);
  const controlPort = opts.controlPort === undefined ? null : portOption('--control-port', opts.controlPort, DEFAULT_CONTROL_PLANE.port);
  if (ingestPort === (controlPort ?? DEFAULT_CONTROL_PLANE.port)) {
    throw new UsageError(`svc init: the webhook source and the control plane cannot share port ${ingestPort}; choose another with ${controlPort === null ? '--control-port' : '--port'}`);
  }
  const dir = resolve(ctx.cwd, dirArg ?? `./${template}`);
  const existing = FILES.map(([, to]) => join(dir, to)).filter((p) => existsSync(p));
  if (existing.length > 0 && !opts.force) {
    throw new RuntimeError('EEXIST', `svc init: would overwrite ${existing.map((p) => relative(ctx.cwd, p) || p).join(', ')}; use --force to replace`);
  }
  const home = svcHome(ctx.env);
  // Before anything is written: an id another scaffold in this home uses is refused, naming it.
  claimAgentId(home, agentId, dir);
  const folder = secretFolder(agentId);
  const hmacSecret = `${folder}/webhook-hmac`;
  const tokenSecret = `${folder}/webhook-token`;
  const source = templateDir(template);
  for (const [from, to] of FILES) {
    const text = readFileSync(join(source, from), 'utf8')
      .replaceAll('{{AGENT_ID}}', agentId)
      .replaceAll('{{SECRETS}}', folder)
      .replaceAll('{{INGEST_URL}}', `http://127.0.0.1:${ingestPort}/webhooks/alertmanager`)
      .replaceAll('{{INGEST_PORT}}', String(ingestPort))
      .replaceAll('{{CONTROL_PLANE}}', controlPlaneBlock(controlPort))
      .replaceAll('{{TOKEN_FILE}}', join(homePaths(home).secrets, ...tokenSecret.split('/')))
      .replaceAll('{{PROVIDER}}', provider)
      .replaceAll('{{MODEL}}', vars.model)
      .replaceAll('{{PROVIDER_ENV}}', vars.env)
      .replaceAll('{{PROVIDER_README}}', vars.readme)
      .replaceAll('{{CHECKPOINTS}}', checkpointsBlock(opts.checkpointKey === true));
    const target = join(dir, to);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text);
  }
  const secretNotes = [hmacSecret, tokenSecret].map((name) => {
    if (secretExists(home, name)) return `kept the existing secret ${name}`;
    writeSecret(home, name, randomBytes(32).toString('hex'));
    return `created secret ${name} in ${join(home, 'secrets')} (mode 0600)`;
  });
  if (opts.checkpointKey === true) {
    if (secretExists(home, CHECKPOINT_SECRET)) secretNotes.push(`kept the existing secret ${CHECKPOINT_SECRET}`);
    else {
      // PKCS#8 PEM, as `openssl genpkey -algorithm ed25519` writes it.
      const { privateKey } = generateKeyPairSync('ed25519');
      writeSecret(home, CHECKPOINT_SECRET, privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
      secretNotes.push(`created the checkpoint key ${CHECKPOINT_SECRET} in ${join(home, 'secrets')} (mode 0600); svc audit key prints its public key`);
    }
  }
  const secretNote = secretNotes.join('\n  ');
  const shown = relative(ctx.cwd, dir) || '.';
  ctx.stdout(
    `svc init: scaffolded ${template} (provider ${provider}) in ${shown}\n` +
      FILES.map(([, to]) => `  ${to}\n`).join('') +
      `  ${secretNote}\n` +
      `next: cd ${shown} && ${vars.next}svc triage fixtures/mock-alert.json && svc up -d && svc webhook send fixtures/mock-alert.json\n`,
  );
  return 0;
}
