/**
 * GET /events/<id>/story (contract §20.3): every audit row that concerns the event, in seq order,
 * with `verified` (control-plane/event-story.ts). One index lookup in the store, then the chain checked
 * from the story's first row to the head, now: the answer costs the rows after the event, not the
 * chain. A malformed id is a 400, an id no row names a 404. No query parameters.
 */
import { errorText } from '../../core/errors.js';
import type { ChainWatermark } from '../../store/chain-watermark.js';
import type { Store } from '../../store/store.js';
import { checkStoryChain, EVENT_ID_PATTERN, storyJson } from '../event-story.js';
import { sendError, sendJsonText } from '../http-json.js';
import { paramLabel } from '../query.js';
import type { ReadGate } from '../read-gate.js';
import { takeTurn } from '../read-gate.js';
import type { RouteHandler } from '../route.js';
import type { Report } from './view-route.js';

const PREFIX = '/events/';
const SUFFIX = '/story';

export interface StoryRouteDeps {
  store: Store;
  watermark: ChainWatermark;
  report: Report;
  gate: ReadGate;
}

/** Handles every path under /events/ (the server routes the prefix here). */
export function createStoryRoute(deps: StoryRouteDeps): RouteHandler {
  return async ({ req, res, url, signal }) => {
    const path = url.pathname;
    if (!path.startsWith(PREFIX) || !path.endsWith(SUFFIX) || path.length <= PREFIX.length + SUFFIX.length) {
      sendError(req, res, 404, 'not found');
      return;
    }
    const id = path.slice(PREFIX.length, -SUFFIX.length);
    if (!EVENT_ID_PATTERN.test(id)) {
      sendError(req, res, 400, 'invalid event id: expected a UUID such as 0b0e3a52-6c1e-4c59-9d53-2f0c2a4f8a11');
      return;
    }
    const [param] = url.searchParams.keys();
    if (param !== undefined) {
      sendError(req, res, 400, `invalid ${paramLabel(param)}: unknown parameter (the story takes none)`);
      return;
    }
    const leave = await takeTurn(deps.gate, signal);
    if (leave === null) return;
    res.once('close', leave);
    let text: string;
    try {
      // Rows first, then the chain: the check then reaches at least the story's last row.
      const rows = await deps.store.eventStory(id);
      if (rows.length === 0) {
        sendError(req, res, 404, `no audit row concerns event ${id}`);
        return;
      }
      text = storyJson(id, rows, await checkStoryChain(rows, deps.watermark));
    } catch (err) {
      deps.report(`control plane: GET /events/<id>/story failed: ${errorText(err)}`);
      if (!res.headersSent) sendError(req, res, 500, 'internal error');
      return;
    }
    if (signal.aborted || res.destroyed) return;
    sendJsonText(req, res, 200, text);
  };
}
