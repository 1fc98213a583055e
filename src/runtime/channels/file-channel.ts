/**
 * `file` channel (contract §2a, §9.5, §10.3): appends one JSON object per line to `config.path`, the
 * offline default of the alert-escalation template.
 *
 * The file stays open, and lines handed over while a write is under way go out together in the next
 * one (O_APPEND, one write per batch), so a burst costs a few writes, not an open-write-close per
 * message. A failed write is cut back off the file, so a short write on a full disk leaves no half
 * line. Rotation is followed: when the path no longer names the open file (logrotate's rename or
 * `create`), the next batch reopens it.
 *
 * Never twice: a line carries the message's `deliveryId`. A hand-off of a later claim of an event
 * (`attempt > 1`: its earlier holder crashed or lost its lease, maybe after writing) is checked against
 * the ids this channel wrote and, the first time, those found in the file's last 16 MiB; one already
 * there is reported delivered without a second line.
 */
import type { FileHandle } from 'node:fs/promises';
import { mkdir, open, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { FileChannelConfig } from '../../config/schema.js';
import type { Clock } from '../../core/clock.js';
import { isoTs } from '../../core/clock.js';
import { withDeadline } from '../../core/deadline.js';
import { errorText } from '../../core/errors.js';
import type { Channel, DeliveryResult, OutboundMessage, WireGate } from './channel.js';
import { NOT_SENT, throughGate } from './channel.js';

/** A file-channel line (contract §2a: at least ts, channel, to, text, eventId, severity); the webhook channel POSTs the same. */
export type OutboundRecord = {
  /** ISO-8601 UTC with milliseconds, from the injected clock. */
  ts: string;
  /** Channel id. */
  channel: string;
  to: string;
} & Omit<OutboundMessage, 'attempt' | 'to' | 'page' | 'zone'>;

/** A page message's model stays inside svc: the line carries its text, rendered for the reader (§24.1). */
export function outboundRecord(channelId: string, to: string, message: OutboundMessage, clock: Clock): OutboundRecord {
  const { attempt: _attempt, to: address, page: _page, zone: _zone, ...rest } = message;
  return { ts: isoTs(clock.now()), channel: channelId, to: address ?? to, ...rest };
}

/** How much of the file's end a re-delivery check reads, once per open. */
const TAIL_BYTES = 16 * 1024 * 1024;
/** Ids remembered; the oldest are forgotten first (a re-delivery comes within a lease or a restart). */
const REMEMBERED_IDS = 200_000;
/** How often, at most, the path is checked for a rotation. */
const ROTATION_CHECK_MS = 1_000;
const DELIVERY_ID = /"deliveryId":"([^"\\]{1,300})"/;

interface Pending { line: string; deliveryId: string; done(err: unknown): void }

export function createFileChannel(config: FileChannelConfig, deps: { clock: Clock }): Channel {
  const { clock } = deps;
  let file: { handle: FileHandle; ino: number; dev: number } | null = null;
  let lastRotationCheck = -Infinity;
  /** Set by reopen() (SIGHUP): the next batch opens the path afresh. */
  let reopenRequested = false;
  let queue: Pending[] = [];
  let writing: Promise<void> | null = null;
  let closed = false;
  let healthy = true;
  const written = new Map<string, true>();
  let tailRead: Promise<void> | null = null;

  const remember = (id: string): void => {
    written.set(id, true);
    if (written.size > REMEMBERED_IDS) written.delete(written.keys().next().value as string);
  };

  async function openFile(): Promise<NonNullable<typeof file>> {
    let handle: FileHandle;
    try {
      handle = await open(config.path, 'a', 0o640);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      await mkdir(dirname(config.path), { recursive: true });
      handle = await open(config.path, 'a', 0o640);
    }
    const st = await handle.stat();
    return { handle, ino: st.ino, dev: st.dev };
  }

  /** The open file, reopened when the path was rotated away from it. */
  async function current(): Promise<NonNullable<typeof file>> {
    if (file !== null && reopenRequested) {
      reopenRequested = false;
      await file.handle.close().catch(() => undefined);
      file = null;
    }
    if (file !== null && clock.monotonic() - lastRotationCheck >= ROTATION_CHECK_MS) {
      lastRotationCheck = clock.monotonic();
      const moved = await stat(config.path).then((st) => st.ino !== file?.ino || st.dev !== file.dev, () => true);
      if (moved) {
        await file.handle.close().catch(() => undefined);
        file = null;
      }
    }
    file ??= await openFile();
    return file;
  }

  async function writeBatch(batch: Pending[]): Promise<void> {
    const f = await current();
    const data = Buffer.from(batch.map((p) => p.line).join(''), 'utf8');
    let off = 0;
    try {
      while (off < data.length) off += (await f.handle.write(data, off, data.length - off)).bytesWritten;
    } catch (err) {
      // A short write (disk full) must not leave half a line for the next one to run into: the
      // appended part is at the end of the file (O_APPEND), so cut that much off.
      if (off > 0) {
        await f.handle.stat().then((st) => f.handle.truncate(Math.max(0, st.size - off))).catch(() => undefined);
      }
      throw err;
    }
  }

  function flush(): void {
    if (writing !== null || queue.length === 0) return;
    const batch = queue;
    queue = [];
    writing = writeBatch(batch).then(() => {
      for (const p of batch) remember(p.deliveryId);
      for (const p of batch) p.done(null);
    }, (err: unknown) => {
      for (const p of batch) p.done(err);
    }).finally(() => {
      writing = null;
      flush();
    });
  }

  const append = (line: string, deliveryId: string): Promise<void> => new Promise((resolve, reject) => {
    queue.push({ line, deliveryId, done: (err) => (err === null ? resolve() : reject(err instanceof Error ? err : new Error(errorText(err)))) });
    queueMicrotask(flush);
  });

  /** Whether a line with this deliveryId is already in the file (checked for later claims only). */
  async function alreadyWritten(deliveryId: string): Promise<boolean> {
    if (written.has(deliveryId)) return true;
    tailRead ??= readTail(); // once per open; concurrent checks wait for the same read
    await tailRead;
    return written.has(deliveryId);
  }

  /** Remembers the deliveryIds of the file's last TAIL_BYTES. */
  async function readTail(): Promise<void> {
    let handle: FileHandle;
    try {
      handle = await open(config.path, 'r');
    } catch {
      return;
    }
    try {
      const { size } = await handle.stat();
      const start = Math.max(0, size - TAIL_BYTES);
      const buf = Buffer.alloc(size - start);
      await handle.read(buf, 0, buf.length, start);
      const lines = buf.toString('utf8').split('\n');
      if (start > 0) lines.shift(); // the first line may be cut
      for (const line of lines) {
        const m = DELIVERY_ID.exec(line);
        if (m) remember(m[1] as string);
      }
    } finally {
      await handle.close();
    }
  }

  async function send(message: OutboundMessage, signal: AbortSignal, gate?: WireGate): Promise<DeliveryResult> {
    if (closed) return { ok: false, retryable: true, error: 'channel closed' };
    if (signal.aborted) return { ok: false, retryable: true, error: 'aborted' };
    if (message.attempt > 1 && await alreadyWritten(message.deliveryId)) {
      return { ok: true, detail: { path: config.path, duplicate: 'true' } };
    }
    const line = `${JSON.stringify(outboundRecord(config.id, config.to, message, clock))}\n`;
    // The last look (a page's message, §17.4) right before the line is handed to the writer; the gate
    // is left once the write that carries it returned: the line is in the kernel, in the file.
    const outcome = await withDeadline(config.timeoutMs, clock, signal, () => throughGate(gate, () => append(line, message.deliveryId)));
    if (outcome.ok && !outcome.value) return NOT_SENT;
    if (outcome.ok) {
      healthy = true;
      return { ok: true, detail: { path: config.path } };
    }
    healthy = false;
    // A write cannot be cancelled once it is in the kernel: after a timeout it may still land. The
    // next attempt carries the same deliveryId, and receivers de-duplicate on it.
    if (outcome.why === 'timeout') return { ok: false, retryable: true, error: `write timed out after ${config.timeoutMs} ms` };
    if (outcome.why === 'aborted') return { ok: false, retryable: true, error: 'aborted' };
    return { ok: false, retryable: true, error: `write failed: ${errorText(outcome.error)}` };
  }

  return {
    id: config.id,
    type: 'file',
    direction: 'outbound',
    maxAttempts: config.maxAttempts,
    send: (message, signal, gate) => send(message, signal, gate).catch((err: unknown) => ({
      ok: false as const, retryable: true, error: `write failed: ${errorText(err)}` })),
    receive: () => ({ handled: false, reason: 'outbound-only' }),
    reopen: () => { reopenRequested = true; },
    /** False after a failed write, until a write succeeds again. */
    ready: () => !closed && healthy,
    async close() {
      closed = true;
      while (writing !== null) await writing;
      await file?.handle.close().catch(() => undefined);
      file = null;
    },
  };
}
