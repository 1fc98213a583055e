/**
 * `svc up [-d] [DIR...]`: validates every agent directory first (exit 2 on a configuration error,
 * before anything starts or detaches), then runs the daemon in the foreground until SIGINT/SIGTERM,
 * or with -d spawns it detached and returns once it is ready (exit 0) or has failed (exit 1).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, openSync, closeSync } from 'node:fs';
import { resolve } from 'node:path';
import { bindHostProblems } from '../config/bind-hosts.js';
import { withDotenv } from '../config/dotenv.js';
import { loadAgents } from '../config/load-agent.js';
import type { OncallConfig } from '../oncall/oncall-config.js';
import { loadOncallForAgents } from '../oncall/load-oncall.js';
import type { OtlpSettings } from '../config/otlp.js';
import { otlpSettingsFromEnv } from '../config/otlp.js';
import { homePaths, svcHome } from '../config/paths.js';
import type { DaemonSettings } from '../config/settings.js';
import { answerListeners, resolveSettings } from '../config/settings.js';
import type { LoadedAgent } from '../config/schema.js';
import { isoTs } from '../core/clock.js';
import { ConfigError, UsageError, errorText } from '../core/errors.js';
import { packageVersion } from '../core/version.js';
import type { DaemonConfig } from '../daemon/config-reload.js';
import { startDaemon } from '../daemon/start-daemon.js';
import type { LogFormat } from '../logs/console-log.js';
import { LOG_FORMATS, createConsoleLog } from '../logs/console-log.js';
import type { CliContext } from './context.js';
import type { AnswerListener } from './daemon-files.js';
import { acquirePidFile, releasePidFile, runningPid, writeState } from './daemon-files.js';
import { listenerAuthority, sourceUrl } from '../config/source-url.js';

/** Messages a detached daemon sends its parent over the IPC channel. */
type ReadyMessage = { type: 'ready'; pid: number; ingest: string[]; answers: AnswerListener[]; controlPlane: string | null } | { type: 'failed'; error: string };

const DETACH_READY_TIMEOUT_MS = 60_000;

export interface UpOptions {
  detach: boolean;
  /** Foreground stdout: JSON lines (default) or text for people (contract §13). */
  logFormat?: string;
  /** A shadow run of every agent (contract §22.3), whatever their agent.yaml says. */
  shadow?: boolean;
}

/** What `svc up` and `svc check` validate before anything starts: DIR/.env, every file, every reference. */
export function loadForUp(dirs: string[], ctx: CliContext, opts: { shadow?: boolean } = {}): {
  absDirs: string[]; home: string; env: NodeJS.ProcessEnv; notes: string[]; agents: LoadedAgent[];
  settings: DaemonSettings; otlp: OtlpSettings | null;
  /** The agents' oncall.yaml, by agent id (agents without one are absent: they page as before, §17). */
  oncall: Map<string, OncallConfig>;
} {
  const home = svcHome(ctx.env);
  const absDirs = (dirs.length > 0 ? dirs : ['.']).map((d) => resolve(ctx.cwd, d));
  const { env, notes } = withDotenv(absDirs, ctx.env);
  const files = loadAgents(absDirs, { env, home });
  // `svc up --shadow` holds for every reload of the run too: the daemon keeps what it started as.
  const agents = opts.shadow === true ? files.map((a) => ({ ...a, agent: { ...a.agent, shadow: true } })) : files;
  const settings = resolveSettings(agents, env, home);
  const otlp = otlpSettingsFromEnv(env);
  const oncall = loadOncallForAgents(agents, { env, home, nowMs: ctx.clock.now() });
  return { absDirs, home, env, notes, agents, settings, otlp, oncall };
}

export async function upCommand(dirs: string[], opts: UpOptions, ctx: CliContext): Promise<number> {
  const format = opts.logFormat ?? 'json';
  if (!(LOG_FORMATS as readonly string[]).includes(format)) {
    throw new UsageError(`svc up: --log-format must be one of ${LOG_FORMATS.join(', ')}`);
  }
  const shadow = { shadow: opts.shadow === true };
  const loaded = loadForUp(dirs, ctx, shadow);
  const unresolved = await bindHostProblems(loaded.agents, loaded.settings.controlPlane);
  if (unresolved.length > 0) throw new ConfigError(unresolved.join('\n'));
  for (const note of loaded.notes) ctx.stderr(`svc up: ${note}\n`);
  return opts.detach
    ? detach(loaded.absDirs, loaded.home, format as LogFormat, shadow.shadow, ctx)
    : foreground(loaded.agents, { ...loaded, format: format as LogFormat, loadConfig: () => daemonConfig(loadForUp(dirs, ctx, shadow)) }, loaded.home, ctx);
}

/** What the daemon runs of what `loadForUp` loads (a config reload loads it again the same way). */
function daemonConfig(loaded: ReturnType<typeof loadForUp>): DaemonConfig {
  return { agents: loaded.agents, oncall: loaded.oncall, controlPlane: loaded.settings.controlPlane, store: loaded.settings.store, otlp: loaded.otlp };
}

/** What MCP server processes inherit: enough to find their interpreter, nothing of the daemon's secrets. */
export function mcpBaseEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const base: Record<string, string> = {};
  for (const key of ['PATH', 'HOME', 'LANG', 'TZ']) {
    const value = env[key];
    if (value !== undefined) base[key] = value;
  }
  return base;
}

/** The ack and Slack sources' listeners (§18.2, §18.6): who, and the base URL a client on this host dials. */
function answerUrls(agents: LoadedAgent[]): AnswerListener[] {
  return answerListeners(agents).map((l) => ({ who: l.who, url: `http://${listenerAuthority(l.bind, l.port, true)}` }));
}

function ingestUrls(agents: LoadedAgent[], ports: number[]): string[] {
  return agents.flatMap((a) =>
    a.sources.map((s) => sourceUrl(s, { dialable: true, port: s.port !== 0 ? s.port : (ports[0] ?? 0) })),
  );
}

async function foreground(agents: LoadedAgent[], settings: { settings: DaemonSettings; otlp: OtlpSettings | null;
  env: NodeJS.ProcessEnv; format: LogFormat; oncall: Map<string, OncallConfig>; loadConfig: () => DaemonConfig }, home: string,
  ctx: CliContext): Promise<number> {
  const { controlPlane } = settings.settings;
  const paths = homePaths(home);
  const ids = agents.map((a) => a.agent.id);
  // SIGHUP reopens the logs (contract §13) and reloads the configuration (the daemon reports the
  // outcome); it never stops the daemon: handled from the very start.
  let daemon: Awaited<ReturnType<typeof startDaemon>> | undefined;
  const stopHangup = ctx.onHangup?.(() => {
    if (daemon === undefined) return;
    daemon.reopenLogs();
    daemon.reload('signal:SIGHUP').catch((err: unknown) => report(`config reload failed: ${errorText(err)}`));
  });
  acquirePidFile(paths.pidFile, ctx.pid);
  const startedAt = isoTs(ctx.clock.now());
  const base = { pid: ctx.pid, startedAt, agents: ids, ingest: [] as string[], answers: [] as AnswerListener[], controlPlane: null as string | null };
  writeState(paths.stateFile, { ...base, state: 'starting' });
  // The daemon's log on stdout (contract §13). Detached (`-d`), stdout is up.log: the agents' records
  // are in their own files already, so only the daemon's own lines go there.
  const consoleLog = createConsoleLog({ format: settings.format, clock: ctx.clock, write: ctx.stdout });
  const report = (line: string): void => consoleLog.line(/error|failed/i.test(line) ? 'error' : 'info', line);
  try {
    daemon = await startDaemon({ agents, settings: settings.settings, otlp: settings.otlp, mcpBaseEnv: mcpBaseEnv(settings.env), home,
      oncall: settings.oncall, loadConfig: settings.loadConfig,
      clock: ctx.clock, version: packageVersion(), pid: ctx.pid, report,
      ...(ctx.notifyParent ? {} : { logMirror: (record) => consoleLog.record(record) }) });
  } catch (err) {
    const error = errorText(err);
    writeState(paths.stateFile, { ...base, state: 'failed', error });
    releasePidFile(paths.pidFile, ctx.pid);
    ctx.notifyParent?.({ type: 'failed', error } satisfies ReadyMessage);
    ctx.stderr(`svc up: startup failed: ${error}\n`);
    stopHangup?.();
    return 1;
  }
  const ingest = ingestUrls(agents, daemon.ingestPorts());
  const cpPort = daemon.controlPlanePort();
  const cpUrl = cpPort === null ? null : `http://${listenerAuthority(controlPlane.bind, cpPort, false)}`;
  const answers = answerUrls(agents);
  const running = { ...base, ingest, answers, controlPlane: cpUrl };
  writeState(paths.stateFile, { ...running, state: 'running' });
  report(`svc up: running (pid ${ctx.pid}); agents: ${ids.join(', ')}`);
  for (const url of ingest) report(`svc up: webhook ingest ${url}`);
  for (const a of answers) report(`svc up: ${a.who}: ${a.url}`);
  report(`svc up: control plane ${cpUrl ?? 'disabled (SVC_METRICS_PORT=0)'}`);
  ctx.notifyParent?.({ type: 'ready', pid: ctx.pid, ingest, answers, controlPlane: cpUrl } satisfies ReadyMessage);

  const signal = await ctx.waitForSignal();
  report(`svc up: ${signal} received, draining in-flight work`);
  writeState(paths.stateFile, { ...running, state: 'stopping' });
  try {
    await daemon.close();
  } finally {
    stopHangup?.();
    writeState(paths.stateFile, { ...running, state: 'stopped' });
    releasePidFile(paths.pidFile, ctx.pid);
  }
  report('svc up: stopped');
  return 0;
}

async function detach(dirs: string[], home: string, format: LogFormat, shadow: boolean, ctx: CliContext): Promise<number> {
  const paths = homePaths(home);
  const other = runningPid(paths.pidFile);
  if (other !== null) {
    ctx.stderr(`svc up: svc is already running (pid ${other}); stop it with \`svc down\` first\n`);
    return 1;
  }
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const logFd = openSync(paths.upLog, 'a', 0o600);
  const runner = ctx.mainScript.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const child = spawn(process.execPath, [...runner, ctx.mainScript, 'up', '--log-format', format, ...(shadow ? ['--shadow'] : []), ...dirs], {
    cwd: ctx.cwd,
    env: ctx.env,
    detached: true,
    stdio: ['ignore', logFd, logFd, 'ipc'],
  });
  closeSync(logFd);
  const outcome = await new Promise<ReadyMessage>((done) => {
    // The IPC channel keeps the process alive while it waits; the clock's timer alone would not.
    const timer = ctx.clock.setTimer(() => {
      child.kill('SIGTERM');
      done({ type: 'failed', error: `daemon not ready after ${DETACH_READY_TIMEOUT_MS / 1000} s (see ${paths.upLog})` });
    }, DETACH_READY_TIMEOUT_MS);
    child.once('message', (msg: ReadyMessage) => { ctx.clock.clearTimer(timer); done(msg); });
    child.once('exit', (code) => {
      ctx.clock.clearTimer(timer);
      done({ type: 'failed', error: `daemon exited with code ${code ?? 'null'} before it was ready (see ${paths.upLog})` });
    });
    child.once('error', (err) => { ctx.clock.clearTimer(timer); done({ type: 'failed', error: err.message }); });
  });
  if (child.connected) child.disconnect();
  child.unref();
  if (outcome.type === 'failed') {
    ctx.stderr(`svc up: startup failed: ${outcome.error}\n`);
    return 1;
  }
  ctx.stdout(`svc up: running in the background (pid ${outcome.pid})\n`);
  for (const url of outcome.ingest) ctx.stdout(`  webhook ingest: ${url}\n`);
  for (const a of outcome.answers) ctx.stdout(`  ${a.who}: ${a.url}\n`);
  ctx.stdout(`  control plane: ${outcome.controlPlane ?? 'disabled (SVC_METRICS_PORT=0)'}\n`);
  ctx.stdout(`  logs: ${paths.logs}/<agent>.log   daemon output: ${paths.upLog}\n  stop: svc down\n`);
  return 0;
}
