/**
 * `fleet.yaml` (contract §15): the hosts `svc fleet` asks, how to authenticate to each, and how long
 * to wait for it. Strict like the agent files: unknown keys are rejected, every problem is reported as
 * `<file>:<line>:<col>: <key.path>: <message>`, values may use `${env:…}`, `${file:…}` and
 * `${secret:…}`, a bearer token must come from such a reference, and `clientSecretRef` is a bare
 * reference (`secret:PATH`) like `controlPlane.auth.clientSecretRef`. No message quotes a resolved value.
 */
import { existsSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../core/errors.js';
import { svcHome } from './paths.js';
import { resolveRefs } from './refs.js';
import { SECRET_REF_PATTERN, httpUrl, scopeToken } from './schema.js';
import { loadYamlFile } from './yaml-file.js';

export const FLEET_FILE = 'fleet.yaml';
/** Per-host wait for one answer when `timeoutMs` is not set (contract §15 example). */
export const DEFAULT_HOST_TIMEOUT_MS = 5_000;
/**
 * The longest one run spends on a host in all (every page of a view, a replay of its logs up to
 * caught-up) when `deadlineMs` is not set: a host that keeps answering, but never finishes, is
 * reported failed instead of holding the whole command.
 */
export const DEFAULT_HOST_DEADLINE_MS = 120_000;

const HOST_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const LABEL_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

const bearerAuthSchema = z.strictObject({
  type: z.literal('bearer'),
  /** Must be a `${env:…}`, `${file:…}` or `${secret:…}` reference (checked by the loader). */
  token: z.string().regex(/^[\x21-\x7E]+$/, 'must be a bearer token (visible ASCII, no spaces or line breaks)'),
});

const clientAuthSchema = z.strictObject({
  type: z.literal('oauth2-client'),
  tokenEndpoint: httpUrl,
  clientId: z.string().min(1).max(256),
  clientSecretRef: z.string().regex(SECRET_REF_PATTERN, 'must be a reference: env:NAME, file:PATH or secret:PATH'),
  scopes: z.array(scopeToken).default([]),
  /** The control plane's audience, sent as `audience` (and `resource` when it is a URI) in the token request. */
  audience: z.string().min(1).max(256).optional(),
});

const hostSchema = z.strictObject({
  name: z.string().regex(HOST_NAME, 'must match ^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$'),
  url: httpUrl.refine((u) => {
    const url = new URL(u);
    return url.username === '' && url.password === '' && url.search === '' && url.hash === '';
  }, 'must be an http(s) URL without credentials, query or fragment'),
  auth: z.discriminatedUnion('type', [bearerAuthSchema, clientAuthSchema]).optional(),
  /** Longest wait for one answer from this host (a token, a page, the start of a stream). */
  timeoutMs: z.number().int().min(100).max(600_000).default(DEFAULT_HOST_TIMEOUT_MS),
  /** Longest time spent on this host in all, waiting for request slots included (not `logs -f`). */
  deadlineMs: z.number().int().min(100).max(3_600_000).default(DEFAULT_HOST_DEADLINE_MS),
  labels: z.record(z.string().regex(LABEL_NAME, 'must be a label name'), z.string().max(256)).default({}),
});

export const fleetFileSchema = z.strictObject({
  hosts: z.array(hostSchema).min(1),
});

export type HostAuth =
  | { type: 'none' }
  | { type: 'bearer'; token: string }
  | { type: 'oauth2-client'; tokenEndpoint: string; clientId: string; clientSecret: string; scopes: string[]; audience?: string };

/** One host of the fleet, references resolved. */
export interface FleetHost {
  name: string;
  /** Origin plus path prefix, no trailing slash. */
  base: string;
  auth: HostAuth;
  timeoutMs: number;
  deadlineMs: number;
  labels: Record<string, string>;
}

export interface FleetConfig {
  /** The file the hosts came from, for messages. */
  file: string;
  hosts: FleetHost[];
}

/** The kinds of the references every string under `value` was resolved from. */
function referenceKinds(value: unknown, path: Array<string | number>, refKinds: (path: Array<string | number>) => readonly string[]): string[] {
  if (typeof value === 'string') return [...refKinds(path)];
  if (Array.isArray(value)) return value.flatMap((v, i) => referenceKinds(v, [...path, i], refKinds));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => referenceKinds(v, [...path, k], refKinds));
  }
  return [];
}

/**
 * Which fleet.yaml: `--file` (relative to `cwd`), else `./fleet.yaml`, else `$SVC_HOME/fleet.yaml`
 * (contract §15). None of them: a configuration error naming where it looked.
 */
export function locateFleetFile(explicit: string | undefined, cwd: string, env: NodeJS.ProcessEnv): string {
  if (explicit !== undefined) return resolve(cwd, explicit);
  const candidates = [resolve(cwd, FLEET_FILE), join(svcHome(env), FLEET_FILE)];
  const found = candidates.find((c) => existsSync(c));
  if (found === undefined) {
    throw new ConfigError(`no ${FLEET_FILE}: looked for ${candidates.join(' and ')}; write one (docs/fleet.md) or pass --file`);
  }
  return found;
}

/**
 * Why a `./fleet.yaml` found without `--file` must not be trusted with this user's secrets, or null.
 * The hosts a fleet file names receive whatever `${secret:…}` or `${file:…}` it points at, and a
 * file in the working directory may come from anywhere: someone else's (another owner, or writable
 * by group or others: a shared directory), or a repository just cloned — owned by you, yet written by
 * whoever wrote the repository. Only `$SVC_HOME/fleet.yaml` is the operator's own by place; any other
 * file must be named with `--file` to be trusted with them.
 */
export function untrustedReason(file: string, uid: number, home: string): string | null {
  const st = statSync(file);
  if (st.uid !== uid) return `is owned by uid ${st.uid}, not by you (uid ${uid})`;
  if ((st.mode & 0o022) !== 0) return 'is writable by group or others';
  if (!insideHome(file, home)) return `is not in $SVC_HOME (${home}) and was not named with --file`;
  return null;
}

/** Whether `file` is `$SVC_HOME/fleet.yaml` itself, compared by real path (links, `..`). */
function insideHome(file: string, home: string): boolean {
  try {
    return realpathSync(file) === realpathSync(join(home, FLEET_FILE));
  } catch {
    return false; // no such file in the home: this one is elsewhere
  }
}

export interface FleetLoadContext {
  env: NodeJS.ProcessEnv;
  home: string;
  /**
   * Set when the file was found implicitly and is not trusted (untrustedReason): a file that reads
   * `${secret:…}` or `${file:…}` references is then refused (exit 2) before any host is asked.
   */
  untrusted?: string | null;
}

/** Loads and validates a fleet.yaml; throws ConfigError listing every problem. */
export function loadFleetFile(file: string, ctx: FleetLoadContext): FleetConfig {
  const loaded = loadYamlFile(file, fleetFileSchema, { env: ctx.env, home: ctx.home, secretKeys: [/^hosts\.\d+\.auth\.token$/] });
  if (ctx.untrusted) {
    const kinds = new Set<string>(referenceKinds(loaded.value, [], (p) => loaded.refKinds(p)));
    loaded.value.hosts.forEach((host) => {
      if (host.auth?.type === 'oauth2-client') kinds.add(host.auth.clientSecretRef.slice(0, host.auth.clientSecretRef.indexOf(':')));
    });
    if (kinds.has('secret') || kinds.has('file')) {
      throw new ConfigError(`${file} ${ctx.untrusted}, and it reads \${secret:…} or \${file:…} references, which would be sent to ` +
        `the hosts it names; if you trust it, pass it explicitly: --file ${file}`);
    }
  }
  const problems: string[] = [];
  const seen = new Map<string, number>();
  const hosts: FleetHost[] = [];
  loaded.value.hosts.forEach((host, i) => {
    const earlier = seen.get(host.name);
    if (earlier !== undefined) {
      problems.push(loaded.problem(['hosts', i, 'name'], `duplicate host name ${loaded.quote(['hosts', i, 'name'], host.name)} (first at ${loaded.where(['hosts', earlier, 'name'])})`));
    } else {
      seen.set(host.name, i);
    }
    let auth: HostAuth = { type: 'none' };
    if (host.auth?.type === 'bearer') auth = { type: 'bearer', token: host.auth.token };
    if (host.auth?.type === 'oauth2-client') {
      const { clientSecretRef, ...client } = host.auth;
      const secret = resolveRefs(`\${${clientSecretRef}}`, { env: ctx.env, home: ctx.home, baseDir: dirname(resolve(file)) });
      if (!secret.ok) problems.push(loaded.problem(['hosts', i, 'auth', 'clientSecretRef'], secret.error));
      else auth = { ...client, clientSecret: secret.value };
    }
    const url = new URL(host.url);
    hosts.push({ name: host.name, base: url.origin + url.pathname.replace(/\/+$/, ''), auth, timeoutMs: host.timeoutMs, deadlineMs: host.deadlineMs, labels: host.labels });
  });
  if (problems.length > 0) throw new ConfigError(problems.join('\n'));
  return { file, hosts };
}
