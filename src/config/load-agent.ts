/**
 * Loads agent directories (`agent.yaml`, `event-sources.yaml`, `channels.yaml`, skills) into
 * LoadedAgent values, and checks what only shows across files and agents: duplicate ids, ingest
 * routes that would collide, daemon-wide settings that disagree (contract §2a). Every problem of every
 * directory is collected first, so one `svc up` names them all.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createSecureContext } from 'node:tls';
import { isDeepStrictEqual } from 'node:util';
import { ConfigError } from '../core/errors.js';
import { ed25519PrivateKey } from '../core/ed25519-key.js';
import { BIND_NEEDS_AUTH, bindAllowed, metricsPortFromEnv } from './control-plane.js';
import { findCommand } from './mcp-command.js';
import { ONCALL_FILE, ownRecipientProblems } from './own-recipient.js';
import { MAX_CONFIG_FILE_BYTES, readBoundedFile, readFailureText } from './read-bounded.js';
import { DEFAULT_API_KEY_ENV, DEFAULT_BASE_URL, LLM_PROVIDERS, SECRET_KEYS, agentSchema, channelsFileSchema, llmSchema,
  sourcesFileSchema } from './schema.js';
import type { AgentConfig, AnySourceConfig, ChannelConfig, LlmProviderName, LoadedAgent, TwilioSourceConfig, WebhookSourceConfig } from './schema.js';
import { twilioProblems } from './twilio-checks.js';
import { LITERAL_SECRET, loadYamlFile, refNote } from './yaml-file.js';
import type { YamlFile } from './yaml-file.js';

export interface LoadContext {
  env: NodeJS.ProcessEnv;
  home: string;
}

/** A loaded agent plus its files, so cross-agent checks can point at positions. */
interface Located {
  loaded: LoadedAgent;
  agentFile: YamlFile<AgentConfig>;
  sourcesFile: YamlFile<{ sources: AnySourceConfig[] }>;
  channelsFile: YamlFile<{ channels: ChannelConfig[] }>;
}

/** Loads one agent directory. Throws ConfigError listing every problem found in it. */
export function loadAgentDir(dir: string, ctx: LoadContext): LoadedAgent {
  return locateAgentDir(dir, ctx).loaded;
}

/**
 * Loads every directory of one `svc up`, then checks them against each other: agent ids are unique,
 * sources sharing a port (one ingest server per port) have distinct ids and the same bind, and the
 * agents that set `controlPlane` agree. Throws ConfigError listing every problem of every directory.
 */
export function loadAgents(dirs: string[], ctx: LoadContext): LoadedAgent[] {
  const problems: string[] = [];
  const located: Located[] = [];
  for (const dir of dirs) {
    try {
      located.push(locateAgentDir(dir, ctx));
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      problems.push(err.message);
    }
  }
  problems.push(...crossAgentProblems(located));
  if (problems.length > 0) throw new ConfigError(problems.join('\n'));
  return located.map((l) => l.loaded);
}

/**
 * A Teams Workflows URL carries its own signature: whoever has it can post to the channel, so it is
 * a secret (§18.3). `url` is a plain key on webhook channels, so this is checked by channel type here.
 */
function teamsUrlProblems(file: YamlFile<{ channels: ChannelConfig[] }>): string[] {
  return file.value.channels.flatMap((c, i) =>
    (c.type === 'teams' && file.refKinds(['channels', i, 'url']).length === 0 ? [file.problem(['channels', i, 'url'], LITERAL_SECRET)] : []));
}

function secretKeysOf(fileName: string): RegExp[] {
  return SECRET_KEYS.filter((k) => k.file === fileName).map((k) => k.path);
}

function locateAgentDir(dir: string, ctx: LoadContext): Located {
  // One line for a mistyped directory, not "file not found" for each of its three files.
  if (!existsSync(dir)) throw new ConfigError(`${resolve(dir)}: no such agent directory (svc init --template alert-escalation --provider rules DIR makes one)`);
  const problems: string[] = [];
  const attempt = <T>(load: () => T): T | null => {
    try {
      return load();
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      problems.push(err.message);
      return null;
    }
  };
  // Each file is loaded even when an earlier one failed, so every problem is reported at once.
  const yamlCtx = (fileName: string) => ({ env: ctx.env, home: ctx.home, secretKeys: secretKeysOf(fileName) });
  const agentFile = attempt(() => loadYamlFile(join(dir, 'agent.yaml'), agentSchema, yamlCtx('agent.yaml')));
  const sourcesFile = attempt(() =>
    loadYamlFile(join(dir, 'event-sources.yaml'), sourcesFileSchema, yamlCtx('event-sources.yaml')));
  const channelsFile = attempt(() => loadYamlFile(join(dir, 'channels.yaml'), channelsFileSchema, yamlCtx('channels.yaml')));

  const absDir = resolve(dir);
  const skills: LoadedAgent['skills'] = [];
  let agent: AgentConfig | null = null;
  if (agentFile) {
    const provider = providerSettings(agentFile, ctx.env);
    problems.push(...provider.problems);
    agent = provider.agent;
    agentFile.value.skills.forEach((skill, i) => {
      const path = resolve(absDir, skill);
      // Bounded like the YAML files: a regular file of at most 1 MiB, never a FIFO or a device.
      const read = readBoundedFile(path, { maxBytes: MAX_CONFIG_FILE_BYTES });
      if (read.ok) skills.push({ path, text: read.text });
      else {
        const shown = agentFile.refKinds(['skills', i]).length === 0 ? skill : agentFile.quote(['skills', i], skill);
        problems.push(agentFile.problem(['skills', i], read.reason === 'not-found' ? `file not found: ${shown}`
          : `skill file ${shown} ${readFailureText(read)}; skill files are regular files of at most 1 MiB`));
      }
    });
  }
  if (agentFile) {
    problems.push(...agentProblems(agentFile), ...controlPlaneBindProblems(agentFile, ctx.env));
    problems.push(...mcpCommandProblems(agentFile, absDir, ctx.env.PATH));
  }
  if (sourcesFile) {
    problems.push(...duplicateIds(sourcesFile, ['sources'], sourcesFile.value.sources, 'source'));
    problems.push(...tlsProblems(sourcesFile));
    // Links name one source's key, and one Slack app answers an agent: a second would leave which one a guess.
    for (const type of ['ack', 'slack'] as const) {
      const found = sourcesFile.value.sources.flatMap((s, i) => (s.type === type ? [i] : []));
      for (const i of found.slice(1)) problems.push(sourcesFile.problem(['sources', i, 'type'], `an agent has at most one ${type} source`));
    }
  }
  if (channelsFile) {
    problems.push(...duplicateIds(channelsFile, ['channels'], channelsFile.value.channels, 'channel'), ...teamsUrlProblems(channelsFile),
      ...ownRecipientProblems(channelsFile, existsSync(join(dir, ONCALL_FILE))));
  }
  if (sourcesFile && channelsFile) problems.push(...twilioProblems(sourcesFile, channelsFile));

  if (problems.length > 0 || !agentFile || !agent || !sourcesFile || !channelsFile) throw new ConfigError(problems.join('\n'));
  return {
    loaded: {
      dir: absDir,
      agent,
      sources: sourcesFile.value.sources.filter((s): s is WebhookSourceConfig => s.type === 'webhook'),
      ...listenerSourcesOf(sourcesFile.value.sources),
      // A relative file-channel path means "next to the configuration", not "wherever svc was started".
      channels: channelsFile.value.channels.map((c) => (c.type === 'file' ? { ...c, path: resolve(absDir, c.path) } : c)),
      skills,
    },
    agentFile,
    sourcesFile,
    channelsFile,
  };
}

function listenerSourcesOf(sources: readonly AnySourceConfig[]): Pick<LoadedAgent, 'ackSource' | 'slackSource' | 'twilioSources'> {
  const ack = sources.find((s) => s.type === 'ack');
  const slack = sources.find((s) => s.type === 'slack');
  const twilio = sources.filter((s): s is TwilioSourceConfig => s.type === 'twilio');
  return { ...(ack === undefined ? {} : { ackSource: ack }), ...(slack === undefined ? {} : { slackSource: slack }),
    ...(twilio.length === 0 ? {} : { twilioSources: twilio }) };
}

const isLlmProvider = (p: string): p is LlmProviderName => (LLM_PROVIDERS as readonly string[]).includes(p);

/** Keys only the real providers read (contract §14). */
const LLM_ONLY_KEYS = ['model', 'baseUrl', 'apiKey', 'tools', 'llm'] as const;

/**
 * The provider's own settings (contract §14): a real provider needs a model and a key (agent.yaml
 * `apiKey`, else ANTHROPIC_API_KEY / OPENAI_API_KEY from the environment) and gets its `llm` defaults
 * and `baseUrl` here; `rules` takes none of these keys. Messages name the variable, never a value.
 */
function providerSettings(file: YamlFile<AgentConfig>, env: NodeJS.ProcessEnv): { agent: AgentConfig; problems: string[] } {
  const agent = file.value;
  const problems: string[] = [];
  if (!isLlmProvider(agent.provider)) {
    for (const key of LLM_ONLY_KEYS) {
      if (agent[key] !== undefined) problems.push(file.problem([key], 'applies to providers "anthropic" and "openai" only'));
    }
    return { agent, problems };
  }
  const provider = agent.provider;
  if (agent.model === undefined) problems.push(file.problem(['model'], `required key missing (provider ${provider})`));
  let apiKey = agent.apiKey;
  if (apiKey === undefined) {
    const name = DEFAULT_API_KEY_ENV[provider];
    const value = env[name];
    if (value === undefined || value.trim() === '') {
      problems.push(file.problem(['provider'], `no API key for provider "${provider}": set ${name} in the environment, `
        + 'or apiKey: ${env:NAME} or ${secret:PATH} in agent.yaml'));
    } else {
      apiKey = value.trim();
    }
  }
  // Sent as an HTTP header: a space or a line break would be a malformed request, or a header injection.
  if (apiKey !== undefined && !/^[!-~]{1,4096}$/.test(apiKey)) {
    problems.push(file.problem([agent.apiKey === undefined ? 'provider' : 'apiKey'],
      `the API key ${agent.apiKey === undefined ? `in ${DEFAULT_API_KEY_ENV[provider]} ` : ''}must be printable ASCII without spaces`
      + (file.refKinds(['apiKey']).length > 0 ? ` ${refNote(file.refKinds(['apiKey']))}` : '')));
  }
  const baseUrl = agent.baseUrl ?? DEFAULT_BASE_URL[provider];
  if (agent.baseUrl !== undefined) problems.push(...baseUrlProblems(file, provider, agent.baseUrl));
  const llm = agent.llm ?? llmSchema.parse({});
  // Anthropic's Messages API takes 0..1; OpenAI's 0..2.
  if (provider === 'anthropic' && llm.temperature > 1) problems.push(file.problem(['llm', 'temperature'], 'must be <= 1 for provider anthropic'));
  if (llm.callTimeoutMs > llm.triageTimeoutMs) {
    problems.push(file.problem(['llm', 'callTimeoutMs'], 'must not exceed llm.triageTimeoutMs'));
  }
  if (llm.retry.initialBackoffMs > llm.retry.maxBackoffMs) {
    problems.push(file.problem(['llm', 'retry', 'initialBackoffMs'], 'must not exceed llm.retry.maxBackoffMs'));
  }
  return { agent: { ...agent, baseUrl, llm, ...(apiKey === undefined ? {} : { apiKey }) }, problems };
}

/** A base URL the request URL is built on: no credentials, query or fragment; Anthropic's without the `/v1` svc appends. */
function baseUrlProblems(file: YamlFile<AgentConfig>, provider: LlmProviderName, value: string): string[] {
  const url = new URL(value); // the schema checked that it parses
  const problems: string[] = [];
  if (url.username !== '' || url.password !== '') problems.push(file.problem(['baseUrl'], 'must not contain credentials (use apiKey)'));
  if (url.search !== '' || url.hash !== '') problems.push(file.problem(['baseUrl'], 'must not contain a query or a fragment'));
  if (provider === 'anthropic' && /\/v1\/?$/.test(url.pathname)) {
    problems.push(file.problem(['baseUrl'], 'must not end in /v1: svc appends /v1/messages (e.g. https://api.anthropic.com)'));
  }
  return problems;
}

/** Problems for every item of the list at `path` whose id an earlier item already has. */
function duplicateIds(file: YamlFile<unknown>, path: Array<string | number>, items: ReadonlyArray<{ id: string }>, noun: string): string[] {
  const problems: string[] = [];
  const first = new Map<string, number>();
  items.forEach((item, i) => {
    const earlier = first.get(item.id);
    if (earlier === undefined) {
      first.set(item.id, i);
      return;
    }
    problems.push(file.problem([...path, i, 'id'], `duplicate ${noun} id ${file.quote([...path, i, 'id'], item.id)} (first at ${file.where([...path, earlier, 'id'])})`));
  });
  return problems;
}

/**
 * A control plane beyond loopback needs auth (contract §3.2), unless the listener is disabled
 * (`SVC_METRICS_PORT=0`, or port 0). Reported here, with its position; the address is not quoted.
 */
function controlPlaneBindProblems(file: YamlFile<AgentConfig>, env: NodeJS.ProcessEnv): string[] {
  const cp = file.value.controlPlane;
  if (cp === undefined) return [];
  // An invalid SVC_METRICS_PORT is reported by resolveControlPlane; here it leaves agent.yaml's port.
  const fromEnv = metricsPortFromEnv(env);
  const port = (fromEnv.ok ? fromEnv.port : null) ?? cp.port;
  if (bindAllowed({ bind: cp.bind, port, authEnabled: cp.auth?.enabled === true })) return [];
  const kinds = file.refKinds(['controlPlane', 'bind']);
  return [file.problem(['controlPlane', 'bind'], `not a loopback address${kinds.length > 0 ? ` ${refNote(kinds)}` : ''}; ${BIND_NEEDS_AUTH}`)];
}

/** Every MCP server's command must exist and be executable where the supervisor will start it. */
function mcpCommandProblems(file: YamlFile<AgentConfig>, dir: string, pathVar: string | undefined): string[] {
  return file.value.mcpServers.flatMap((server, i) => {
    if (findCommand(server.command, resolve(dir, server.cwd ?? '.'), pathVar) !== null) return [];
    const where = server.command.includes('/') ? `relative to ${server.cwd === undefined ? 'the agent directory' : file.quote(['mcpServers', i, 'cwd'], server.cwd)}` : 'on PATH';
    const command = file.quote(['mcpServers', i, 'command'], server.command);
    return [file.problem(['mcpServers', i, 'command'],
      `MCP server ${file.quote(['mcpServers', i, 'id'], server.id)}: command ${command} not found ${where} (or not executable)`)];
  });
}

/** A source's `tls` must be a certificate and the key that goes with it (OpenSSL's reason names no key material). */
function tlsProblems(file: YamlFile<{ sources: AnySourceConfig[] }>): string[] {
  return file.value.sources.flatMap((source, i) => {
    if (source.type !== 'webhook' || !source.tls) return [];
    try {
      createSecureContext({ cert: source.tls.cert, key: source.tls.key });
      return [];
    } catch (err) {
      const { reason, code } = err as { reason?: unknown; code?: unknown };
      const why = typeof reason === 'string' ? reason : typeof code === 'string' ? code : 'unusable';
      return [file.problem(['sources', i, 'tls'], `certificate and key are not a usable pair (${why})`)];
    }
  });
}

/** What one agent.yaml must satisfy beyond its schema: unique ids, references that resolve, sane bounds. */
function agentProblems(file: YamlFile<AgentConfig>): string[] {
  const agent = file.value;
  const problems = duplicateIds(file, ['mcpServers'], agent.mcpServers, 'MCP server');
  agent.mcpServers.forEach((server, i) => {
    if (server.restart.initialBackoffMs > server.restart.maxBackoffMs) {
      problems.push(file.problem(['mcpServers', i, 'restart', 'initialBackoffMs'], 'must not exceed restart.maxBackoffMs'));
    }
  });
  const lookup = agent.rules.lookup;
  if (lookup) {
    if (agent.provider !== 'rules') problems.push(file.problem(['rules'], 'applies to provider "rules" only'));
    if (!agent.mcpServers.some((m) => m.id === lookup.server)) {
      problems.push(file.problem(['rules', 'lookup', 'server'], `no MCP server ${file.quote(['rules', 'lookup', 'server'], lookup.server)} in mcpServers`));
    }
  }
  const audit = agent.audit;
  if (audit) {
    problems.push(...duplicateIds(file, ['audit', 'export'], audit.export, 'exporter'));
    const { maxBacklogRows, resumeBelowRows } = audit.backpressure;
    if (resumeBelowRows !== undefined && resumeBelowRows >= maxBacklogRows) {
      problems.push(file.problem(['audit', 'backpressure', 'resumeBelowRows'], 'must be below maxBacklogRows'));
    }
    if (audit.batch.minIntervalMs > audit.batch.maxIntervalMs) {
      problems.push(file.problem(['audit', 'batch', 'minIntervalMs'], 'must not exceed batch.maxIntervalMs'));
    }
    const checkpoints = audit.checkpoints;
    if (checkpoints) {
      const at = ['audit', 'checkpoints', 'key'];
      if (file.refKinds(at).join() !== 'secret') {
        problems.push(file.problem(at, 'must be a ${secret:…} reference to an Ed25519 private key (PEM), e.g. ${secret:audit/checkpoint-key}'));
      } else {
        try {
          ed25519PrivateKey(checkpoints.key);
        } catch (err) {
          problems.push(file.problem(at, `the referenced secret ${(err as Error).message}; create one with \`svc init … --checkpoint-key\` or \`openssl genpkey -algorithm ed25519\``));
        }
      }
    }
    audit.export.forEach((e, i) => {
      if (e.retry.initialBackoffMs > e.retry.maxBackoffMs) {
        problems.push(file.problem(['audit', 'export', i, 'retry', 'initialBackoffMs'], 'must not exceed retry.maxBackoffMs'));
      }
    });
  }
  return problems;
}

function crossAgentProblems(located: Located[]): string[] {
  const problems: string[] = [];

  const agentIds = new Map<string, Located>();
  for (const l of located) {
    const other = agentIds.get(l.loaded.agent.id);
    if (other) {
      problems.push(l.agentFile.problem(['id'], `duplicate agent id ${l.agentFile.quote(['id'], l.loaded.agent.id)} (also in ${other.agentFile.where(['id'])})`));
    } else {
      agentIds.set(l.loaded.agent.id, l);
    }
  }

  // One ingest server per port routes /webhooks/<source id>: ids must be unique per port, and the
  // server can listen on only one address.
  const ports = new Map<number, { bind: string; bindShown: string; tls: string | null; at: string; ids: Map<string, string> }>();
  const tlsOf = (source: WebhookSourceConfig): string | null => (source.tls ? `${source.tls.cert}\n${source.tls.key}` : null);
  for (const l of located) {
    l.sourcesFile.value.sources.forEach((source, i) => {
      if (source.type !== 'webhook') return;
      const idAt = l.sourcesFile.where(['sources', i, 'id']);
      const seen = ports.get(source.port);
      if (!seen) {
        ports.set(source.port, { bind: source.bind, bindShown: l.sourcesFile.quote(['sources', i, 'bind'], source.bind),
          tls: tlsOf(source), at: l.sourcesFile.where(['sources', i]), ids: new Map([[source.id, idAt]]) });
        return;
      }
      if (seen.tls !== tlsOf(source)) {
        problems.push(l.sourcesFile.problem(['sources', i, 'tls'],
          `port ${source.port} is also used ${seen.tls !== null ? 'with another' : 'without'} tls (${seen.at}); sources sharing a port must share one tls block`));
      }
      if (seen.bind !== source.bind) {
        problems.push(l.sourcesFile.problem(['sources', i, 'bind'],
          `port ${source.port} is also used with bind ${seen.bindShown} (${seen.at}); sources sharing a port must share the bind address`));
      }
      const sameId = seen.ids.get(source.id);
      if (sameId !== undefined) {
        problems.push(l.sourcesFile.problem(['sources', i, 'id'],
          `source id ${l.sourcesFile.quote(['sources', i, 'id'], source.id)} is already served on port ${source.port} (${sameId})`));
      } else {
        seen.ids.set(source.id, idAt);
      }
    });
  }

  // Ack, slack and twilio sources have a listener of their own: their ports are shared with nothing.
  const ackPorts = new Map<number, string>();
  for (const l of located) {
    l.sourcesFile.value.sources.forEach((source, i) => {
      if (source.type === 'webhook') return;
      const other = ports.get(source.port)?.at ?? ackPorts.get(source.port);
      if (other !== undefined) {
        problems.push(l.sourcesFile.problem(['sources', i, 'port'], `port ${source.port} is also used by ${other}; ${source.type === 'ack' ? 'an' : 'a'} ${source.type} source needs a port of its own`));
      } else ackPorts.set(source.port, l.sourcesFile.where(['sources', i]));
    });
  }

  // MCP server ids are the metrics' server_id: one process per id in the daemon.
  const servers = new Map<string, string>();
  for (const l of located) {
    l.loaded.agent.mcpServers.forEach((server, i) => {
      const at = l.agentFile.where(['mcpServers', i, 'id']);
      const other = servers.get(server.id);
      if (other === undefined) servers.set(server.id, at);
      else if (other !== at) {
        problems.push(l.agentFile.problem(['mcpServers', i, 'id'], `MCP server id ${l.agentFile.quote(['mcpServers', i, 'id'], server.id)} is also declared at ${other}; ids are unique across the agents of one svc up`));
      }
    });
  }

  // controlPlane, the team console, audit and store configure the whole daemon: the agents that set them must agree (contract, preamble).
  for (const key of ['controlPlane', 'console', 'audit', 'store'] as const) problems.push(...disagreements(located, key));
  return problems;
}

function disagreements(located: Located[], key: 'controlPlane' | 'console' | 'audit' | 'store'): string[] {
  const problems: string[] = [];
  let reference: Located | null = null;
  for (const l of located) {
    const value = l.loaded.agent[key];
    if (value === undefined) continue;
    if (!reference) {
      reference = l;
      continue;
    }
    const ref = reference.loaded.agent[key];
    if (isDeepStrictEqual(value, ref)) continue;
    // Name the differing keys, not their values: some settings hold resolved secrets.
    const keys = differingKeys(ref, value).map((k) => `${key}.${k}`).join(', ');
    problems.push(l.agentFile.problem([key],
      `differs from ${reference.agentFile.where([key])} in ${keys}; agents that set ${key} must agree`));
  }
  return problems;
}

function differingKeys(a: unknown, b: unknown, prefix = ''): string[] {
  const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    return a.flatMap((item, i) => differingKeys(item, b[i], prefix ? `${prefix}.${i}` : String(i)));
  }
  if (!isObj(a) || !isObj(b)) return isDeepStrictEqual(a, b) ? [] : [prefix || '(value)'];
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  return keys.flatMap((k) => differingKeys(a[k], b[k], prefix ? `${prefix}.${k}` : k));
}
