/**
 * Every address svc would listen on resolves (contract §11.7, §13): a `bind` that is a host name is
 * looked up before anything starts, so a name that does not resolve is a configuration error (exit 2)
 * from `svc up` and `svc check`, not a startup failure. A `bind` may come from `${file:}` or `${env:}`,
 * so the problem names the key and never the value.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { join } from 'node:path';
import type { ControlPlaneSettings } from './control-plane.js';
import type { LoadedAgent } from './schema.js';
import { teamConsole } from './settings.js';

/** Resolves a host name; rejects with an error whose `code` says why (ENOTFOUND, EAI_AGAIN, …). */
export type HostLookup = (host: string) => Promise<unknown>;

/** One problem per bind that does not resolve, each naming its file and key; empty when all do. */
export async function bindHostProblems(agents: readonly LoadedAgent[], controlPlane: ControlPlaneSettings,
  lookup: HostLookup = dnsLookup): Promise<string[]> {
  const wanted: Array<{ host: string; where: string }> = [];
  for (const a of agents) {
    for (const [i, s] of a.sources.entries()) {
      wanted.push({ host: s.bind, where: `${join(a.dir, 'event-sources.yaml')}: sources.${i}.bind (source ${s.id} of agent ${a.agent.id})` });
    }
  }
  if (controlPlane.enabled) wanted.push({ host: controlPlane.bind, where: 'controlPlane.bind' });
  const team = teamConsole(agents);
  if (team !== null) wanted.push({ host: team.bind, where: 'console.bind' });
  const results = new Map<string, Promise<string | null>>();
  const resolve = (host: string): Promise<string | null> => {
    let result = results.get(host);
    if (result === undefined) {
      result = isIP(host) !== 0 ? Promise.resolve(null) : lookup(host).then(() => null, (err: unknown) => codeOf(err));
      results.set(host, result);
    }
    return result;
  };
  const problems: string[] = [];
  for (const { host, where } of wanted) {
    const code = await resolve(host);
    if (code !== null) problems.push(`${where}: does not resolve as a host (${code}); give an IP address or a name this machine resolves`);
  }
  return problems;
}

function codeOf(err: unknown): string {
  const code = typeof err === 'object' && err !== null && 'code' in err ? err.code : null;
  // A code is a short token; anything else might echo the name, which must not be shown.
  return typeof code === 'string' && /^[A-Z_]{2,32}$/.test(code) ? code : 'lookup failed';
}
