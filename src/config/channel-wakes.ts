/**
 * Whether a message on each type of channel reaches a person where they are — a phone that rings,
 * buzzes or lights up — rather than a mailbox, a file or another system. Reports count a page round
 * through such a channel as an interruption (contract §23.1: `ntfy`, `pushover`, `twilio` SMS and
 * voice, `telegram`, `slack`, `teams`; mail and files excluded). PagerDuty wakes people by its own
 * rules, which svc does not see; a webhook reaches a system. A total record: a new channel type does
 * not compile until it says whether it wakes.
 */
import type { ChannelConfig } from './schema.js';

export const CHANNEL_WAKES: Readonly<Record<ChannelConfig['type'], boolean>> = {
  ntfy: true,
  pushover: true,
  twilio: true,
  telegram: true,
  slack: true,
  teams: true,
  email: false,
  file: false,
  webhook: false,
  pagerduty: false,
};

/** Whether a channel of this `type` wakes its person; an unknown type (or none: a channel no longer configured) does not. */
export function channelWakes(type: string | undefined): boolean {
  return type !== undefined && Object.hasOwn(CHANNEL_WAKES, type) && CHANNEL_WAKES[type as ChannelConfig['type']];
}
