/**
 * `file` channel (contract §2a, §9.5): appends one JSON object per line to `config.path`. The offline
 * default of the alert-escalation template.
 */
import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { FileChannelConfig } from '../../config/schema.js';
import type { Clock } from '../../core/clock.js';
import { isoTs } from '../../core/clock.js';
import { errorText } from '../../core/errors.js';
import type { Channel, DeliveryResult, OutboundMessage } from './channel.js';

/** One delivered message as written to a file line and POSTed by the webhook channel. */
/** A file-channel line (contract §2a: at least ts, channel, to, text, eventId, severity); the webhook channel POSTs the same. */
export type OutboundRecord = {
  /** ISO-8601 UTC with milliseconds, from the injected clock. */
  ts: string;
  /** Channel id. */
  channel: string;
  to: string;
} & OutboundMessage;

export function outboundRecord(channelId: string, to: string, message: OutboundMessage, clock: Clock): OutboundRecord {
  return { ts: isoTs(clock.now()), channel: channelId, to, ...message };
}

/**
 * Each message is a single `appendFile` (O_APPEND, one write for a line of this size), so lines
 * from concurrent sends — or from another process appending to the same file — never interleave.
 * The file is opened per message, so a rotated file (logrotate `create`) is picked up at once.
 *
 * A write cannot be cancelled once it is in the kernel: on timeout or abort the attempt reports a
 * retryable failure and the write may still land, so a retry can duplicate a line. Readers
 * de-duplicate on `eventId` (the dispatcher is at-least-once anyway).
 */
export function createFileChannel(config: FileChannelConfig, deps: { clock: Clock }): Channel {
  let closed = false;
  let healthy = true;

  async function append(line: string): Promise<void> {
    try {
      await appendFile(config.path, line, { encoding: 'utf8', flag: 'a' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      await mkdir(dirname(config.path), { recursive: true });
      await appendFile(config.path, line, { encoding: 'utf8', flag: 'a' });
    }
  }

  async function send(message: OutboundMessage, signal: AbortSignal): Promise<DeliveryResult> {
    if (closed) return { ok: false, retryable: true, error: 'channel closed' };
    if (signal.aborted) return { ok: false, retryable: true, error: 'aborted' };
    const line = `${JSON.stringify(outboundRecord(config.id, config.to, message, deps.clock))}\n`;
    const outcome = await withDeadline(append(line), config.timeoutMs, signal);
    if (outcome === 'done') {
      healthy = true;
      return { ok: true, detail: { path: config.path } };
    }
    healthy = false;
    if (outcome === 'timeout') return { ok: false, retryable: true, error: `write timed out after ${config.timeoutMs} ms` };
    if (outcome === 'aborted') return { ok: false, retryable: true, error: 'aborted' };
    return { ok: false, retryable: true, error: `write failed: ${errorText(outcome.error)}` };
  }

  return {
    id: config.id,
    type: 'file',
    direction: 'outbound',
    maxAttempts: config.maxAttempts,
    send: (message, signal) => send(message, signal).catch((err: unknown) => ({
      ok: false as const, retryable: true, error: `write failed: ${errorText(err)}` })),
    receive: () => ({ handled: false, reason: 'outbound-only' }),
    /** False after a failed write, until a write succeeds again. */
    ready: () => !closed && healthy,
    close: () => {
      closed = true;
      return Promise.resolve();
    },
  };
}

type Outcome = 'done' | 'timeout' | 'aborted' | { error: unknown };

/** Settles with the first of: the work, the per-attempt timeout, the caller's abort. */
function withDeadline(work: Promise<void>, timeoutMs: number, signal: AbortSignal): Promise<Outcome> {
  return new Promise<Outcome>((resolve) => {
    const onAbort = (): void => finish('aborted');
    const timer = setTimeout(() => finish('timeout'), timeoutMs);
    function finish(outcome: Outcome): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(outcome);
    }
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(() => finish('done'), (error: unknown) => finish({ error }));
  });
}
