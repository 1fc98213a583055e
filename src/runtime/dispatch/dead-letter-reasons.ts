/** Closed vocabulary of dispatch dead-letter reasons (the `reason` field of /dlq rows). */
export const DLQ_REASONS = ['invalid-payload', 'triage-failed', 'delivery-failed', 'delivery-rejected', 'corrupt-event'] as const;
export type DeadLetterReason = (typeof DLQ_REASONS)[number];
