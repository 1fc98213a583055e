/**
 * The daemon's listeners as /status shows them (contract §25.3): each starter registers what it
 * opened — kind, agent, source, bind, and live functions for its bound port and its URL — and /status
 * lists them in the order of LISTENER_KINDS. A new kind of listener registers here and appears in
 * `svc ps` with nothing else to change.
 */
import type { ListenerKind, StatusListener } from '../control-plane/routes/status-route.js';
import { LISTENER_KINDS } from '../control-plane/routes/status-route.js';

export interface ListenerEntry {
  kind: ListenerKind;
  agent: string | null;
  source: string | null;
  bind: string;
  /** The bound port, read when /status is asked. */
  port(): number;
  /** Where it is reached, read when /status is asked (an ack source's publicUrl changes on a config reload). */
  url(): string;
}

export interface ListenerRegistry {
  add(entry: ListenerEntry): void;
  list(): StatusListener[];
}

export function createListenerRegistry(): ListenerRegistry {
  const entries: ListenerEntry[] = [];
  return {
    add(entry) {
      entries.push(entry);
    },
    list() {
      // Stable: within a kind, the order of registration (the order of the configuration).
      return [...entries].sort((a, b) => LISTENER_KINDS.indexOf(a.kind) - LISTENER_KINDS.indexOf(b.kind))
        .map((e) => ({ kind: e.kind, agent: e.agent, source: e.source, bind: e.bind, port: e.port(), url: e.url() }));
    },
  };
}
