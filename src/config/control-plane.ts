/**
 * The control-plane listener's settings for the whole daemon (contract §3): `controlPlane` of the
 * agents (the loader has checked they agree), then `SVC_METRICS_PORT`, which overrides the port; `0`
 * disables the listener. Invalid values are configuration errors, never a silent default.
 */
import { ConfigError } from '../core/errors.js';
import { isLoopbackBind } from '../control-plane/host-guard.js';
import type { LoadedAgent } from './schema.js';

export const DEFAULT_CONTROL_PLANE = { bind: '127.0.0.1', port: 9464 } as const;

export interface ControlPlaneSettings {
  enabled: boolean;
  bind: string;
  port: number;
}

export function resolveControlPlane(agents: readonly LoadedAgent[], env: NodeJS.ProcessEnv): ControlPlaneSettings {
  const configured = agents.find((a) => a.agent.controlPlane !== undefined)?.agent.controlPlane;
  const bind = configured?.bind ?? DEFAULT_CONTROL_PLANE.bind;
  let port: number = configured?.port ?? DEFAULT_CONTROL_PLANE.port;
  const raw = env.SVC_METRICS_PORT;
  if (raw !== undefined && raw !== '') {
    if (!/^\d{1,5}$/.test(raw) || Number(raw) > 65535) {
      throw new ConfigError(`SVC_METRICS_PORT: invalid port ${JSON.stringify(raw.slice(0, 32))} (expected an integer 0-65535; 0 disables the listener)`);
    }
    port = Number(raw);
  }
  if (port !== 0 && !isLoopbackBind(bind)) {
    // Authentication is not part of this build: a listener off loopback would be an open door.
    throw new ConfigError(`controlPlane.bind: ${bind} is not a loopback address; binding the control plane beyond loopback requires controlPlane.auth.enabled: true`);
  }
  return { enabled: port !== 0, bind, port };
}
