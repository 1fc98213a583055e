// The storm's load generator, in a process of its own: Alertmanager-format webhook POSTs read from a
// JSON file ([{ body, headers }], in order), sent open-loop — request i at start + i × spacing ms,
// whether or not earlier ones were answered — over kept-alive connections. Prints one JSON line: per
// request its planned, sent and answered instants (epoch ms, the same clock as the daemon's file
// channel), status and eventId, and the sender's own CPU time, so the bench can show it kept its
// schedule (the sender is not the bottleneck).
//
//   node bench/lib/storm-sender.mjs <url> <requests.json> <spacingMs> <startAtEpochMs>
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { URL } from 'node:url';

const [url, file, spacingArg, startArg] = process.argv.slice(2);
const requests = JSON.parse(readFileSync(file, 'utf8'));
const spacing = Number(spacingArg);
const startAt = Number(startArg);
const agent = new Agent({ keepAlive: true, maxSockets: 64 });
const target = new URL(url);
const out = requests.map(() => ({ plannedMs: 0, sentMs: 0, answeredMs: 0, status: 0, eventId: null }));

function send(i) {
  return new Promise((resolve) => {
    const r = out[i];
    const { body, headers } = requests[i];
    r.sentMs = Date.now();
    const req = request({ agent, host: target.hostname, port: target.port, path: target.pathname, method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        r.answeredMs = Date.now();
        r.status = res.statusCode ?? 0;
        try { r.eventId = JSON.parse(Buffer.concat(chunks).toString()).eventId ?? null; } catch { r.eventId = null; }
        resolve();
      });
    });
    req.on('error', () => { r.answeredMs = Date.now(); r.status = -1; resolve(); });
    req.end(body);
  });
}

const cpu0 = process.cpuUsage();
const inFlight = [];
for (let i = 0; i < requests.length; i++) {
  const planned = startAt + i * spacing;
  out[i].plannedMs = planned;
  const wait = planned - Date.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  inFlight.push(send(i));
}
await Promise.all(inFlight);
const cpu = process.cpuUsage(cpu0);
agent.destroy();
process.stdout.write(`${JSON.stringify({ results: out, cpuMs: (cpu.user + cpu.system) / 1000 })}\n`);
