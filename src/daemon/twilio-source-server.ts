/**
 * The `type: twilio` source (contract §21.4): the listener Twilio calls back for one Twilio channel.
 *
 *   POST /sms              an SMS to the channel's number: `4<code>` acknowledges, `6<code>` resolves (oncall/sms-reply.ts)
 *   POST /voice/<token>    a call of the channel asks what to say, and posts the key pressed (`Digits`)
 *   POST /status/<token>   how a call ended: busy, no-answer, failed, canceled are a failed try of its step
 *
 * Every request must carry Twilio's `X-Twilio-Signature` over `publicUrl` + path (+ query) and its form
 * parameters, keyed with the channel's auth token (twilio-signature.ts); else 403 and nothing is done.
 * The paths are the listener's; a reverse proxy may pass `publicUrl`'s own path along or strip it.
 *
 * An SMS counts only from a number that is a person's contact on this channel, and names its page by
 * the code its message carried: the code is recomputed for the open pages that notified that number
 * here. A stranger's SMS gets no answer at all (an answer is an SMS someone pays for); a known person's
 * is answered with TwiML `<Message>`. A key pressed on a call acts as the person the call was for. Each
 * action goes through the page engine like `svc ack` (`via: sms` / `via: voice`) before the answer.
 * Refusals are audited `page.ack-refused` (at most REFUSALS_AUDITED per number per window, so a
 * flood of texts cannot flood the chain); a call nobody took is audited `page.call-failed` with
 * Twilio's `CallStatus` on its page's timeline, and nothing else happens: the page's next step or
 * personal rule still comes.
 */
import { readRequestBody } from '../core/read-request.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TwilioChannelConfig, TwilioSourceConfig } from '../config/schema.js';
import type { Clock } from '../core/clock.js';
import { errorText } from '../core/errors.js';
import type { AgentLog } from '../logs/agent-log.js';
import { personOfDelivery, readCallToken } from '../oncall/call-token.js';
import type { CallClaims } from '../oncall/call-token.js';
import type { Person } from '../oncall/oncall-config.js';
import type { PageRecord } from '../oncall/page.js';
import type { ReplyAction, SmsReply } from '../oncall/sms-reply.js';
import { REPLY_DIGITS, parseSmsReply, smsReplyCode } from '../oncall/sms-reply.js';
import { SMS_SEPTETS, cutGsm7, toGsm7 } from '../runtime/channels/gsm7.js';
import type { PageEngine } from '../runtime/oncall/page-engine.js';
import type { Store } from '../store/store.js';
import { isDamagedPage } from '../store/oncall-store.js';
import { createSourceListener } from './source-listener.js';
import type { SourceListener } from './source-listener.js';
import { verifyTwilioSignature } from './twilio-signature.js';
import { TWIML_HEADERS, message, twiml } from './twiml.js';
import { acted, prompt, tellOnly, unknownCall } from './twilio-voice.js';

/** Twilio's webhooks are a few KiB of form parameters; a larger body is not Twilio's. */
const MAX_BODY_BYTES = 32 * 1024;
/** Call statuses that mean nobody took the call (https://www.twilio.com/docs/voice/api/call-resource#call-status-values). */
export const FAILED_CALL_STATUSES: readonly string[] = ['busy', 'no-answer', 'failed', 'canceled'];
/** Refusals audited per number per window; more are logged only. */
const REFUSALS_AUDITED = 5;
const REFUSAL_WINDOW_MS = 10 * 60_000;
/** Numbers whose refusals are counted at once (past it the counts start over). */
const MAX_COUNTED_NUMBERS = 10_000;
/** Open pages looked through for an SMS code, at most. */
const MAX_OPEN_PAGES = 10_000;

export interface TwilioSourceDeps {
  agentId: string;
  source: TwilioSourceConfig;
  /**
   * The channel the source serves, as configured now (a config reload may rotate its auth token): its id
   * names the contacts, its auth token keys the signatures and the codes.
   */
  channel: () => TwilioChannelConfig;
  people: () => readonly Person[];
  engine: PageEngine;
  store: Store;
  clock: Clock;
  log: AgentLog;
  report: (line: string) => void;
}

export type TwilioSourceServer = SourceListener;

interface Answer { status: number; body: string; headers?: Record<string, string> }

const sms = (text: string): Answer => ({ status: 200, body: twiml(message(cutGsm7(toGsm7(text), SMS_SEPTETS))), headers: TWIML_HEADERS });
const voice = (body: string): Answer => ({ status: 200, body, headers: TWIML_HEADERS });
/** An empty answer: Twilio does nothing further (no SMS back, nothing on a status callback). */
const nothing = (): Answer => ({ status: 200, body: twiml(), headers: TWIML_HEADERS });
const plain = (status: number, text: string): Answer => ({ status, body: `${text}\n`, headers: { 'Content-Type': 'text/plain; charset=utf-8' } });

export function createTwilioSourceServer(deps: TwilioSourceDeps): TwilioSourceServer {
  const { source, clock, log, agentId } = deps;
  const channelId = source.channel;
  const publicUrl = source.publicUrl.replace(/\/+$/, '');
  const publicPath = new URL(publicUrl).pathname.replace(/\/+$/, '');
  const refusals = new Map<string, { count: number; sinceMs: number }>();

  const contactOf = (personId: string | null, number: string): Person | undefined =>
    deps.people().find((p) => (personId === null || p.id === personId) && p.contacts[channelId] === number);

  /** Counts a refusal from `number`; true while it is still to be audited. */
  function countRefusal(number: string): boolean {
    const nowMs = clock.now();
    if (refusals.size >= MAX_COUNTED_NUMBERS) refusals.clear();
    const seen = refusals.get(number);
    const current = seen === undefined || nowMs - seen.sinceMs >= REFUSAL_WINDOW_MS ? { count: 0, sinceMs: nowMs } : seen;
    current.count += 1;
    refusals.set(number, current);
    return current.count <= REFUSALS_AUDITED;
  }

  async function refuse(via: 'sms' | 'voice', from: string, action: ReplyAction, reason: string, pageId: string | null): Promise<void> {
    log.write('warn', 'twilio.refused', { source: source.id, via, action, reason, pageId });
    if (!countRefusal(from)) return;
    const entry = { kind: 'page.ack-refused', actor: `${via}:${from}`, agentId,
      data: { ...(pageId === null ? {} : { pageId }), via, user: from, action, reason } };
    // On the page's timeline when the refusal names a page.
    if (pageId === null) await deps.store.appendAudit(entry, clock.now());
    else await deps.store.oncall.writeNotifications([], [entry], clock.now());
  }

  /** The open pages of this agent that notified `number` on this channel, with the person they notified there. */
  async function openPagesNotifying(number: string): Promise<Array<{ page: PageRecord; person: string }>> {
    const found: Array<{ page: PageRecord; person: string }> = [];
    let seen = 0;
    for (const state of ['triggered', 'acknowledged'] as const) {
      let cursor: string | null = null;
      do {
        const listed = await deps.store.oncall.listPages({ limit: 500, cursor, order: 'desc', sinceMs: null, untilMs: null }, { agent: agentId, state });
        for (const page of listed.items) {
          if (isDamagedPage(page)) continue;
          const told = page.notified.find((n) => n.channel === channelId && n.to === number);
          if (told !== undefined) found.push({ page, person: told.person });
        }
        seen += listed.items.length;
        cursor = listed.nextCursor;
      } while (cursor !== null && seen < MAX_OPEN_PAGES);
    }
    return found;
  }

  async function onSms(params: URLSearchParams): Promise<Answer> {
    const from = params.get('From') ?? '';
    const reply: SmsReply | null = parseSmsReply(params.get('Body') ?? '');
    if (contactOf(null, from) === undefined) {
      // Nobody's number: no answer (an answer is an SMS to a stranger); a reply-shaped text is audited.
      if (reply !== null) await refuse('sms', from, reply.action, 'unknown-number', null);
      return nothing();
    }
    if (reply === null) return sms('svc: to answer a page, reply 4 (acknowledge) or 6 (resolve) followed by the code in its message, e.g. 4123456.');
    const matches = (await openPagesNotifying(from))
      .filter((m) => smsReplyCode(deps.channel().authToken, agentId, m.page.id, from) === reply.code);
    if (matches.length !== 1) {
      await refuse('sms', from, reply.action, matches.length === 0 ? 'unknown-code' : 'ambiguous-code', null);
      return sms(matches.length === 0 ? `svc: no open page of yours has code ${reply.code}.`
        : `svc: code ${reply.code} matches ${matches.length} pages; answer with svc ack or a link instead.`);
    }
    const { page, person: personId } = matches[0] as { page: PageRecord; person: string };
    const person = contactOf(personId, from);
    if (person === undefined) {
      await refuse('sms', from, reply.action, 'not-a-contact', page.id);
      return sms(`svc: this number is no longer ${personId}'s; nothing changed.`);
    }
    const outcome = await deps.engine.act(page.id, { kind: reply.action, note: null }, { actor: `sms:${from}`, by: person.id, via: 'sms' });
    log.write('info', 'twilio.sms-action', { source: source.id, pageId: page.id, person: person.id, action: reply.action,
      changed: outcome.ok && outcome.changed });
    if (!outcome.ok) return sms(`svc: nothing changed: ${outcome.reason}.`);
    if (!outcome.changed) {
      return sms(reply.action === 'ack' ? `svc: page ${page.id} was already acknowledged${outcome.page.acknowledgedBy === null ? '' : ` by ${outcome.page.acknowledgedBy}`}.`
        : `svc: page ${page.id} was already resolved.`);
    }
    return sms(`svc: page ${page.id} ${reply.action === 'ack' ? 'acknowledged' : 'resolved'} by ${person.id}: ${page.title}`);
  }

  async function onVoice(claims: CallClaims, params: URLSearchParams, n: number, voiceUrl: string): Promise<Answer> {
    if (claims.pageId === null || claims.note !== null) return voice(tellOnly(claims));
    const page = await deps.store.oncall.getPage(claims.pageId);
    const personId = personOfDelivery(claims.deliveryId, claims.pageId, channelId);
    if (page === null || isDamagedPage(page) || page.agentId !== agentId) return voice(unknownCall());
    const digits = params.get('Digits');
    if (digits === null || digits === '') return voice(prompt(claims, page, n, voiceUrl));
    const action = REPLY_DIGITS[digits];
    if (action === undefined) return voice(prompt(claims, page, n + 1, voiceUrl, 'That key does nothing. '));
    // The callee is Twilio's `To` on a call svc placed: it must still be the person's contact here.
    const to = params.get('To') ?? '';
    const person = personId === null ? undefined : contactOf(personId, to);
    if (person === undefined) {
      await refuse('voice', to, action, 'not-a-contact', page.id);
      return voice(acted(action, { ok: false, reason: 'this number is not the contact of anyone on call' }));
    }
    const outcome = await deps.engine.act(page.id, { kind: action, note: null }, { actor: `voice:${to}`, by: person.id, via: 'voice' });
    log.write('info', 'twilio.voice-action', { source: source.id, pageId: page.id, person: person.id, action, changed: outcome.ok && outcome.changed });
    return voice(acted(action, outcome.ok ? { ok: true, changed: outcome.changed, by: outcome.page.acknowledgedBy } : outcome));
  }

  async function onStatus(claims: CallClaims, params: URLSearchParams): Promise<Answer> {
    const status = (params.get('CallStatus') ?? '').slice(0, 32);
    const callSid = (params.get('CallSid') ?? '').slice(0, 64);
    if (!FAILED_CALL_STATUSES.includes(status)) return nothing();
    log.write('warn', 'twilio.call-failed', { source: source.id, deliveryId: claims.deliveryId, pageId: claims.pageId, status, callSid });
    if (claims.pageId === null) return nothing();
    // Once per call: Twilio may post a status again (a retried callback).
    const timeline = await deps.store.oncall.pageTimeline(claims.pageId);
    if (timeline.some((r) => r.kind === 'page.call-failed' && r.dataText?.includes(`"callSid":${JSON.stringify(callSid)}`) === true)) return nothing();
    await deps.store.oncall.writeNotifications([], [{ kind: 'page.call-failed', actor: `twilio:${source.id}`, agentId,
      data: { pageId: claims.pageId, deliveryId: claims.deliveryId, person: personOfDelivery(claims.deliveryId, claims.pageId, channelId),
        channel: channelId, status, callSid } }], clock.now());
    return nothing();
  }

  /** The request's path as `publicUrl` continues it: a proxy may have passed publicUrl's own path along. */
  function ownPath(path: string): string {
    return publicPath !== '' && path.startsWith(`${publicPath}/`) ? path.slice(publicPath.length) : path;
  }

  async function answer(req: IncomingMessage): Promise<Answer> {
    if (req.method !== 'POST') return { ...plain(405, 'method not allowed'), headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Allow': 'POST' } };
    const body = await readRequestBody(req, MAX_BODY_BYTES);
    if (body === null) return { ...plain(413, 'body too large'), headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Connection': 'close' } };
    const [rawPath = '', query] = (req.url ?? '').split('?', 2) as [string, string | undefined];
    const path = ownPath(rawPath);
    const params = new URLSearchParams(body);
    const signed = `${publicUrl}${path}${query === undefined ? '' : `?${query}`}`;
    const signature = req.headers['x-twilio-signature'];
    if (!verifyTwilioSignature(deps.channel().authToken, typeof signature === 'string' ? signature : undefined, signed, [...params])) {
      log.write('warn', 'twilio.rejected', { source: source.id, reason: 'signature', path: path.slice(0, 64) });
      return plain(403, 'invalid signature');
    }
    if (path === '/sms') return onSms(params);
    const m = /^\/(voice|status)\/([^/]+)$/.exec(path);
    const claims = m === null ? null : readCallToken(m[2] ?? '');
    if (m === null || claims === null) return plain(404, 'not found');
    if (m[1] === 'status') return onStatus(claims, params);
    const n = /^n=([1-9])$/.exec(query ?? '')?.[1];
    return onVoice(claims, params, n === undefined ? 1 : Number(n), `${publicUrl}/voice/${m[2] ?? ''}`);
  }

  return createSourceListener({
    source,
    handle: async (req: IncomingMessage, res: ServerResponse) => {
      const a = await answer(req);
      res.writeHead(a.status, a.headers ?? {}).end(a.body);
    },
    onError: (err) => deps.report(`twilio source ${source.id}: ${errorText(err)}`),
    unavailable: (res) => res.writeHead(503).end(),
  });
}
