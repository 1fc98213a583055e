/**
 * The Telegram Bot API on loopback (https://core.telegram.org/bots/api), the one every Telegram test
 * uses: `POST /bot<token>/<method>` with a JSON body, answered `{"ok": true, "result": …}` or
 * `{"ok": false, "error_code", "description"[, "parameters"]}` with the same HTTP status, as Telegram
 * does. It keeps the messages it was sent per chat (`sendMessage`, `editMessageText`, with Telegram's
 * errors: 401 Unauthorized for another token, "chat not found", "message to edit not found", "message
 * is not modified", BUTTON_DATA_INVALID for callback_data over 64 bytes, "message is too long"), holds
 * a `getUpdates` long poll until an update comes or its `timeout` passes (a second poll ends the first
 * with 409 Conflict), confirms updates below `offset`, and records `answerCallbackQuery`. `press()`
 * queues a button press as Telegram would deliver it. Scripted answers (`script`) walk 429 and 5xx.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TelegramCall { method: string; contentType: string | undefined; body: Record<string, unknown>; reply: TelegramReply }
export interface TelegramReply { status: number; body: Record<string, unknown> }
export interface SentMessage { chatId: number; messageId: number; text: string; replyMarkup: unknown; replyTo: number | null; edits: number }

export interface FakeTelegram {
  /** What channels.yaml's `apiUrl` should say. */
  readonly apiUrl: string;
  readonly calls: TelegramCall[];
  /** The methods called, in the order the requests arrived (a long poll counts as it starts, not as it ends). */
  readonly arrived: Array<{ method: string; body: Record<string, unknown> }>;
  /** Every message sent, by message id, as it reads now (edits applied). */
  readonly messages: Map<number, SentMessage>;
  /** Answers the next call of a method takes, before the usual one (`script('sendMessage', tooMany(1))`); a getUpdates held open takes it at once. */
  script(method: string, reply: TelegramReply): void;
  /** A user presses a button: queued as a `callback_query` update; returns its query id. */
  press(opts: { userId: number; chatId: number; messageId: number; data: string }): string;
  /** Updates confirmed so far (getUpdates was called with an offset above them). */
  confirmedBelow(): number;
  close(): Promise<void>;
}

export const failure = (code: number, description: string, parameters?: Record<string, unknown>): TelegramReply =>
  ({ status: code, body: { ok: false, error_code: code, description, ...(parameters === undefined ? {} : { parameters }) } });
export const tooMany = (retryAfterS: number): TelegramReply => failure(429, `Too Many Requests: retry after ${retryAfterS}`, { retry_after: retryAfterS });

export async function startFakeTelegram(token: string, opts: { knownChats?: number[] } = {}): Promise<FakeTelegram> {
  const calls: TelegramCall[] = [];
  const arrived: Array<{ method: string; body: Record<string, unknown> }> = [];
  const messages = new Map<number, SentMessage>();
  const scripted = new Map<string, TelegramReply[]>();
  const updates: Array<{ update_id: number; callback_query: Record<string, unknown> }> = [];
  let nextUpdate = 870_000_001;
  let nextMessage = 100;
  let confirmed = 0;
  let waiting: { wake: () => void; end: (reply: TelegramReply) => void } | null = null;
  const known = (chat: number): boolean => opts.knownChats === undefined || opts.knownChats.includes(chat);
  const ok = (result: unknown): TelegramReply => ({ status: 200, body: { ok: true, result } });
  const asMessage = (m: SentMessage): Record<string, unknown> => ({ message_id: m.messageId, date: 1_790_000_000, text: m.text,
    chat: { id: m.chatId, type: m.chatId > 0 ? 'private' : 'supergroup' }, from: { id: Number(token.split(':')[0]), is_bot: true, first_name: 'svc' },
    ...(m.replyMarkup === undefined ? {} : { reply_markup: m.replyMarkup }) });

  const checkMessage = (body: Record<string, unknown>): TelegramReply | null => {
    const text = body.text;
    if (typeof text !== 'string' || text.length === 0) return failure(400, 'Bad Request: message text is empty');
    if (text.length > 4096) return failure(400, 'Bad Request: message is too long');
    const markup = body.reply_markup as { inline_keyboard?: Array<Array<{ callback_data?: string }>> } | undefined;
    for (const row of markup?.inline_keyboard ?? []) {
      for (const b of row) if (b.callback_data === undefined || Buffer.byteLength(b.callback_data) > 64) return failure(400, 'Bad Request: BUTTON_DATA_INVALID');
    }
    return null;
  };

  const answer = async (method: string, body: Record<string, unknown>): Promise<TelegramReply> => {
    const queued = scripted.get(method)?.shift();
    if (queued !== undefined) return queued;
    switch (method) {
      case 'sendMessage': {
        const chat = Number(body.chat_id);
        if (!known(chat)) return failure(400, 'Bad Request: chat not found');
        const bad = checkMessage(body);
        if (bad !== null) return bad;
        const replyTo = (body.reply_parameters as { message_id?: number } | undefined)?.message_id ?? null;
        const m: SentMessage = { chatId: chat, messageId: nextMessage++, text: String(body.text), replyMarkup: body.reply_markup, replyTo, edits: 0 };
        messages.set(m.messageId, m);
        return ok(asMessage(m));
      }
      case 'editMessageText': {
        const m = messages.get(Number(body.message_id));
        if (m === undefined || m.chatId !== Number(body.chat_id)) return failure(400, 'Bad Request: message to edit not found');
        const bad = checkMessage(body);
        if (bad !== null) return bad;
        if (m.text === body.text && JSON.stringify(m.replyMarkup ?? { inline_keyboard: [] }) === JSON.stringify(body.reply_markup ?? { inline_keyboard: [] })) {
          return failure(400, 'Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message');
        }
        Object.assign(m, { text: String(body.text), replyMarkup: body.reply_markup, edits: m.edits + 1 });
        return ok(asMessage(m));
      }
      case 'answerCallbackQuery':
        return ok(true);
      case 'getUpdates': {
        const offset = typeof body.offset === 'number' ? body.offset : 0;
        confirmed = Math.max(confirmed, offset);
        const due = (): typeof updates => updates.filter((u) => u.update_id >= offset).slice(0, Number(body.limit ?? 100));
        if (due().length > 0 || !(Number(body.timeout) > 0)) return ok(due());
        waiting?.end(failure(409, 'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running'));
        return new Promise<TelegramReply>((resolve) => {
          const timer = setTimeout(() => settle(ok(due())), Number(body.timeout) * 1000);
          const settle = (reply: TelegramReply): void => {
            clearTimeout(timer);
            waiting = null;
            resolve(reply);
          };
          waiting = { wake: () => settle(ok(due())), end: settle };
        });
      }
      default:
        return failure(404, 'Not Found');
    }
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const m = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(req.url ?? '');
      const body = raw === '' ? {} : JSON.parse(raw) as Record<string, unknown>;
      const method = m?.[2] ?? '';
      arrived.push({ method, body });
      const reply: Promise<TelegramReply> = m === null ? Promise.resolve(failure(404, 'Not Found'))
        : m[1] !== token ? Promise.resolve(failure(401, 'Unauthorized')) : answer(method, body);
      void reply.then((r) => {
        calls.push({ method, contentType: req.headers['content-type'], body, reply: r });
        if (!res.destroyed) res.writeHead(r.status, { 'Content-Type': 'application/json' }).end(JSON.stringify(r.body));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    apiUrl, calls, arrived, messages,
    script(method, reply) {
      // A poll held open now takes the first scripted answer at once: the API changes under a waiting client.
      if (method === 'getUpdates' && waiting !== null) {
        waiting.end(reply);
        return;
      }
      scripted.set(method, [...(scripted.get(method) ?? []), reply]);
    },
    press({ userId, chatId, messageId, data }) {
      const id = `${userId}${nextUpdate}`;
      const m = messages.get(messageId);
      updates.push({ update_id: nextUpdate++, callback_query: { id, chat_instance: '-4372651234', data,
        from: { id: userId, is_bot: false, first_name: 'Someone', language_code: 'en' },
        message: m === undefined ? { message_id: messageId, chat: { id: chatId, type: 'private' }, date: 0 } : asMessage(m) } });
      waiting?.wake();
      return id;
    },
    confirmedBelow: () => confirmed,
    close: () => new Promise((resolve) => {
      waiting?.end(ok([]));
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
