/**
 * GET /audit/checkpoints (contract §20.2): the signed checkpoints, paginated like /audit (§5: limit,
 * cursor, order — oldest first by default —, since, until; no filters). The source is the store:
 * each checkpoint is an `audit.checkpoint` row of the chain, so every replica's checkpoints are
 * listed, whichever host's checkpoints.jsonl holds them. Each item is the checkpoint as signed and
 * written to checkpoints.jsonl, plus `auditSeq`, the seq of the row that carries it.
 */
import { CHECKPOINT_KIND } from '../../audit/checkpoint.js';
import { errorText } from '../../core/errors.js';
import { InvalidCursorError } from '../../store/cursor.js';
import type { Store } from '../../store/store.js';
import { sendError, sendJsonText } from '../http-json.js';
import type { ViewSpec } from '../page-query.js';
import { parseViewQuery } from '../page-query.js';
import type { ReadGate } from '../read-gate.js';
import { takeTurn } from '../read-gate.js';
import type { RouteHandler } from '../route.js';
import type { Report } from './view-route.js';

const CHECKPOINTS_VIEW: ViewSpec<never> = { filters: [], defaultOrder: 'asc', verify: false };
const FIELDS = ['seq', 'hash', 'ts', 'signature', 'keyId'] as const;

export function createCheckpointsRoute(deps: { store: Store; report: Report; gate: ReadGate }): RouteHandler {
  return async ({ req, res, url, signal }) => {
    const parsed = parseViewQuery(url.searchParams, CHECKPOINTS_VIEW);
    if (!parsed.ok) {
      sendError(req, res, 400, parsed.error);
      return;
    }
    const leave = await takeTurn(deps.gate, signal);
    if (leave === null) return;
    res.once('close', leave);
    let text: string;
    try {
      const page = await deps.store.listAudit(parsed.value.page, { kind: CHECKPOINT_KIND });
      const items = page.items.map((row) => {
        let data: Record<string, unknown> | null = null;
        try {
          data = row.dataText === null ? null : JSON.parse(row.dataText) as Record<string, unknown>;
        } catch {
          data = null;
        }
        if (data === null) return { auditSeq: row.seq, corrupt: true };
        return { ...Object.fromEntries(FIELDS.map((f) => [f, data[f] ?? null])), auditSeq: row.seq };
      });
      text = JSON.stringify({ items, nextCursor: page.nextCursor });
    } catch (err) {
      if (err instanceof InvalidCursorError) {
        sendError(req, res, 400, `invalid cursor: ${err.message}`);
        return;
      }
      deps.report(`control plane: GET /audit/checkpoints failed: ${errorText(err)}`);
      if (!res.headersSent) sendError(req, res, 500, 'internal error');
      return;
    }
    if (signal.aborted || res.destroyed) return;
    sendJsonText(req, res, 200, text);
  };
}
