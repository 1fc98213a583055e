/**
 * Twilio on loopback, both ways, the one every Twilio test uses. As the REST API
 * (https://www.twilio.com/docs/usage/api): `POST /2010-04-01/Accounts/<sid>/Messages.json` and
 * `…/Calls.json`, form-encoded, Basic auth `<sid>:<auth token>`, answered 201 with the resource (`sid`
 * SM… or CA…, `status: "queued"`) or Twilio's error JSON `{"code", "message", "more_info", "status"}`
 * (20003 bad credentials, 20404 another account, 21604 no To, 21211 a To that is not E.164, 21617 a body
 * over 1,600 characters); scripted answers (`replies`) walk 429s and 5xx. And as Twilio calling back:
 * an incoming SMS, a placed call answered (its `Url` fetched, a key pressed into its `<Gather>`) and its
 * end posted to its `StatusCallback`, each POSTed form-encoded with `X-Twilio-Signature` computed the
 * way Twilio documents it (https://www.twilio.com/docs/usage/webhooks/webhooks-security) — written out
 * here, not borrowed from svc.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TwilioRequest {
  path: string;
  auth: string | undefined;
  contentType: string | undefined;
  form: Record<string, string>;
  raw: string;
  reply: TwilioReply;
}

export interface TwilioReply { status: number; headers?: Record<string, string>; body: Record<string, unknown> }

export interface Callback { status: number; contentType: string | null; body: string }

export interface FakeTwilio {
  readonly apiUrl: string;
  readonly accountSid: string;
  readonly authToken: string;
  readonly requests: TwilioRequest[];
  /** Answers the next Messages/Calls requests take, in order, before the usual 201 (push to script a failure). */
  readonly replies: TwilioReply[];
  messages(): TwilioRequest[];
  calls(): TwilioRequest[];
  /** A signed POST of `params` to `url`, as Twilio sends its webhooks; `signature` replaces the right one (a forgery). */
  post(url: string, params: Record<string, string>, signature?: string): Promise<Callback>;
  /** Twilio delivering an SMS from `from` to the number's webhook URL. */
  sms(url: string, from: string, to: string, body: string): Promise<Callback>;
  /** A placed call is answered: Twilio fetches its `Url`. */
  answer(call: TwilioRequest): Promise<Callback>;
  /** A key pressed: Twilio posts `Digits` to the `<Gather action>` of the TwiML it ran. */
  press(call: TwilioRequest, twiml: string, digit: string): Promise<Callback>;
  /** The call ended with `status`: Twilio posts it to the call's `StatusCallback`. */
  end(call: TwilioRequest, status: string): Promise<Callback>;
  close(): Promise<void>;
}

const error = (status: number, code: number, message: string): TwilioReply =>
  ({ status, body: { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status } });

/** Twilio's signature: HMAC-SHA1 (key: the auth token) of the URL and each parameter's name and value, sorted by name; Base64. */
export function signAsTwilio(authToken: string, url: string, params: Record<string, string>): string {
  const data = Object.keys(params).sort().reduce((acc, name) => acc + name + (params[name] ?? ''), url);
  return createHmac('sha1', authToken).update(Buffer.from(data, 'utf-8')).digest('base64');
}

export async function startFakeTwilio(opts: { accountSid?: string; authToken?: string } = {}): Promise<FakeTwilio> {
  const accountSid = opts.accountSid ?? `AC${'0123456789abcdef'.repeat(2)}`;
  const authToken = opts.authToken ?? 'f0e1d2c3b4a5968778695a4b3c2d1e0f';
  const requests: TwilioRequest[] = [];
  const replies: TwilioReply[] = [];
  const expectedAuth = `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}`;

  const answer = (path: string, auth: string | undefined, form: Record<string, string>): TwilioReply => {
    const m = /^\/2010-04-01\/Accounts\/([^/]+)\/(Messages|Calls)\.json$/.exec(path);
    if (m === null) return error(404, 20404, 'The requested resource was not found');
    if (auth !== expectedAuth) return error(401, 20003, 'Authenticate');
    if (m[1] !== accountSid) return error(404, 20404, `The requested resource /2010-04-01/Accounts/${m[1] ?? ''}/${m[2] ?? ''}.json was not found`);
    const scripted = replies.shift();
    if (scripted !== undefined) return scripted;
    if (form.To === undefined) return error(400, 21604, 'A \'To\' phone number is required.');
    if (!/^\+[1-9]\d{1,14}$/.test(form.To)) return error(400, 21211, `Invalid 'To' Phone Number: ${form.To}`);
    const common = { account_sid: accountSid, to: form.To, from: form.From, status: 'queued', date_created: new Date().toUTCString() };
    if (m[2] === 'Messages') {
      if ((form.Body ?? '').length > 1600) return error(400, 21617, 'The concatenated message body exceeds the 1600 character limit.');
      return { status: 201, body: { sid: `SM${randomBytes(16).toString('hex')}`, ...common, body: form.Body, direction: 'outbound-api',
        num_segments: (form.Body ?? '').length > 160 ? '2' : '1' } };
    }
    return { status: 201, body: { sid: `CA${randomBytes(16).toString('hex')}`, ...common, direction: 'outbound-api' } };
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const form = Object.fromEntries(new URLSearchParams(raw));
      const path = req.url ?? '';
      const reply = answer(path, req.headers.authorization, form);
      requests.push({ path, auth: req.headers.authorization, contentType: req.headers['content-type'], form, raw, reply });
      res.writeHead(reply.status, { 'Content-Type': 'application/json; charset=utf-8', ...reply.headers }).end(JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const post = async (url: string, params: Record<string, string>, signature?: string): Promise<Callback> => {
    const res = await fetch(url, { method: 'POST', body: new URLSearchParams(params).toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Twilio-Signature': signature ?? signAsTwilio(authToken, url, params),
        'I-Twilio-Idempotency-Token': randomBytes(16).toString('hex'), 'User-Agent': 'TwilioProxy/1.1' } });
    return { status: res.status, contentType: res.headers.get('content-type'), body: await res.text() };
  };
  const callParams = (call: TwilioRequest, status: string): Record<string, string> => ({
    AccountSid: accountSid, ApiVersion: '2010-04-01', CallSid: String(call.reply.body.sid), CallStatus: status, Called: call.form.To ?? '',
    Caller: call.form.From ?? '', Direction: 'outbound-api', From: call.form.From ?? '', To: call.form.To ?? '',
  });

  return {
    apiUrl, accountSid, authToken, requests, replies,
    messages: () => requests.filter((r) => r.path.endsWith('/Messages.json')),
    calls: () => requests.filter((r) => r.path.endsWith('/Calls.json')),
    post,
    sms: (url, from, to, body) => post(url, { AccountSid: accountSid, ApiVersion: '2010-04-01', Body: body, From: from, FromCountry: 'DE',
      MessageSid: `SM${randomBytes(16).toString('hex')}`, NumMedia: '0', NumSegments: '1', SmsMessageSid: `SM${randomBytes(16).toString('hex')}`,
      SmsStatus: 'received', To: to, ToCountry: 'DE' }),
    answer: (call) => post(call.form.Url ?? '', callParams(call, 'in-progress')),
    press(call, twiml, digit) {
      const action = /<Gather [^>]*action="([^"]+)"/.exec(twiml)?.[1];
      if (action === undefined) throw new Error(`no <Gather action> in ${twiml}`);
      return post(action.replace(/&amp;/g, '&'), { ...callParams(call, 'in-progress'), Digits: digit, FinishedOnKey: '' });
    },
    end: (call, status) => post(call.form.StatusCallback ?? '', { ...callParams(call, status), CallDuration: '0', Timestamp: new Date().toUTCString(),
      CallbackSource: 'call-progress-events', SequenceNumber: '0' }),
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
