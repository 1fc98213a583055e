/**
 * The control-plane listener's settings for the whole daemon (contract §3): `controlPlane` of the
 * agents (the loader has checked they agree), then `SVC_METRICS_PORT`, which overrides the port; `0`
 * disables the listener. Invalid values are configuration errors, never a silent default. Auth that
 * is enabled but cannot be set up stops the daemon; it never runs without auth instead.
 */
import { ConfigError } from '../core/errors.js';
import { isLoopbackBind } from '../core/loopback.js';
import { resolveRefs } from './refs.js';
import type { AuthBlock, LoadedAgent } from './schema.js';
import { DEFAULT_CONTROL_PLANE } from './schema.js';

/** An enabled `controlPlane.auth` block, required keys present, the client secret resolved. */
export interface AuthSettings {
  provider: 'oidc' | 'oauth2-client';
  issuer: string;
  audience: string;
  jwksUri: string | null;
  scopes: string[];
  allowLoopback: boolean;
  client: { tokenEndpoint: string; clientId: string; clientSecret: string } | null;
}

export interface ControlPlaneSettings {
  /** Connections held at once (contract §11.2); past it new ones are closed at once. */
  maxConnections: number;
  enabled: boolean;
  bind: string;
  port: number;
  /** null: no token checking (loopback only). */
  auth: AuthSettings | null;
  /** Non-loopback Host headers reach the auth middleware only when auth is on (spec). */
  allowRemote: boolean;
  /** How people reach it through a reverse proxy (controlPlane.publicUrl, §24.7); null: not said. */
  publicUrl: string | null;
}

/**
 * `SVC_METRICS_PORT` as the daemon and the CLI read it: null when unset or empty (agent.yaml's port,
 * else the default, applies), else the port — `0` disables the listener. Anything else is an error
 * naming the variable; its value is shown cut short.
 */
export function metricsPortFromEnv(env: NodeJS.ProcessEnv): { ok: true; port: number | null } | { ok: false; error: string } {
  const raw = env.SVC_METRICS_PORT;
  if (raw === undefined || raw === '') return { ok: true, port: null };
  if (!/^\d{1,5}$/.test(raw) || Number(raw) > 65535) {
    return { ok: false, error: `SVC_METRICS_PORT: invalid port ${JSON.stringify(raw.slice(0, 32))} (expected an integer 0-65535; 0 disables the listener)` };
  }
  return { ok: true, port: Number(raw) };
}

/** Why a control plane may not listen where it is asked to (contract §3.2); said by the loader with its position too. */
export const BIND_NEEDS_AUTH = 'binding the control plane beyond loopback requires controlPlane.auth.enabled: true';

/**
 * The bind rule (contract §3.2): a control plane listens beyond loopback only with auth on. A
 * disabled listener (port 0) listens nowhere, so any bind is fine.
 */
export function bindAllowed(cp: { bind: string; port: number; authEnabled: boolean }): boolean {
  return cp.port === 0 || cp.authEnabled || isLoopbackBind(cp.bind);
}

export function resolveControlPlane(agents: readonly LoadedAgent[], env: NodeJS.ProcessEnv, home = ''): ControlPlaneSettings {
  const owner = agents.find((a) => a.agent.controlPlane !== undefined);
  const configured = owner?.agent.controlPlane;
  const bind = configured?.bind ?? DEFAULT_CONTROL_PLANE.bind;
  const fromEnv = metricsPortFromEnv(env);
  if (!fromEnv.ok) throw new ConfigError(fromEnv.error);
  const port: number = fromEnv.port ?? configured?.port ?? DEFAULT_CONTROL_PLANE.port;
  const block = configured?.auth;
  const auth = block?.enabled ? resolveAuth(block, { env, home, baseDir: owner?.dir ?? '.' }) : null;
  if (!bindAllowed({ bind, port, authEnabled: auth !== null })) {
    // The loader reports this with its position (load-agent.ts); this is the guard for other callers.
    // The address is not quoted: it may have come from a reference.
    throw new ConfigError(`${owner ? `${owner.dir}/agent.yaml: ` : ''}controlPlane.bind: not a loopback address; ${BIND_NEEDS_AUTH}`);
  }
  const maxConnections = configured?.maxConnections ?? DEFAULT_CONTROL_PLANE.maxConnections;
  return { enabled: port !== 0, bind, port, auth, allowRemote: auth !== null, maxConnections, publicUrl: configured?.publicUrl ?? null };
}

/** Resolves an enabled auth block; the schema has checked that the required keys are present. */
export function resolveAuth(block: AuthBlock, ctx: { env: NodeJS.ProcessEnv; home: string; baseDir: string }): AuthSettings {
  let client: AuthSettings['client'] = null;
  if (block.provider === 'oauth2-client') {
    const ref = block.clientSecretRef ?? '';
    const resolved = resolveRefs(`\${${ref}}`, ctx);
    if (!resolved.ok) throw new ConfigError(`controlPlane.auth.clientSecretRef: ${resolved.error}`);
    client = { tokenEndpoint: block.tokenEndpoint ?? '', clientId: block.clientId ?? '', clientSecret: resolved.value };
  }
  return {
    provider: block.provider,
    issuer: block.issuer ?? '',
    audience: block.audience ?? '',
    jwksUri: block.jwksUri ?? null,
    scopes: block.scopes,
    allowLoopback: block.allowLoopback,
    client,
  };
}
