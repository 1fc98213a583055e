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

export const DEFAULT_CONTROL_PLANE = { bind: '127.0.0.1', port: 9464, maxConnections: 128 } as const;

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
}

export function resolveControlPlane(agents: readonly LoadedAgent[], env: NodeJS.ProcessEnv, home = ''): ControlPlaneSettings {
  const owner = agents.find((a) => a.agent.controlPlane !== undefined);
  const configured = owner?.agent.controlPlane;
  const bind = configured?.bind ?? DEFAULT_CONTROL_PLANE.bind;
  let port: number = configured?.port ?? DEFAULT_CONTROL_PLANE.port;
  const raw = env.SVC_METRICS_PORT;
  if (raw !== undefined && raw !== '') {
    if (!/^\d{1,5}$/.test(raw) || Number(raw) > 65535) {
      throw new ConfigError(`SVC_METRICS_PORT: invalid port ${JSON.stringify(raw.slice(0, 32))} (expected an integer 0-65535; 0 disables the listener)`);
    }
    port = Number(raw);
  }
  const block = configured?.auth;
  const auth = block?.enabled ? resolveAuth(block, { env, home, baseDir: owner?.dir ?? '.' }) : null;
  if (port !== 0 && auth === null && !isLoopbackBind(bind)) {
    // The loader reports this with its position (load-agent.ts); this is the guard for other callers.
    // The address is not quoted: it may have come from a reference.
    throw new ConfigError(`${owner ? `${owner.dir}/agent.yaml: ` : ''}controlPlane.bind: not a loopback address; binding the control plane beyond loopback requires controlPlane.auth.enabled: true`);
  }
  const maxConnections = configured?.maxConnections ?? DEFAULT_CONTROL_PLANE.maxConnections;
  return { enabled: port !== 0, bind, port, auth, allowRemote: auth !== null, maxConnections };
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
