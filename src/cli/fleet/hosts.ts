/**
 * The hosts one `svc fleet` run asks: fleet.yaml loaded (config/fleet.ts), narrowed by `--host NAME`
 * (repeatable) and `--label KEY=VALUE` (repeatable, all must match), each with its control-plane
 * target. Each host gets one token source for the whole run, so a client-credentials token is fetched
 * once per host and shared by every page and stream sent to it.
 */
import { resolve } from 'node:path';
import { FLEET_FILE, loadFleetFile, locateFleetFile, untrustedReason } from '../../config/fleet.js';
import type { FleetHost } from '../../config/fleet.js';
import { svcHome } from '../../config/paths.js';
import { UsageError } from '../../core/errors.js';
import type { CliContext } from '../context.js';
import type { ControlTarget } from '../control-client.js';
import { clientCredentialsTokenSource, noTokens, staticTokenSource } from '../token-source.js';
import type { TokenSource } from '../token-source.js';

export interface FleetOptions {
  file?: string;
  host: string[];
  label: string[];
  json: boolean;
}

export interface HostTarget {
  host: FleetHost;
  target: ControlTarget;
}

export function fleetTargets(opts: FleetOptions, ctx: CliContext): HostTarget[] {
  const file = locateFleetFile(opts.file, ctx.cwd, ctx.env);
  const home = svcHome(ctx.env);
  // Only a ./fleet.yaml found without --file is judged: one named on the command line was chosen.
  const implicitHere = opts.file === undefined && file === resolve(ctx.cwd, FLEET_FILE);
  const uid = process.getuid?.();
  const untrusted = implicitHere && uid !== undefined ? untrustedReason(file, uid, home) : null;
  const fleet = loadFleetFile(file, { env: ctx.env, home, untrusted });
  return selectHosts(fleet.hosts, opts).map((host) => ({
    host,
    target: { base: host.base, tokens: tokensFor(host, ctx), clock: ctx.clock, timeoutMs: host.timeoutMs },
  }));
}

/** `--host` names (each must exist) and `--label` pairs; no host left is a usage error. */
export function selectHosts(hosts: readonly FleetHost[], opts: Pick<FleetOptions, 'host' | 'label'>): FleetHost[] {
  const known = new Set(hosts.map((h) => h.name));
  const unknown = opts.host.filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new UsageError(`--host: no host ${unknown.map((n) => JSON.stringify(n)).join(', ')} in fleet.yaml (hosts: ${[...known].join(', ')})`);
  }
  const labels = opts.label.map((pair) => {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`--label: expected KEY=VALUE, got ${JSON.stringify(pair)}`);
    return [pair.slice(0, eq), pair.slice(eq + 1)] as const;
  });
  const wanted = new Set(opts.host);
  const selected = hosts.filter((h) => (wanted.size === 0 || wanted.has(h.name)) && labels.every(([k, v]) => h.labels[k] === v));
  if (selected.length === 0) throw new UsageError('--label: no host of fleet.yaml has these labels');
  return selected;
}

function tokensFor(host: FleetHost, ctx: CliContext): TokenSource {
  const auth = host.auth;
  if (auth.type === 'bearer') return staticTokenSource(auth.token, `the bearer token of host ${host.name}`);
  if (auth.type === 'none') return noTokens;
  return clientCredentialsTokenSource({
    tokenEndpoint: auth.tokenEndpoint,
    clientId: auth.clientId,
    clientSecret: auth.clientSecret,
    scopes: auth.scopes,
    audience: auth.audience,
    clock: ctx.clock,
    timeoutMs: host.timeoutMs,
  }, `client credentials of host ${host.name}`);
}
