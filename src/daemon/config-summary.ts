/** What an auditor needs to know about a loaded configuration (audit row `config.loaded`), without any secret value. */
import { createHash } from 'node:crypto';
import type { AuditConfig, LoadedAgent } from '../config/schema.js';

export function configSummary(loaded: LoadedAgent): Record<string, unknown> {
  const { agent } = loaded;
  return {
    dir: loaded.dir,
    provider: agent.provider,
    model: agent.model ?? null,
    // Real providers: where the key is sent (origin only), which tools the model may see, the loop's bounds.
    llm: agent.baseUrl ? { origin: new URL(agent.baseUrl).origin, tools: agent.tools ?? null, ...agent.llm } : null,
    skills: loaded.skills.map((s) => ({ path: s.path, sha256: sha256(s.text) })),
    sources: loaded.sources.map((s) => ({ id: s.id, type: s.type, bind: s.bind, port: s.port,
      timestampHeader: s.timestampHeader ?? null })),
    channels: loaded.channels.map((c) => ({ id: c.id, type: c.type, direction: c.direction })),
    dispatch: agent.dispatch,
    // Values here are resolved (`${secret:…}` in args, a token in a collector URL), and the audit chain
    // is immutable and shipped to the SIEM: a digest shows a change without showing the value.
    mcpServers: agent.mcpServers.map((m) => ({ id: m.id, commandSha256: sha256(JSON.stringify([m.command, ...m.args])),
      args: m.args.length, envKeys: Object.keys(m.env).sort() })),
    rateLimits: agent.rateLimits,
    rulesLookup: agent.rules.lookup ?? null,
    auditExport: agent.audit?.export.map((e) => ({ id: e.id, type: e.type,
      target: e.type === 'http' ? new URL(e.url).origin : e.address })) ?? [],
  };
}

export function sha256(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The daemon's `audit` block: the agents that set it agree (checked by the loader), so the first one speaks for all. */
export function daemonAuditConfig(agents: readonly LoadedAgent[]): AuditConfig | null {
  return agents.find((a) => a.agent.audit !== undefined)?.agent.audit ?? null;
}
