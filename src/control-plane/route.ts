/** What a control-plane route receives. Routes only read; nothing here changes runtime state. */
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface Principal {
  /** Set when a bearer token authenticated the request: when it stops being valid (ms since epoch). */
  expiresAtMs: number | null;
}

export interface RouteContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  /** Aborted when the client goes away (close, reset) or the listener shuts down. */
  signal: AbortSignal;
  principal: Principal;
}

export type RouteHandler = (ctx: RouteContext) => Promise<void>;

/** Exact path → handler; a key ending in `/*` (`/oncall/*`) serves every path one segment below its prefix. */
export type Routes = ReadonlyMap<string, RouteHandler>;
