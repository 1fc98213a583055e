/**
 * The store as the runtime uses it when audit rows are exported: after every write that appends to
 * the chain (ingest, completions, replays, audit append) the exporter is told, so an idle exporter does not wait
 * out its longest interval before shipping a fresh row. Each call passes its arguments on whole, so a
 * parameter added to the store (a replay's `via`) is never dropped here.
 */
import type { Store } from '../store/store.js';

export function notifyingStore(store: Store, notify: () => void): Store {
  const after = <T>(p: Promise<T>): Promise<T> => p.then((value) => { notify(); return value; });
  return {
    ...store,
    ingestEvent: (...args) => after(store.ingestEvent(...args)),
    completeEvents: (...args) => after(store.completeEvents(...args)),
    replayDeadLetters: (...args) => after(store.replayDeadLetters(...args)),
    appendAudit: (...args) => after(store.appendAudit(...args)),
  };
}
