/**
 * `svc check [DIR...] [--json]` (contract §13): everything `svc up` validates — `.env`, every file,
 * key and reference, MCP commands on PATH, TLS pairs, the store file, the admin socket path, and that
 * every port it would listen on is free — with nothing started. Exit 0, or 2 listing every problem.
 * On a running deployment the ports its own daemon holds (same home, same agents) are fine
 * (own-daemon-ports.ts): the check passes before a restart, and fails on a port anything else holds.
 */
import { createServer } from 'node:net';
import { bindHostProblems } from '../config/bind-hosts.js';
import { homePaths } from '../config/paths.js';
import type { LoadedAgent } from '../config/schema.js';
import { answerSourcesOf } from '../config/schema.js';
import { answerListeners } from '../config/settings.js';
import type { DaemonSettings } from '../config/settings.js';
import { ConfigError, EXIT } from '../core/errors.js';
import { checkStore } from '../store/open-store.js';
import type { CliContext } from './context.js';
import { runningPid } from './daemon-files.js';
import type { OwnDaemon } from './own-daemon-ports.js';
import { ownDaemonPorts } from './own-daemon-ports.js';
import { loadForUp } from './up.js';

/** sun_path of a Unix socket holds 108 bytes on Linux, the terminating NUL included. */
const MAX_SOCKET_PATH = 107;

function portInUse(host: string, port: number): Promise<string | null> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(null)));
  });
}

interface PortReport { problems: string[]; ports: string[]; free: string[]; held: string[] }

async function portProblems(settings: DaemonSettings, agents: readonly LoadedAgent[], unresolved: boolean, own: OwnDaemon | null): Promise<PortReport> {
  const { controlPlane } = settings;
  const wanted = new Map<string, { host: string; port: number; who: string }>();
  // Port 0 is an ephemeral port: never in use.
  for (const l of [...settings.listeners, ...answerListeners(agents)]) if (l.port !== 0) wanted.set(l.key, { host: l.bind, port: l.port, who: l.who });
  if (controlPlane.enabled && controlPlane.port !== 0) {
    const key = `${controlPlane.bind}:${controlPlane.port}`;
    if (!wanted.has(key)) wanted.set(key, { host: controlPlane.bind, port: controlPlane.port, who: 'the control plane' });
    else wanted.set(`${key}#cp`, { host: controlPlane.bind, port: controlPlane.port, who: 'the control plane (also an ingest port)' });
  }
  const problems: string[] = [];
  const free: string[] = [];
  const held: string[] = [];
  for (const [key, { host, port, who }] of wanted) {
    // The bind may come from a reference: problems name the port and its owner, never the address.
    if (key.endsWith('#cp')) {
      problems.push(`port ${port}: wanted by ${who}`);
      continue;
    }
    if (unresolved) continue; // said once, by bindHostProblems
    const error = await portInUse(host, port);
    if (error === null) free.push(key);
    else if (error === 'EADDRINUSE' && own?.ports.has(port) === true) held.push(key); // its own daemon's listener
    else problems.push(`port ${port} (${who}): ${error === 'EADDRINUSE' ? 'in use' : error}`);
  }
  return { problems, ports: [...wanted.keys()].filter((k) => !k.endsWith('#cp')), free, held };
}

export async function checkCommand(dirs: string[], opts: { json?: boolean }, ctx: CliContext): Promise<number> {
  let loaded: ReturnType<typeof loadForUp>;
  try {
    loaded = loadForUp(dirs, ctx);
  } catch (err) {
    if (!(err instanceof ConfigError) || !opts.json) throw err;
    ctx.stdout(`${JSON.stringify({ ok: false, agents: [], problems: err.message.split('\n') })}\n`);
    return EXIT.usage;
  }
  const { agents, home } = loaded;
  const { controlPlane, store } = loaded.settings;
  const paths = homePaths(home);
  const problems: string[] = [];
  const storeProblem = await checkStore(store);
  if (storeProblem !== null) problems.push(storeProblem);
  if (Buffer.byteLength(paths.adminSocket) > MAX_SOCKET_PATH) {
    problems.push(`the admin socket path ${paths.adminSocket} is longer than a Unix socket allows (${MAX_SOCKET_PATH} bytes): use a shorter $SVC_HOME`);
  }
  const unresolved = await bindHostProblems(agents, controlPlane);
  problems.push(...unresolved);
  const own = ownDaemonPorts(paths, agents.map((a) => a.agent.id));
  const ports = await portProblems(loaded.settings, agents, unresolved.length > 0, own);
  const pid = runningPid(paths.pidFile);
  problems.push(...ports.problems.map((p) => (pid === null ? p : `${p} (svc runs in this $SVC_HOME as pid ${pid})`)));

  const summary = agents.map((a) => {
    const oncall = loaded.oncall.get(a.agent.id);
    const sources = [...a.sources, ...answerSourcesOf(a)];
    return { id: a.agent.id, dir: a.dir, sources: sources.map((s) => s.id), channels: a.channels.map((c) => c.id),
      mcpServers: a.agent.mcpServers.map((m) => m.id),
      // oncall.yaml (§17): null when the agent has none and pages the channel's own recipient.
      oncall: oncall ? { people: oncall.people.length, schedules: oncall.schedules.map((s) => s.id), policies: oncall.policies.map((p) => p.id),
        heartbeats: oncall.heartbeats.map((h) => h.id) } : null };
  });
  if (opts.json) {
    const running = own === null ? {} : { running: { pid: own.pid, heldPorts: ports.held } };
    ctx.stdout(`${JSON.stringify({ ok: problems.length === 0, agents: summary, ports: ports.ports, ...running, notes: loaded.notes, problems })}\n`);
  } else {
    for (const note of loaded.notes) ctx.stderr(`svc check: ${note}\n`);
    for (const a of summary) {
      const oncall = a.oncall ? `; on call: ${a.oncall.schedules.length} schedule(s), ${a.oncall.policies.length} polic${a.oncall.policies.length === 1 ? 'y' : 'ies'}` : '';
      ctx.stdout(`svc check: ${a.dir}: agent ${a.id}: ${a.sources.length} source(s), ${a.channels.length} channel(s), ${a.mcpServers.length} MCP server(s)${oncall}\n`);
    }
    const heldNote = ports.held.length === 0 || own === null ? '' : `; held by the svc running in this $SVC_HOME (pid ${own.pid}): ${ports.held.join(', ')}`;
    if (problems.length === 0) ctx.stdout(`svc check: ok; ports free: ${ports.free.join(', ') || 'none'}${heldNote}\n`);
    else ctx.stderr(`svc check: ${problems.length} problem(s):\n${problems.map((p) => `  ${p}`).join('\n')}\n`);
  }
  return problems.length === 0 ? EXIT.ok : EXIT.usage;
}
