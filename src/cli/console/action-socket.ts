/**
 * Whether `svc console` may act through this `$SVC_HOME`'s admin socket (contract §19.4: actions only
 * for a daemon on the same machine). The socket acts on this home's daemon; the console shows the
 * control plane at its base URL. Unless the two are one daemon, an ack pressed on a page one daemon
 * shows would land on the other (issue 33): so actions are on only when the base is the control
 * plane this home's running daemon recorded in its up-state — same host and port — and that daemon
 * is alive under the pid the up-state names. `--url` naming any other listener gives a read-only
 * console, and says why.
 */
import { readFileSync } from 'node:fs';
import type { HomePaths } from '../../config/paths.js';
import { isLoopbackBind } from '../../core/loopback.js';
import type { UpState } from '../daemon-files.js';
import { runningPid } from '../daemon-files.js';

export type ActionSocket = { socket: string } | { socket: null; why: string };

/** `host:port` of a URL, ports made explicit; null when it is not a URL. */
function endpoint(url: string): string | null {
  try {
    const u = new URL(url);
    return `${u.hostname.replace(/^\[|\]$/g, '')}:${u.port === '' ? (u.protocol === 'https:' ? '443' : '80') : u.port}`;
  } catch {
    return null;
  }
}

/** Pure: `state` the home's up-state as read (null: none), `pid` the home's live daemon (null: none). */
export function actionSocketFor(paths: Pick<HomePaths, 'adminSocket'>, home: string, base: string, state: Partial<UpState> | null,
  pid: number | null): ActionSocket {
  const shown = endpoint(base);
  const hostname = shown?.slice(0, shown.lastIndexOf(':')) ?? '';
  if (shown === null || !isLoopbackBind(hostname)) return { socket: null, why: `${base} is not on this machine` };
  if (pid === null || state === null || state.state !== 'running' || state.pid !== pid || typeof state.controlPlane !== 'string') {
    return { socket: null, why: `no svc runs in $SVC_HOME ${home} to act through` };
  }
  if (endpoint(state.controlPlane) !== shown) {
    return { socket: null, why: `${base} is not the control plane of the daemon of $SVC_HOME ${home} (${state.controlPlane})` };
  }
  return { socket: paths.adminSocket };
}

/** actionSocketFor with the home's up-state and pid file read. */
export function actionSocket(paths: HomePaths, home: string, base: string): ActionSocket {
  let state: Partial<UpState> | null = null;
  try {
    state = JSON.parse(readFileSync(paths.stateFile, 'utf8')) as Partial<UpState>;
  } catch {
    // no up-state: nothing runs here
  }
  return actionSocketFor(paths, home, base, state, runningPid(paths.pidFile));
}
