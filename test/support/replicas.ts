/**
 * Replicas of one agent sharing a PostgreSQL store (contract §16), as an operator runs them: each a
 * daemon of its own (`startDaemon`: own `$SVC_HOME`, so its own replica id, own ingest and
 * control-plane ports) with the same agent — same id, same HMAC secret — whose agent.yaml names the
 * database through `${env:SVC_DATABASE_URL}`. And the far end of a webhook channel. Used by the
 * replica e2e tests and bench/replicas.ts.
 */
import { createServer } from 'node:http';
import { join } from 'node:path';
import type { Daemon, DaemonOptions } from './daemon.js';
import { startDaemon } from './daemon.js';

export interface Replica extends Daemon {
  /** The file channel's output of this replica. */
  outFile: string;
  /** GET /status of this replica's control plane. */
  status(): Promise<{ store: { kind: string; replica: string; leader: boolean } } & Record<string, unknown>>;
}

export interface ReplicaOptions extends Pick<DaemonOptions, 'channelsYaml' | 'files'> {
  dbUrl: string;
  /** `store.leaseMs` (default: svc's own, DEFAULT_LEASE_MS). */
  leaseMs?: number;
  /** More YAML for agent.yaml (dispatch settings...). */
  agentYaml?: string;
}

const HMAC_PATH = 'alert-escalation/webhook-hmac';

/** Starts one replica; `secret`: the HMAC secret it shares with the others (default: its own). */
export async function startReplica(opts: ReplicaOptions, secret?: string): Promise<Replica> {
  const daemon = await startDaemon({
    agentYaml: ['store:', '  kind: postgres', '  url: ${env:SVC_DATABASE_URL}', ...(opts.leaseMs === undefined ? [] : [`  leaseMs: ${opts.leaseMs}`]),
      opts.agentYaml ?? ''].join('\n'),
    env: { SVC_DATABASE_URL: opts.dbUrl },
    ...(opts.channelsYaml === undefined ? {} : { channelsYaml: opts.channelsYaml }),
    ...(opts.files === undefined ? {} : { files: opts.files }),
    ...(secret === undefined ? {} : { secrets: { [HMAC_PATH]: secret } }),
  });
  return {
    ...daemon,
    secret: secret ?? daemon.secret,
    outFile: join(daemon.dir, 'out', 'oncall-dm.jsonl'),
    async status() {
      const res = await fetch(`${daemon.cp}/status`);
      return await res.json() as { store: { kind: string; replica: string; leader: boolean } } & Record<string, unknown>;
    },
  };
}

/** `count` replicas of one agent on database `dbUrl`, started one after another, sharing the first one's HMAC secret. */
export async function startReplicas(count: number, opts: ReplicaOptions): Promise<Replica[]> {
  const first = await startReplica(opts);
  const all = [first];
  for (let i = 1; i < count; i++) all.push(await startReplica(opts, first.secret));
  return all;
}

export interface WebhookReceiver {
  url: string;
  /** Every POST received: the message's eventId and its Idempotency-Key (deliveryId). */
  received: Array<{ eventId: string; deliveryId: string }>;
  close(): Promise<void>;
}

/** A webhook channel's far end on loopback that answers 200 after `delayMs` (a chat API's latency). */
export async function startWebhookReceiver(delayMs = 0): Promise<WebhookReceiver> {
  const received: WebhookReceiver['received'] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { eventId?: unknown };
        received.push({ eventId: String(body.eventId), deliveryId: String(req.headers['idempotency-key']) });
      } catch {
        // not a message: the tests look for eventIds
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
