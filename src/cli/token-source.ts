/**
 * Where a CLI command gets the bearer token it sends to the control plane (contract §4.7):
 *
 * 1. `SVC_TOKEN` from the environment, used as is (it cannot be renewed);
 * 2. else, when the agent directory (`--dir`, default `.`) holds an `agent.yaml` whose
 *    `controlPlane.auth` is enabled with `provider: oauth2-client`, the client-credentials grant with
 *    its `tokenEndpoint`, `clientId`, the secret behind `clientSecretRef`, `audience` and `scopes`;
 * 3. else no token (a loopback listener with `allowLoopback: true` needs none).
 *
 * Only `agent.yaml` is read, through the loader's `loadYamlFile` + `agentSchema`: the same
 * validation, reference resolution and `file:line:col` errors as `svc up`, but none of the other files
 * (`event-sources.yaml`, `channels.yaml`), whose secrets a host that only reads the control plane need
 * not have. A directory without `agent.yaml` means "no configuration", not an error, so `--url` works
 * from anywhere. The token lives as long as the process; after a 401 `expired` the caller may ask
 * for one fresh token (refresh()).
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createClientCredentialsClient } from '../auth/client-credentials.js';
import type { ClientCredentialsOptions } from '../auth/client-credentials.js';
import { resolveAuth } from '../config/control-plane.js';
import { svcHome } from '../config/paths.js';
import { agentSchema } from '../config/schema.js';
import { loadYamlFile } from '../config/yaml-file.js';
import { ConfigError, UsageError } from '../core/errors.js';
import type { CliContext } from './context.js';

export interface TokenSource {
  /** The token to send as `Authorization: Bearer`, or null to send none. */
  token(): Promise<string | null>;
  /** Drops the current token; true when the next token() fetches a fresh one (false for SVC_TOKEN or none). */
  refresh(): boolean;
  /** Where tokens come from, for messages: `SVC_TOKEN`, `client credentials (<agent.yaml>)`, or null for none. */
  readonly origin: string | null;
}

export interface TokenSourceOptions {
  /** Agent directory holding agent.yaml, relative to ctx.cwd; default `.`. */
  dir?: string;
  /** For tests: the fetch used for the token endpoint. */
  fetch?: typeof fetch;
}

/** Visible ASCII, no spaces: what fits after `Bearer ` in a header. */
const HEADER_SAFE = /^[\x21-\x7E]+$/;

export function createTokenSource(ctx: CliContext, opts: TokenSourceOptions = {}): TokenSource {
  const fromEnv = ctx.env.SVC_TOKEN;
  if (fromEnv !== undefined && fromEnv !== '') {
    // The value is never quoted: it is a credential.
    if (!HEADER_SAFE.test(fromEnv)) throw new UsageError('SVC_TOKEN: not a usable bearer token (only visible ASCII, no spaces or line breaks)');
    return staticTokenSource(fromEnv, 'SVC_TOKEN');
  }

  const dir = resolve(ctx.cwd, opts.dir ?? '.');
  const file = join(dir, 'agent.yaml');
  if (!existsSync(file)) return noTokens;
  const home = svcHome(ctx.env);
  const agentFile = loadYamlFile(file, agentSchema, { env: ctx.env, home });
  const block = agentFile.value.controlPlane?.auth;
  if (block === undefined || !block.enabled || block.provider !== 'oauth2-client') return noTokens;

  let client;
  try {
    client = resolveAuth(block, { env: ctx.env, home, baseDir: dir }).client;
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    throw new ConfigError(`${agentFile.where(['controlPlane', 'auth', 'clientSecretRef'])}: ${err.message}`);
  }
  if (client === null) return noTokens; // unreachable: the schema requires the client keys for oauth2-client
  return clientCredentialsTokenSource({
    tokenEndpoint: client.tokenEndpoint,
    clientId: client.clientId,
    clientSecret: client.clientSecret,
    scopes: block.scopes,
    audience: block.audience,
    clock: ctx.clock,
    fetch: opts.fetch,
  }, `client credentials (${file})`);
}

/** No token: a loopback listener with `allowLoopback: true` needs none. */
export const noTokens: TokenSource = { token: () => Promise.resolve(null), refresh: () => false, origin: null };

/** A fixed token (SVC_TOKEN, a fleet host's `auth.token`): sent as it is, never renewed. */
export function staticTokenSource(token: string, origin: string): TokenSource {
  return { token: () => Promise.resolve(token), refresh: () => false, origin };
}

/**
 * Tokens from the client-credentials grant, cached until shortly before they expire and shared by
 * every request made through this source (one token request however many pages or streams).
 */
export function clientCredentialsTokenSource(opts: ClientCredentialsOptions, origin: string): TokenSource {
  const cc = createClientCredentialsClient(opts);
  return {
    token: () => cc.token(),
    refresh: () => { cc.invalidate(); return true; },
    origin,
  };
}
