/**
 * Pushover's API on loopback (https://pushover.net/api, https://pushover.net/api/receipts), the one
 * every Pushover test and the receipts bench use:
 *
 *   POST /1/messages.json                  form: token, user, message, title, priority, retry, expire, url, url_title
 *   GET  /1/receipts/<receipt>.json?token=
 *   POST /1/receipts/<receipt>/cancel.json form: token
 *
 * Answers are Pushover's JSON: `{"status":1,"request":<uuid>[,"receipt":…]}`, or a 400 with
 * `status: 0`, an `errors` array and the offending field named — `{"token":"invalid",…}`,
 * `{"user":"invalid",…}`, `{"receipt":"not found",…}`. The wording of the token, user, receipt and
 * "must be supplied with priority=2" errors is Pushover's; the bound errors (a `retry` under 30, an
 * `expire` over 10,800, a message over 1,024 characters) keep its shape with wording of our own.
 * Every answer carries the `X-Limit-App-*` headers. A receipt is acknowledged (`acknowledge`), expires
 * `expire` seconds after it was sent (on the fake's clock), or stops when cancelled. `failNext`
 * scripts 429 (over the monthly quota) and 5xx answers. Every call is recorded with its time.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PushoverMessage { form: Record<string, string>; status: number; receipt: string | null; atMs: number }
export interface ReceiptCall { receipt: string; atMs: number; status: number }

interface Receipt {
  id: string;
  user: string;
  sentAtMs: number;
  expiresAtMs: number;
  acknowledged: { byDevice: string; atMs: number } | null;
  cancelledAtMs: number | null;
}

export interface FakePushover {
  /** What channels.yaml's `apiUrl` should say (`<base>/1`). */
  readonly apiUrl: string;
  readonly messages: PushoverMessage[];
  readonly polls: ReceiptCall[];
  readonly cancels: ReceiptCall[];
  /** The next answers to any call, in order, before the usual ones. */
  readonly failNext: Array<{ status: number; retryAfter?: string }>;
  /** Someone acknowledged the notification on a device. */
  acknowledge(receipt: string, device: string): void;
  /** The receipt, as the fake holds it. */
  receipt(id: string): Readonly<Receipt> | undefined;
  close(): Promise<void>;
}

const RECEIPT_NOT_FOUND = 'receipt not found; may be invalid or expired';

export async function startFakePushover(opts: { token: string; users: readonly string[]; now?: () => number }): Promise<FakePushover> {
  const now = opts.now ?? Date.now;
  const messages: PushoverMessage[] = [];
  const polls: ReceiptCall[] = [];
  const cancels: ReceiptCall[] = [];
  const failNext: Array<{ status: number; retryAfter?: string }> = [];
  const receipts = new Map<string, Receipt>();
  const users = new Set(opts.users);

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://pushover');
      const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
      const request = randomUUID();
      const answer = (status: number, body: Record<string, unknown>, extra: Record<string, string> = {}): number => {
        res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'X-Request-Id': request,
          'X-Limit-App-Limit': '10000', 'X-Limit-App-Remaining': String(Math.max(0, 10_000 - messages.length)), 'X-Limit-App-Reset': '1893456000', ...extra })
          .end(JSON.stringify({ ...body, request }));
        return status;
      };
      const refuse = (field: string, value: string, error: string): number => answer(400, { [field]: value, errors: [error], status: 0 });
      const scripted = (): number | null => {
        const f = failNext.shift();
        if (f === undefined) return null;
        const extra: Record<string, string> = f.retryAfter === undefined ? {} : { 'Retry-After': f.retryAfter };
        if (f.status === 429) return answer(429, { errors: ['application is over its monthly message limit'], status: 0 }, extra);
        return answer(f.status, { errors: ['internal error, please try again'], status: 0 }, extra);
      };
      const badToken = (token: string | null | undefined): boolean => token !== opts.token;

      const receiptPath = /^\/1\/receipts\/([^/]+?)(\/cancel)?\.json$/.exec(url.pathname);
      if (req.method === 'POST' && url.pathname === '/1/messages.json') {
        const at = now();
        const record: PushoverMessage = { form, status: 0, receipt: null, atMs: at };
        messages.push(record);
        record.status = scripted() ?? (() => {
          if (badToken(form.token)) return refuse('token', 'invalid', 'application token is invalid, see https://pushover.net/api');
          if (form.user === undefined || !users.has(form.user)) {
            return refuse('user', 'invalid', 'user identifier is not a valid user, group, or subscribed user key, see https://pushover.net/api#identifiers');
          }
          const message = form.message ?? '';
          if (message === '') return refuse('message', 'cannot be blank', 'message cannot be blank');
          if ([...message].length > 1024) return refuse('message', 'too long', 'message cannot be longer than 1024 characters');
          if ([...(form.title ?? '')].length > 250) return refuse('title', 'too long', 'title cannot be longer than 250 characters');
          if ((form.url ?? '').length > 512) return refuse('url', 'too long', 'url cannot be longer than 512 characters');
          if ((form.url_title ?? '').length > 100) return refuse('url_title', 'too long', 'url_title cannot be longer than 100 characters');
          const priority = Number(form.priority ?? '0');
          if (!Number.isInteger(priority) || priority < -2 || priority > 2) return refuse('priority', 'invalid', 'priority must be -2, -1, 0, 1, or 2');
          if (priority !== 2) return answer(200, { status: 1 });
          if (form.expire === undefined) return refuse('expire', 'must be supplied with priority=2', 'expire must be supplied with priority=2');
          if (form.retry === undefined) return refuse('retry', 'must be supplied with priority=2', 'retry must be supplied with priority=2');
          const retry = Number(form.retry);
          const expire = Number(form.expire);
          if (!Number.isInteger(retry) || retry < 30) return refuse('retry', 'too small', 'retry must be at least 30 seconds');
          if (!Number.isInteger(expire) || expire > 10_800 || expire < 1) return refuse('expire', 'invalid', 'expire must be at most 10800 seconds');
          const id = randomBytes(30).toString('base64').replace(/[^A-Za-z0-9]/g, '').slice(0, 30).padEnd(30, 'x');
          receipts.set(id, { id, user: form.user, sentAtMs: at, expiresAtMs: at + expire * 1000, acknowledged: null, cancelledAtMs: null });
          record.receipt = id;
          return answer(200, { status: 1, receipt: id });
        })();
        return;
      }
      if (receiptPath !== null && ((req.method === 'GET' && receiptPath[2] === undefined) || (req.method === 'POST' && receiptPath[2] !== undefined))) {
        const id = decodeURIComponent(receiptPath[1] ?? '');
        const call: ReceiptCall = { receipt: id, atMs: now(), status: 0 };
        const cancel = receiptPath[2] !== undefined;
        (cancel ? cancels : polls).push(call);
        call.status = scripted() ?? (() => {
          if (badToken(cancel ? form.token : url.searchParams.get('token'))) return refuse('token', 'invalid', 'application token is invalid, see https://pushover.net/api');
          const r = receipts.get(id);
          if (r === undefined) return refuse('receipt', 'not found', RECEIPT_NOT_FOUND);
          if (cancel) {
            r.cancelledAtMs ??= call.atMs;
            return answer(200, { status: 1 });
          }
          const endMs = Math.min(r.expiresAtMs, r.cancelledAtMs ?? Infinity);
          const expired = r.acknowledged === null && call.atMs >= endMs;
          return answer(200, { status: 1, acknowledged: r.acknowledged === null ? 0 : 1,
            acknowledged_at: r.acknowledged === null ? 0 : Math.floor(r.acknowledged.atMs / 1000),
            acknowledged_by: r.acknowledged === null ? '' : r.user, acknowledged_by_device: r.acknowledged?.byDevice ?? '',
            last_delivered_at: Math.floor(r.sentAtMs / 1000), expired: expired ? 1 : 0, expires_at: Math.floor(endMs / 1000),
            called_back: 0, called_back_at: 0 });
        })();
        return;
      }
      answer(404, { errors: ['not found'], status: 0 });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    apiUrl: `http://127.0.0.1:${port}/1`,
    messages,
    polls,
    cancels,
    failNext,
    acknowledge(receipt, device) {
      const r = receipts.get(receipt);
      if (r === undefined) throw new Error(`no receipt ${receipt}`);
      r.acknowledged ??= { byDevice: device, atMs: now() };
    },
    receipt: (id) => receipts.get(id),
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
