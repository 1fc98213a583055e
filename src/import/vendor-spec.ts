/**
 * What `svc import` needs to know of one vendor: which requests make up an export (for the live fetch,
 * and for naming a missing file), how to map the answers (pure), how to read the vendor's own rendering
 * of its schedules for `--verify`, and how its REST API authenticates, pages and limits (fetch-live.ts).
 */
import type { Answers } from './answers.js';
import type { ImportResult, ImportVendor, MapOptions } from './import-result.js';
import type { VendorRendering } from './verify-rendering.js';

export interface ApiRequest {
  /** The request path, which is also the saved file's name (answers.ts). */
  path: string;
  /** Query parameters; a list repeats its name (`include[]=contact_methods&include[]=notification_rules`). */
  query?: Readonly<Record<string, string | readonly string[]>>;
  /** A list answer that comes in pages. */
  paged?: boolean;
}

/** How a vendor pages a list (contract §22.1): Opsgenie offset/limit, PagerDuty offset/limit/more, Grafana OnCall `next` links. */
export type Paging = 'opsgenie' | 'pagerduty' | 'grafana-oncall';

export interface VendorSpec {
  vendor: ImportVendor;
  /** The vendor's name as people write it. */
  label: string;
  /**
   * Every request of an export that the answers so far make known (the lists first, then one request
   * per user, schedule, rule… they name), the renderings `--verify` reads included. Pure.
   */
  requests(answers: Answers, nowMs: number): ApiRequest[];
  map(answers: Answers, options: MapOptions): ImportResult;
  /** The vendor's own rendering of each imported schedule, from the saved timeline answers. */
  renderings(answers: Answers, result: ImportResult): VendorRendering[];
  /** The headers that authenticate a request with the token. */
  authHeaders(token: string): Record<string, string>;
  paging: Paging;
  pageSize: number;
}
