/**
 * The HTTP half of a paginated view (contract §5), shared by /events, /dlq and /audit: parse the
 * query (400 naming the parameter), read one keyset page from the store, answer
 * `{"items": [...], "nextCursor": <string|null>}` plus any members the view adds. A record's payload
 * or data is the stored JSON text, embedded as it is: the daemon never parses a megabyte to print it.
 */
import { errorText } from '../../core/errors.js';
import { InvalidCursorError } from '../../store/cursor.js';
import type { Page, PageQuery } from '../../store/store.js';
import { sendError, sendJsonText } from '../http-json.js';
import type { ViewQuery, ViewSpec } from '../page-query.js';
import { parseViewQuery } from '../page-query.js';
import type { ReadGate } from '../read-gate.js';
import type { RouteHandler } from '../route.js';

/** Where a route's unexpected failures go (the daemon's log); one line each, never to the client. */
export type Report = (line: string) => void;

export const stderrReport: Report = (line) => { process.stderr.write(`${line}\n`); };

export interface ViewRouteOptions<F extends string, T> {
  /** The route's path, for log lines. */
  path: string;
  spec: ViewSpec<F>;
  list(page: PageQuery, filter: ViewQuery<F>['filter']): Promise<Page<T>>;
  /**
   * The record as the contract shows it: an explicit pick, so nothing else ever leaks out, plus the
   * stored JSON text that goes under `rawKey` (null: JSON null, the record is corrupt).
   */
  item(record: T): ViewItem;
  /** Members added to the envelope after the page was read (e.g. /audit's `verify`). */
  extend?(query: ViewQuery<F>): Promise<Record<string, unknown>>;
  report: Report;
  /** Page reads served at once, shared by the views (contract §11.4). */
  gate: ReadGate;
}

export interface ViewItem {
  fields: Record<string, unknown>;
  rawKey: string;
  raw: string | null;
}

/** One item's JSON text: its fields, then the raw member. */
export function itemText(item: ViewItem): string {
  const fields = JSON.stringify(item.fields);
  const raw = `${JSON.stringify(item.rawKey)}:${item.raw ?? 'null'}`;
  return fields === '{}' ? `{${raw}}` : `${fields.slice(0, -1)},${raw}}`;
}

export function createViewRoute<F extends string, T>(opts: ViewRouteOptions<F, T>): RouteHandler {
  return async ({ req, res, url, signal }) => {
    const parsed = parseViewQuery(url.searchParams, opts.spec);
    if (!parsed.ok) {
      sendError(req, res, 400, parsed.error);
      return;
    }
    let leave: () => void;
    try {
      leave = await opts.gate.enter(signal);
    } catch {
      return; // the client left while waiting its turn
    }
    // The turn ends when the answer has left (or the client has).
    res.once('close', leave);
    let body: string;
    try {
      const page = await opts.list(parsed.value.page, parsed.value.filter);
      const extra = opts.extend === undefined ? '' : JSON.stringify(await opts.extend(parsed.value)).slice(1, -1);
      body = `{"items":[${page.items.map((r) => itemText(opts.item(r))).join(',')}],"nextCursor":${JSON.stringify(page.nextCursor)}`
        + `${extra === '' ? '' : `,${extra}`}}`;
    } catch (err) {
      if (err instanceof InvalidCursorError) {
        // The store's messages for this error are fixed text, never input.
        sendError(req, res, 400, `invalid cursor: ${err.message}`);
        return;
      }
      opts.report(`control plane: ${req.method ?? 'GET'} ${opts.path} failed: ${errorText(err)}`);
      if (!res.headersSent) sendError(req, res, 500, 'internal error');
      return;
    }
    // The client went away while the page was read: nobody to answer.
    if (signal.aborted || res.destroyed) return;
    sendJsonText(req, res, 200, body);
  };
}
