/**
 * Fixtures of the console tests: a daemon whose deliveries dead-letter (a webhook channel to a port
 * nobody listens on, one attempt), alerts carrying an XSS corpus in labels, annotations and the
 * fingerprint, `svc console` started on a free port with its one-time link, and the checks that a
 * console page shows outside values only as text.
 */
import assert from 'node:assert/strict';
import { startDaemon } from './daemon.js';
import type { Daemon, DaemonOptions } from './daemon.js';
import { freePort, postWebhook, sign } from './http.js';
import { spawnSvc } from './svc.js';
import type { SpawnedSvc } from './svc.js';
import { waitFor } from './wait.js';

/** Hostile text: script tags, event-handler attributes, a javascript: URL, a right-to-left override. */
export const XSS = {
  script: '<script>alert(1)</script>',
  handler: '"><img src=x onerror=alert(2)>',
  url: 'javascript:alert(3)',
  rtl: 'invoice\u202Egnp.exe',
  quote: "' onmouseover='alert(4)",
} as const;

export async function startDeadLetteringDaemon(opts: DaemonOptions = {}): Promise<Daemon> {
  const dead = await freePort();
  return startDaemon({
    ...opts,
    // One try and no delivery window: the alert is a dead letter at once (the default keeps trying 30 minutes).
    agentYaml: `dispatch: { maxAttempts: 1, initialBackoffMs: 10, maxBackoffMs: 10 }\nstore: { deliveryWindow: 0s }\n${opts.agentYaml ?? ''}`,
    channelsYaml: `channels:\n  - id: oncall-dm\n    type: webhook\n    direction: outbound\n    url: http://127.0.0.1:${dead}/hook\n    to: on-call\n    maxAttempts: 1\n    timeoutMs: 1000\n`,
  });
}

/** Posts an alert with the corpus in its labels and annotations (and `fingerprint` as its header). */
export async function postHostileAlert(d: Daemon, fingerprint: string): Promise<void> {
  const alert = JSON.parse(d.fixture) as { alerts: Array<Record<string, Record<string, string>>>; commonLabels: Record<string, string> };
  const first = alert.alerts[0] as Record<string, Record<string, string>>;
  first.labels = { ...first.labels, alertname: XSS.script, team: XSS.handler, [XSS.quote]: XSS.rtl };
  first.annotations = { ...first.annotations, summary: `${XSS.script} ${XSS.rtl}`, runbook_url: XSS.url, description: XSS.handler };
  const body = JSON.stringify(alert);
  const r = await postWebhook(d.url, body, { 'x-signature': sign(d.secret, body), 'x-alert-fingerprint': fingerprint });
  assert.equal(r.status, 202, JSON.stringify(r.json));
}

/** A page shows outside values only as text: its one script is the console's, no handler, no javascript: URL, no raw bidi override. */
export function assertInert(body: string, where: string): void {
  assert.deepEqual(body.match(/<script\b[^>]*>/gi), ['<script src="/ui/assets/console.js" defer>'], `${where}: scripts`);
  assert.doesNotMatch(body, /<[a-z][^>]*\son[a-z]+\s*=/i, `${where}: an event-handler attribute`);
  assert.doesNotMatch(body, /(href|src|action)\s*=\s*["']?\s*javascript:/i, `${where}: a javascript: URL`);
  assert.doesNotMatch(body, /<(img|svg|iframe|object)\b/i, `${where}: a foreign element`);
  assert.doesNotMatch(body, /[\u202a-\u202e\u2066-\u2069]/, `${where}: a raw bidi control`);
}

export interface RunningConsole {
  port: number;
  origin: string;
  link: string;
  process: SpawnedSvc;
  stop(): Promise<void>;
}

/** `svc console --no-open --port <free> [...args]` in the daemon's directory; resolves once it prints its link. */
export async function startConsole(d: Daemon, args: string[] = [], fixedPort?: number): Promise<RunningConsole> {
  const port = fixedPort ?? await freePort();
  const proc = spawnSvc(['console', '--no-open', '--port', String(port), ...args], { env: d.env, cwd: d.dir });
  const link = await waitFor('svc console to print its link', () => /http:\/\/127\.0\.0\.1:\d+\/login\?token=[A-Za-z0-9_-]+/.exec(proc.stdout())?.[0]
    ?? (proc.stderr().includes('svc:') ? Promise.reject(new Error(proc.stderr())) : undefined), 60_000);
  return { port, origin: `http://127.0.0.1:${port}`, link, process: proc, stop: async () => { await proc.stop(); } };
}

/** The team console's OIDC client, as the IdP registers it and agent.yaml names it. */
export const TEAM_CLIENT = { id: 'svc-team', secret: 'team-console-client-secret-0123456789' };

export interface TeamConsoleDaemon {
  daemon: Daemon;
  /** The console's publicUrl, `http://127.0.0.1:<port>` (no proxy in front). */
  origin: string;
  port: number;
}

/**
 * A daemon with a team console (§24.6) signing in at `issuer`: its port is chosen first, since the
 * IdP must know the redirect `<origin>/auth/callback`; the client secret is a `${secret:}` reference.
 * `oncall` is the oncall.yaml (people with `login:` are the ones who may act).
 */
export async function startTeamConsoleDaemon(issuer: string, port: number, oncall: string, opts: DaemonOptions = {}): Promise<TeamConsoleDaemon> {
  const origin = `http://127.0.0.1:${port}`;
  const daemon = await startDaemon({
    ...opts,
    secrets: { ...opts.secrets, 'console/oidc': TEAM_CLIENT.secret },
    files: { ...opts.files, 'oncall.yaml': oncall },
    agentYaml: `console:\n  bind: 127.0.0.1\n  port: ${port}\n  publicUrl: ${origin}\n  oidc:\n    issuer: ${issuer}\n    clientId: ${TEAM_CLIENT.id}\n`
      + `    clientSecret: \${secret:console/oidc}\n${opts.agentYaml ?? ''}`,
  });
  return { daemon, origin, port };
}
