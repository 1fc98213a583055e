/**
 * The store as the runtime uses it when audit rows are exported: after every write that appends to
 * the chain (ingest, dead letter, audit append) the exporter is told, so an idle exporter does not wait
 * out its longest interval before shipping a fresh row.
 */
import type { Store } from '../store/store.js';

export function notifyingStore(store: Store, notify: () => void): Store {
  const after = <T>(p: Promise<T>): Promise<T> => p.then((value) => { notify(); return value; });
  return {
    ...store,
    ingestEvent: (event, windowMs) => after(store.ingestEvent(event, windowMs)),
    addDeadLetter: (letter) => after(store.addDeadLetter(letter)),
    appendAudit: (entry) => after(store.appendAudit(entry)),
  };
}
