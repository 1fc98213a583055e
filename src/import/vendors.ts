/** The vendors `svc import` knows, by the name the command takes (contract §22.1). */
import type { ImportVendor } from './import-result.js';
import type { VendorSpec } from './vendor-spec.js';
import { grafanaOncall } from './grafana-oncall/grafana-oncall.js';
import { opsgenie } from './opsgenie/opsgenie.js';
import { pagerduty } from './pagerduty/pagerduty.js';

export const VENDOR_SPECS: Readonly<Record<ImportVendor, VendorSpec>> = {
  'opsgenie': opsgenie,
  'pagerduty': pagerduty,
  'grafana-oncall': grafanaOncall,
};
