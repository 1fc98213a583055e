/**
 * Messages per second through each outbound channel against a zero-latency fake vendor on loopback
 * (an HTTP server that answers 202 at once; an smtp-server that accepts every mail), against the file
 * channel measured in the same run. 16 sends in flight, as the dispatcher's default concurrency. The
 * ratio says what a channel's own work (JSON, a TCP/HTTP round trip, an SMTP session per mail) costs.
 *
 * Run: node --import tsx bench/channel-send.ts
 */
import { setMaxListeners } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { channelSchema } from '../src/config/schema.js';
import { systemClock } from '../src/core/clock.js';
import type { Channel, OutboundMessage } from '../src/runtime/channels/channel.js';
import { createChannel } from '../src/runtime/channels/create-channel.js';
import { selfSignedCert, startSmtpServer } from '../test/support/smtp.js';

const IN_FLIGHT = 16;

const message = (i: number): OutboundMessage => ({
  eventId: `evt-${i}`, agentId: 'bench', severity: 'P1', status: 'firing', title: 'HighLatency on api-1',
  text: `[P1] HighLatency on api-1\nPage pbench${i} opened (step 1 of 2).\nAcknowledge: svc ack pbench${i}`, triagedBy: 'rules',
  deliveryId: `pbench${i}.1.alice.c`, attempt: 1, pageId: `pbench${i}`, pageKind: 'escalation',
});

async function rate(channel: Channel, count: number): Promise<number> {
  const signal = new AbortController().signal;
  // One signal is shared by the sends in flight, each listening for its abort.
  setMaxListeners(IN_FLIGHT * 4, signal);
  // Warm-up: connections, the JIT, undici's pool.
  for (let i = 0; i < Math.min(200, count / 10); i++) await channel.send(message(i), signal);
  let next = 0;
  let failed = 0;
  const start = performance.now();
  await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
    while (next < count) {
      const r = await channel.send(message(next++), signal);
      if (!r.ok) failed += 1;
    }
  }));
  const perSec = count / ((performance.now() - start) / 1000);
  await channel.close();
  if (failed > 0) throw new Error(`${channel.type}: ${failed} of ${count} sends failed`);
  return perSec;
}

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-channels-'));
const http = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(202, { 'Content-Type': 'application/json' });
    res.end('{"status":"success","message":"Event processed"}');
  });
});
await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', () => resolve()));
const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
const cert = selfSignedCert();
const plainSmtp = await startSmtpServer({ starttls: false });
const tlsSmtp = await startSmtpServer({ starttls: true, cert });
const make = (c: Record<string, unknown>): Channel => createChannel(channelSchema.parse({ direction: 'outbound', ...c }), { clock: systemClock });

try {
  const file = await rate(make({ id: 'file', type: 'file', path: join(dir, 'out.jsonl') }), 20_000);
  const webhook = await rate(make({ id: 'webhook', type: 'webhook', url: `${base}/hook` }), 4000);
  const teams = await rate(make({ id: 'teams', type: 'teams', url: `${base}/workflow` }), 4000);
  const pagerduty = await rate(make({ id: 'pd', type: 'pagerduty', routingKey: 'R0ut1ngKey00000000000000000000ab', url: `${base}/v2/enqueue` }), 4000);
  const emailClear = await rate(make({ id: 'mail', type: 'email', from: 'svc@example.com', to: 'oncall@example.com',
    smtp: { host: '127.0.0.1', port: plainSmtp.port, tls: 'none' } }), 500);
  const emailStarttls = await rate(make({ id: 'mail', type: 'email', from: 'svc@example.com', to: 'oncall@example.com',
    smtp: { host: '127.0.0.1', port: tlsSmtp.port, ca: cert.cert } }), 300);
  const per = { file, webhook, teams, pagerduty, emailClear, emailStarttls };
  console.log(JSON.stringify({
    bench: 'channel-send', inFlight: IN_FLIGHT,
    messagesPerSec: Object.fromEntries(Object.entries(per).map(([k, v]) => [k, Math.round(v)])),
    ratioToFile: Object.fromEntries(Object.entries(per).map(([k, v]) => [k, Number((v / file).toFixed(4))])),
  }));
} finally {
  http.closeAllConnections();
  http.close();
  await plainSmtp.close();
  await tlsSmtp.close();
  rmSync(dir, { recursive: true, force: true });
}
