/**
 * The frame of a view of one record (`/ui/events/<id>`, `/ui/pages/<id>`): the id from the path,
 * checked against its pattern (a 404 that says so otherwise, before any store read), then the render
 * under the read gate, released whatever happens. A client that left while waiting for the gate gets
 * no answer.
 */
import { takeTurn } from '../../read-gate.js';
import { html } from '../html.js';
import type { View, ViewAnswer } from './view-types.js';
import type { UiDeps, UiRequest } from './view-types.js';

export interface RecordViewSpec {
  /** The path before the id, e.g. `/ui/events/`. */
  prefix: string;
  pattern: RegExp;
  /** What the record is called in the 404 ("event", "page"); the list view is the section. */
  noun: string;
  section: string;
  /** The view of the record with this id; `notFound` when the store has none. */
  render(id: string, deps: UiDeps, req: UiRequest, notFound: ViewAnswer): Promise<ViewAnswer>;
}

export function recordView(spec: RecordViewSpec): View {
  const notFound: ViewAnswer = { status: 404, title: `${spec.noun[0]?.toUpperCase() ?? ''}${spec.noun.slice(1)} not found`, section: spec.section,
    body: html`<p>There is no ${spec.noun} with this id. <a href="${spec.section}">All ${spec.noun}s</a></p>` };
  return async (deps, req) => {
    let id: string;
    try {
      id = decodeURIComponent(req.url.pathname.slice(spec.prefix.length));
    } catch {
      id = '';
    }
    if (!spec.pattern.test(id)) return notFound;
    const leave = await takeTurn(deps.gate, req.signal);
    if (leave === null) return { status: 0 };
    try {
      return await spec.render(id, deps, req, notFound);
    } finally {
      leave();
    }
  };
}
