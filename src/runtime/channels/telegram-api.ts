/**
 * One call of the Telegram Bot API (https://core.telegram.org/bots/api#making-requests): `POST
 * <apiUrl>/bot<token>/<method>` with a JSON body, answered `{"ok": true, "result": …}` or
 * `{"ok": false, "error_code": 400, "description": "Bad Request: …", "parameters": {"retry_after": 5}}`
 * (usually with the same HTTP status). The channel and the `getUpdates` poll share it. The token is in
 * every URL: nothing that leaves this file carries it (safeSnippet).
 */
import type { Clock } from '../../core/clock.js';
import type { WireGate } from './channel.js';
import { parseJsonObject, parseRetryAfter, safeSnippet } from './http-channel.js';
import type { HttpAttempt } from './http-client.js';
import { postJson } from './http-client.js';

/** Telegram's answers are small, a getUpdates batch of 100 updates included; more is not Telegram. */
const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

export type TelegramAnswer =
  | { ok: true; result: unknown }
  | { ok: false; retryable: boolean; error: string; retryAfterMs?: number;
    /** Telegram's `error_code` and `description`, when it answered with them. */
    code?: number; description?: string;
    /** The gate said no (a page's message whose page moved on): nothing was sent. */
    notSent?: true };

export interface TelegramApi {
  /**
   * Never throws; `timeoutMs` covers the whole call (a long poll passes its own). `gate`: a call that
   * shows a page's message, behind its last look (channel.ts WireGate).
   */
  call(method: string, body: Record<string, unknown>, signal: AbortSignal, timeoutMs: number, gate?: WireGate): Promise<TelegramAnswer>;
  /** Texts that must never leave in a result or a log line. */
  readonly secrets: readonly string[];
}

export function telegramApi(config: { token: string; apiUrl: string }, clock: Clock): TelegramApi {
  const apiUrl = config.apiUrl.replace(/\/+$/, '');
  const secrets = [config.token];

  function interpret(method: string, attempt: HttpAttempt, timeoutMs: number): TelegramAnswer {
    const fail = (retryable: boolean, error: string, extra: { retryAfterMs?: number; code?: number; description?: string } = {}): TelegramAnswer =>
      ({ ok: false, retryable, error: `telegram ${method}: ${safeSnippet(error, secrets)}`, ...extra });
    if (attempt.kind === 'timeout') return fail(true, `timed out after ${timeoutMs} ms`);
    if (attempt.kind === 'aborted') return fail(true, 'aborted');
    if (attempt.kind === 'cancelled') return { ok: false, retryable: false, error: `telegram ${method}: not sent`, notSent: true };
    if (attempt.kind === 'network') return fail(true, `network error: ${attempt.error}`);
    const data = parseJsonObject(attempt.body);
    if (data?.ok === true && 'result' in data) return { ok: true, result: data.result };
    const code = typeof data?.error_code === 'number' ? data.error_code : attempt.status;
    const description = typeof data?.description === 'string' ? safeSnippet(data.description, secrets) : undefined;
    const parameters = typeof data?.parameters === 'object' && data.parameters !== null ? data.parameters as Record<string, unknown> : {};
    const migrate = typeof parameters.migrate_to_chat_id === 'number' ? ` (the chat is now ${parameters.migrate_to_chat_id})` : '';
    const error = `${code}: ${description ?? `HTTP ${attempt.status}`}${migrate}`;
    const extra = { code, ...(description === undefined ? {} : { description }) };
    if (code === 429) {
      const retryAfterS = typeof parameters.retry_after === 'number' && parameters.retry_after >= 0 ? parameters.retry_after : undefined;
      const retryAfterMs = retryAfterS !== undefined ? Math.min(retryAfterS, 86_400) * 1000 : parseRetryAfter(attempt.headers.get('retry-after'), clock.now());
      return fail(true, error, { ...extra, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) });
    }
    if (code >= 500 || attempt.status >= 500 || attempt.status === 408) return fail(true, error, extra);
    return fail(false, error, extra);
  }

  return {
    secrets,
    async call(method, body, signal, timeoutMs, gate) {
      const attempt = await postJson(`${apiUrl}/bot${config.token}/${method}`, body, {
        headers: { 'Content-Type': 'application/json' }, timeoutMs, signal, maxBodyBytes: MAX_RESPONSE_BYTES, clock, ...(gate === undefined ? {} : { gate }),
      });
      return interpret(method, attempt, timeoutMs);
    },
  };
}
