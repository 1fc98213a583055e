/**
 * The HTTP half of a paginated view (contract §5), shared by /events, /dlq and /audit: parse the
 * query (400 naming the parameter), wait for a turn at the read gate, have the store read and encode
 * one keyset page (store/record-json.ts: the records as the contract shows them, payload or data
 * embedded as stored), answer `{"items": [...], "nextCursor": <string|null>}` plus any members the view
 * adds. The page arrives as bytes and is written as it is: the event loop that answers webhooks never
 * parses or builds a large page (contract §11.4).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorText } from '../../core/errors.js';
import { InvalidCursorError } from '../../store/cursor.js';
import type { Store, View } from '../../store/store.js';
import { JSON_HEADERS, sendError } from '../http-json.js';
import type { ViewQuery, ViewSpec } from '../page-query.js';
import { parseViewQuery } from '../page-query.js';
import type { ReadGate } from '../read-gate.js';
import { takeTurn } from '../read-gate.js';
import type { RouteHandler } from '../route.js';

/** Where a route's unexpected failures go (the daemon's log); one line each, never to the client. */
export type Report = (line: string) => void;

export const stderrReport: Report = (line) => { process.stderr.write(`${line}\n`); };

export interface ViewRouteOptions<F extends string> {
  /** The route's path, for log lines. */
  path: string;
  view: View;
  spec: ViewSpec<F>;
  store: Store;
  /** Members added to the envelope after the page was read (e.g. /audit's `verify`). */
  extend?(query: ViewQuery<F>): Promise<Record<string, unknown>>;
  report: Report;
  /** Page reads served at once, shared by the views (contract §11.4). */
  gate: ReadGate;
}

export function createViewRoute<F extends string>(opts: ViewRouteOptions<F>): RouteHandler {
  return async ({ req, res, url, signal }) => {
    const parsed = parseViewQuery(url.searchParams, opts.spec);
    if (!parsed.ok) {
      sendError(req, res, 400, parsed.error);
      return;
    }
    const leave = await takeTurn(opts.gate, signal);
    if (leave === null) return; // the client left while waiting its turn
    // The turn ends when the answer has left (or the client has).
    res.once('close', leave);
    let head: string;
    let items: Uint8Array;
    let tail: string;
    try {
      const page = await opts.store.listJson(opts.view, parsed.value.page, parsed.value.filter);
      const extra = opts.extend === undefined ? '' : JSON.stringify(await opts.extend(parsed.value)).slice(1, -1);
      head = '{"items":';
      items = page.items;
      tail = `,"nextCursor":${JSON.stringify(page.nextCursor)}${extra === '' ? '' : `,${extra}`}}`;
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
    sendPage(req, res, head, items, tail);
  };
}

/** Writes `head`, the page's bytes and `tail` as one JSON answer; HEAD gets the headers only. */
function sendPage(req: IncomingMessage, res: ServerResponse, head: string, items: Uint8Array, tail: string): void {
  const length = Buffer.byteLength(head) + items.byteLength + Buffer.byteLength(tail);
  res.writeHead(200, { ...JSON_HEADERS, 'content-length': String(length) });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  res.write(head);
  res.write(items);
  res.end(tail);
}
