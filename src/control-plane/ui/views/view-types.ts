/** What a console view receives and gives back. */
import type { ChainWatermark } from '../../../store/chain-watermark.js';
import type { Store } from '../../../store/store.js';
import type { ReadGate } from '../../read-gate.js';
import type { OncallRouteDeps } from '../../routes/oncall-route.js';
import type { Reports } from '../../routes/report-route.js';
import type { Html } from '../html.js';

export interface UiDeps {
  store: Store;
  /** The JSON views' read gate: console pages take their turn with them. */
  gate: ReadGate;
  /** How far the audit chain is known intact: the story's verdict (contract §20.3). */
  watermark: ChainWatermark;
  /** The /status document as JSON text. */
  snapshot: () => string;
  /** On-call schedules and overrides, as GET /oncall reads them (no agent with oncall.yaml: none). */
  oncall: OncallRouteDeps;
  /** Reports (contract §23), read as GET /report reads them. */
  reports: Reports;
  /** The running agents (the log view's choices). */
  agents: () => readonly string[];
  /** The agents in a shadow run (contract §22.3): every view says so in a banner. */
  shadow?: () => readonly string[];
  /** An agent's log file (the log view opens with its last records). */
  logPath: (agentId: string) => string;
  /** The JSON views are on this listener (the control plane): views link to them. The team console has none. */
  jsonLinks: boolean;
}

export interface UiRequest {
  url: URL;
  signal: AbortSignal;
  /**
   * The session's CSRF token when the request came through `svc console` for a daemon on this
   * machine: action forms are shown (they post to the proxy, which alone carries actions out).
   */
  csrf: string | null;
  /**
   * The person of oncall.yaml acting through the console (the team console's signed-in person, `svc
   * console --as`, or the session's "Acting as"); null: not known (on-call actions then ask first).
   */
  actingAs: string | null;
}

export type ViewAnswer =
  | { status: 200 | 400 | 404; title: string; section: string; body: Html }
  /** The client left; nothing to answer. */
  | { status: 0 };

export type View = (deps: UiDeps, req: UiRequest) => Promise<ViewAnswer>;
