/**
 * The store as the runtime uses it when audit rows are exported: after every write that appends to
 * the chain (ingest, completions, replays, audit append) the exporter is told, so an idle exporter does not wait
 * out its longest interval before shipping a fresh row.
 */
import type { Store } from '../store/store.js';

export function notifyingStore(store: Store, notify: () => void): Store {
  const after = <T>(p: Promise<T>): Promise<T> => p.then((value) => { notify(); return value; });
  return {
    ...store,
    ingestEvent: (event, nowMs) => after(store.ingestEvent(event, nowMs)),
    completeEvents: (completions, nowMs) => after(store.completeEvents(completions, nowMs)),
    replayDeadLetters: (selection, actor, nowMs) => after(store.replayDeadLetters(selection, actor, nowMs)),
    appendAudit: (entry, nowMs) => after(store.appendAudit(entry, nowMs)),
  };
}
