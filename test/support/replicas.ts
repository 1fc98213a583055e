/**
 * Replicas of one agent sharing a PostgreSQL store (contract §16), as an operator runs them: each an
 * `svc up -d` with its own `$SVC_HOME` (so its own replica id), its own ingest and control-plane
 * ports, and the same agent (a copy of one scaffold: same id, same HMAC secret) whose agent.yaml
 * names the database through `${env:SVC_DATABASE_URL}`. Used by the replica e2e tests and
 * bench/replicas.ts.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunResult, ScaffoldedAgent } from './svc.js';
import { appendAgentYaml, runSvc, scaffoldAgent, tempEnv } from './svc.js';

export interface Replica {
  name: string;
  home: string;
  env: NodeJS.ProcessEnv;
  agent: ScaffoldedAgent;
  /** The file channel's output of this replica. */
  outFile: string;
  up(): Promise<RunResult>;
  down(): Promise<RunResult>;
  /** The daemon's pid, from its pid file. */
  pid(): number;
  /** GET /status of this replica's control plane. */
  status(): Promise<{ store: { kind: string; replica: string; leader: boolean } } & Record<string, unknown>>;
  cleanup(): void;
}

export interface ReplicaOptions {
  name: string;
  dbUrl: string;
  /** The HMAC secret every replica shares (default: the one `svc init` makes for the first). */
  secret?: string;
  leaseMs?: number;
  /** YAML replacing channels.yaml (default: the template's file channel). */
  channelsYaml?: string;
  /** Extra YAML for agent.yaml (dispatch settings...). */
  agentYaml?: string;
}

export async function createReplica(opts: ReplicaOptions): Promise<Replica> {
  const t = tempEnv();
  if (opts.secret !== undefined) {
    // Written before `svc init`, which keeps an existing secret: every replica verifies the same HMAC.
    const dir = join(t.home, 'secrets', 'alert-escalation');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(join(dir, 'webhook-hmac'), `${opts.secret}\n`, { mode: 0o600 });
  }
  const agent = await scaffoldAgent(t, `agent-${opts.name}`);
  if (opts.channelsYaml !== undefined) writeFileSync(join(agent.dir, 'channels.yaml'), opts.channelsYaml);
  appendAgentYaml(agent.dir, [
    'store:',
    '  kind: postgres',
    '  url: ${env:SVC_DATABASE_URL}',
    `  leaseMs: ${opts.leaseMs ?? 60_000}`,
    opts.agentYaml ?? '',
  ].join('\n'));
  const env = { ...t.env, SVC_DATABASE_URL: opts.dbUrl, SVC_METRICS_PORT: String(agent.cpPort) };
  return {
    name: opts.name,
    home: t.home,
    env,
    agent,
    outFile: join(agent.dir, 'out', 'oncall-dm.jsonl'),
    up: () => runSvc(['up', '-d'], { env, cwd: agent.dir }),
    down: () => runSvc(['down'], { env, cwd: agent.dir }),
    pid: () => Number(readFileSync(join(t.home, 'up.pid'), 'utf8')),
    async status() {
      const res = await fetch(`${agent.cp}/status`);
      return await res.json() as { store: { kind: string; replica: string; leader: boolean } } & Record<string, unknown>;
    },
    cleanup: () => t.cleanup(),
  };
}

/** `count` replicas of one agent on database `dbUrl`, all sharing the first one's HMAC secret. */
export async function createReplicas(count: number, opts: Omit<ReplicaOptions, 'name'>): Promise<Replica[]> {
  const first = await createReplica({ ...opts, name: 'r1' });
  const rest: Replica[] = [];
  for (let i = 2; i <= count; i++) rest.push(await createReplica({ ...opts, name: `r${i}`, secret: opts.secret ?? first.agent.secret }));
  return [first, ...rest];
}

export interface WebhookReceiver {
  url: string;
  /** Every POST received: the message's eventId and its Idempotency-Key (deliveryId). */
  received: Array<{ eventId: string; deliveryId: string }>;
  close(): Promise<void>;
}

/** A webhook channel's far end on loopback that answers 200 after `delayMs` (a chat API's latency). */
export async function startWebhookReceiver(delayMs = 0): Promise<WebhookReceiver> {
  const { createServer } = await import('node:http');
  const received: WebhookReceiver['received'] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { eventId?: unknown };
        received.push({ eventId: String(body.eventId), deliveryId: String(req.headers['idempotency-key']) });
      } catch {
        // counted as nothing: the test looks for eventIds
      }
      setTimeout(() => { res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'); }, delayMs);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** channels.yaml with one webhook channel (same id as the template's file channel) posting to `url`. */
export function webhookChannelYaml(url: string): string {
  return `channels:\n  - id: oncall-dm\n    type: webhook\n    direction: outbound\n    url: ${url}\n    to: on-call\n`;
}
