/** One JSON-lines log per agent (contract §13), mirrored to stdout in the foreground; SIGHUP reopens them. */
import type { Clock } from '../core/clock.js';
import type { AgentLog, FileAgentLog, LogMirror } from '../logs/agent-log.js';
import { createAgentLog, createLogSinkHealth } from '../logs/agent-log.js';
import { closeEach } from './close-order.js';

export interface AgentLogs {
  get(agentId: string): AgentLog;
  /** Failed writes of the agent's log (for /status). */
  failures(agentId: string): number;
  /** After logrotate's rename: every log opens its path afresh; the number of logs. */
  reopen(): number;
  close(): Promise<void>;
}

export function startAgentLogs(deps: { agentIds: readonly string[]; path: (agentId: string) => string; clock: Clock;
  report: (line: string) => void; mirror?: LogMirror }): AgentLogs {
  const health = createLogSinkHealth({ clock: deps.clock, report: deps.report });
  const logs = new Map<string, FileAgentLog>(deps.agentIds.map((id) => [id, createAgentLog({ path: deps.path(id), agentId: id,
    clock: deps.clock, health, ...(deps.mirror ? { mirror: deps.mirror } : {}) })]));
  return {
    get: (agentId) => logs.get(agentId) as AgentLog,
    failures: (agentId) => logs.get(agentId)?.failures() ?? 0,
    reopen() {
      for (const log of logs.values()) log.reopen?.();
      return logs.size;
    },
    close: () => closeEach([...logs.values()].reverse()),
  };
}
