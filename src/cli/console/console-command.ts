/**
 * `svc console [--port N] [--no-open] [--fleet]` (contract §19.3): starts the console proxy on
 * 127.0.0.1, prints a sign-in link that works once, opens it in the browser unless --no-open, and
 * runs until SIGINT/SIGTERM.
 *
 * - Local (default): the running daemon's control plane (or --url). Actions go through the admin
 *   socket of `$SVC_HOME` only when the control plane shown is that home's daemon's (action-socket.ts).
 * - `--fleet`: every host of fleet.yaml (--file, --host, --label as for `svc fleet`), with the token
 *   source each host names; a host picker comes first and there are no actions.
 *
 * Sign-in: when the agent directory's (`--dir`, default `.`) `controlPlane.auth` is enabled and names
 * `console.clientId`, the operator signs in with OpenID Connect (auth/oidc-sign-in.ts); otherwise the
 * proxy sends what `svc ps` would send (SVC_TOKEN, or client credentials) and actions are audited as
 * `local:<os user>`. On-call actions also name the person acting (§24.6): `--as PERSON`, or the
 * "Acting as" choice each session makes — never the OS user.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join, resolve } from 'node:path';
import { homePaths, svcHome } from '../../config/paths.js';
import { agentSchema } from '../../config/schema.js';
import { loadYamlFile } from '../../config/yaml-file.js';
import { adminRequest } from '../admin-client.js';
import type { CliContext } from '../context.js';
import { controlPlaneUrl } from '../control-client.js';
import { fleetTargets } from '../fleet/hosts.js';
import { intFlag } from '../fleet/options.js';
import { createTokenSource } from '../token-source.js';
import { actionSocket } from './action-socket.js';
import type { Upstream } from './console-proxy.js';
import { startConsoleProxy } from './console-proxy.js';
import type { OidcSignIn } from '../../auth/oidc-sign-in.js';
import { createOidcSignIn } from '../../auth/oidc-sign-in.js';
import { UsageError } from '../../core/errors.js';

export interface ConsoleOptions {
  port?: string;
  open: boolean;
  fleet: boolean;
  file?: string;
  host: string[];
  label: string[];
  url?: string;
  dir?: string;
  /** The person of oncall.yaml acting (§24.6); without it each session chooses with "Acting as". */
  as?: string;
}

const ADMIN_TIMEOUT_MS = 60_000;

/** The agent directory's console sign-in, when its control plane requires tokens and names a console client. */
function signInFor(ctx: CliContext, dir: string | undefined, port: () => number): OidcSignIn | null {
  const file = join(resolve(ctx.cwd, dir ?? '.'), 'agent.yaml');
  if (!existsSync(file)) return null;
  const auth = loadYamlFile(file, agentSchema, { env: ctx.env, home: svcHome(ctx.env) }).value.controlPlane?.auth;
  if (auth?.enabled !== true || auth.console === undefined) return null;
  let signIn: OidcSignIn | null = null;
  // The redirect names the proxy's port, known once it listens.
  const lazy = (): OidcSignIn => {
    signIn ??= createOidcSignIn({
      issuer: auth.issuer ?? '', clientId: auth.console?.clientId ?? '', clientSecret: null, resource: auth.audience ?? '', scopes: auth.scopes,
      redirectUri: `http://127.0.0.1:${port()}/callback`,
    });
    return signIn;
  };
  return { start: () => lazy().start(), finish: (url, pending, nowMs) => lazy().finish(url, pending, nowMs),
    refresh: (token, nowMs) => lazy().refresh(token, nowMs) };
}

function localUpstream(ctx: CliContext, opts: ConsoleOptions, oidc: boolean): { upstream: Upstream; actionsOff: string | null } {
  const base = controlPlaneUrl(ctx, opts.url);
  const home = svcHome(ctx.env);
  const acting = actionSocket(homePaths(home), home, base);
  return {
    upstream: { name: 'local', base, tokens: oidc ? null : createTokenSource(ctx, { dir: opts.dir }), adminSocket: acting.socket },
    actionsOff: acting.socket === null ? acting.why : null,
  };
}

function openBrowser(url: string): void {
  const command = process.platform === 'darwin' ? 'open' : 'xdg-open';
  try {
    const child = spawn(command, [url], { detached: true, stdio: 'ignore' });
    child.on('error', () => undefined); // no opener: the printed link is enough
    child.unref();
  } catch {
    // as above
  }
}

export async function consoleCommand(opts: ConsoleOptions, ctx: CliContext): Promise<number> {
  const port = intFlag('--port', opts.port, 0, 65535) ?? 0;
  if (opts.as !== undefined && !/^[a-z0-9][a-z0-9._-]{0,63}$/.test(opts.as)) {
    throw new UsageError(`svc console: --as "${opts.as.slice(0, 64)}" is not a person id of oncall.yaml`);
  }
  let bound = 0;
  const oidc = opts.fleet ? null : signInFor(ctx, opts.dir, () => bound);
  const local = opts.fleet ? null : localUpstream(ctx, opts, oidc !== null);
  const upstreams: Upstream[] = local === null
    ? fleetTargets({ file: opts.file, host: opts.host, label: opts.label, json: false }, ctx)
      .map(({ host, target }) => ({ name: host.name, base: target.base, tokens: target.tokens, adminSocket: null }))
    : [local.upstream];
  const proxy = await startConsoleProxy({
    port, upstreams, fleet: opts.fleet, oidc,
    localIdentity: `local:${userInfo().username.replace(/[^\x21-\x7e]/g, '?')}`,
    actingAs: opts.as ?? null,
    admin: (socket, request) => adminRequest(socket, request, { clock: ctx.clock, timeoutMs: ADMIN_TIMEOUT_MS }),
    clock: ctx.clock,
    report: (line) => ctx.stderr(`${line}\n`),
  });
  bound = proxy.port;
  const what = opts.fleet ? `${upstreams.length} host(s) of fleet.yaml` : (upstreams[0]?.base ?? '');
  ctx.stdout(`svc console: open this link in your browser (it works once):\n  ${proxy.link}\n`);
  ctx.stderr(`svc console: showing ${what}${oidc !== null ? '; you will be asked to sign in' : ''}. Ctrl-C stops it.\n`);
  if (local?.actionsOff != null) ctx.stderr(`svc console: read-only, no actions: ${local.actionsOff}\n`);
  if (opts.open) openBrowser(proxy.link);
  await ctx.waitForSignal();
  await proxy.close();
  return 0;
}
