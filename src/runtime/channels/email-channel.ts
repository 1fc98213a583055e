/**
 * `email` channel (contract §18.5): one plain-text mail per message over SMTP, through nodemailer's
 * SMTP connection (one session per message) and its composer.
 *
 * Transport security: `starttls` (default) requires the upgrade — a server that does not offer it,
 * or an upgrade that fails, sends nothing; `implicit` speaks TLS from the first byte (port 465);
 * `none` sends in clear and must be chosen explicitly. `ca` trusts a private certificate authority.
 *
 * Threads per person and page (§24.1): the first mail a person gets about a page starts a thread of
 * its own — no `Re:`, no `In-Reply-To` — with the Message-ID `<deliveryId@<from domain>>`, which its
 * delivery detail keeps as `thread`; every later mail of the page to that person carries its own
 * `<deliveryId@domain>` and points at that one with `In-Reply-To` and `References`. The notifier finds
 * the thread in the page's delivery records (`pageMessage`, as Slack's message), so a person paged at
 * the second step starts where they came in, not under a mail they never got. The Message-ID is the
 * same on every retry, so a mailbox that already holds it can drop the copy.
 *
 * The password never appears in a result: every text that leaves this file passes `safeSnippet`.
 *
 * A page's message takes its last look (§17.4) once the server has taken the envelope, right before
 * the message's bytes: "committed" for SMTP is the terminating dot of DATA, which the look comes
 * before (gatedMessage).
 *
 * nodemailer is loaded with the first mail, so a daemon without an email channel — or whose email
 * channel has not sent yet — does not carry it in memory.
 */
import { Readable } from 'node:stream';
import type MailComposer from 'nodemailer/lib/mail-composer/index.js';
import type SMTPConnection from 'nodemailer/lib/smtp-connection/index.js';
import type { EmailChannelConfig } from '../../config/schema.js';
import type { Clock } from '../../core/clock.js';
import { errorText } from '../../core/errors.js';
import type { Channel, DeliveryResult, OutboundMessage, WireGate } from './channel.js';
import { NOT_SENT, textWithLinks } from './channel.js';
import { safeSnippet } from './http-channel.js';

/** What goes on the wire for one message: headers and body, decided without I/O. */
export interface EmailMessage {
  subject: string;
  /** Own Message-ID; also the `thread` of a page's first mail to its person. */
  messageId: string;
  inReplyTo?: string;
  text: string;
}

const domainOf = (address: string): string => address.slice(address.lastIndexOf('@') + 1);
/** A Message-ID as this channel writes them (a thread read back from a delivery record is checked before it goes in a header). */
const MESSAGE_ID = /^<[\x21-\x3b\x3d\x3f-\x7e]{1,900}@[\x21-\x3b\x3d\x3f-\x7e]{1,255}>$/;

/** The delivery detail key that names a person's thread of a page (`pageMessage`). */
export const EMAIL_PAGE_MESSAGE_KEYS = ['thread'] as const;

/** Subject, identifiers and body of one message (pure). */
export function composeEmail(message: OutboundMessage, from: string): EmailMessage {
  // A title is someone else's text: one line, so nothing in it can start a header of its own (nodemailer encodes the rest).
  const head = `[${message.severity}] ${message.title.replace(/\s+/g, ' ').trim()}`;
  // A page message's text ends with its one way to act (links, or the command); an older row gets its links below.
  const lines = [textWithLinks(message)];
  lines.push('', '-- ', message.pageId === undefined
    ? `svc agent ${message.agentId}, event ${message.eventId}`
    : `svc agent ${message.agentId}, page ${message.pageId}`);
  const text = `${lines.join('\n')}\n`;
  const messageId = `<${message.deliveryId}@${domainOf(from)}>`;
  // A page's mails keep one subject, so clients that group by it keep the thread; the text says it is resolved.
  const subject = message.pageId === undefined && message.status === 'resolved' ? `RESOLVED ${head}` : head;
  const thread = message.pageId === undefined ? undefined : message.pageMessage?.thread;
  if (thread === undefined || !MESSAGE_ID.test(thread)) return { subject, messageId, text };
  // The same subject with "Re:" keeps the thread in clients that group by subject as well.
  return { subject: `Re: ${subject}`, messageId, inReplyTo: thread, text };
}

/** nodemailer's errors carry an SMTP reply code and a short code (ECONNECTION, ETIMEDOUT, ETLS, EAUTH, …). */
interface SmtpError { code?: string; responseCode?: number; response?: string; message?: string }

/** Outcome of a failed send: 4xx and connection trouble are worth retrying, 5xx and TLS refusals are not. */
export function classifySmtpError(err: unknown, secrets: readonly string[]): DeliveryResult {
  const e = (typeof err === 'object' && err !== null ? err : {}) as SmtpError;
  const said = safeSnippet(e.response ?? e.message ?? errorText(err), secrets);
  if (e.code === 'ETLS') {
    return { ok: false, retryable: false,
      error: `smtp: TLS could not be set up (${said}); nothing was sent in clear — the server must offer STARTTLS, or set smtp.tls` };
  }
  if (typeof e.responseCode === 'number') {
    const error = `smtp ${e.responseCode}: ${said}`;
    return { ok: false, retryable: e.responseCode < 500, error };
  }
  const code = e.code ? `${e.code} ` : '';
  return { ok: false, retryable: true, error: `smtp: ${code}${said}` };
}

/** What nodemailer's SMTP connection and composer give (loaded with the first mail). */
interface Smtp {
  SMTPConnection: typeof SMTPConnection;
  MailComposer: typeof MailComposer;
}

/** The message as its bytes (headers and body), as nodemailer composes them. */
function build(composer: MailComposer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    composer.compile().build((err, message) => (err ? reject(err) : resolve(message)));
  });
}

/** One step of an SMTP session as a promise: the step's callback, or the connection's error, whichever comes first. */
function step<T>(conn: SMTPConnection, run: (done: (err: Error | null | undefined, value?: T) => void) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onError = (err: Error): void => reject(err);
    conn.once('error', onError);
    run((err, value) => {
      conn.off('error', onError);
      if (err) reject(err);
      else resolve(value as T);
    });
  });
}

/**
 * The message's bytes for SMTPConnection.send, behind the last look (channel.ts WireGate): the
 * connection reads them only after the server took MAIL FROM, RCPT TO and DATA, so the look comes
 * then, and the gate is left once the message and its terminating dot are written to the socket. A
 * gate that says no ends the stream with an error before a byte of DATA: the server holds a
 * transaction without its end, which the closing connection abandons — nothing is delivered.
 */
function gatedMessage(raw: Buffer, gate: WireGate, refused: () => void): Readable {
  let looked = false;
  return new Readable({
    read() {
      if (looked) return;
      looked = true;
      gate.enter().then((go) => {
        if (!go) {
          refused();
          this.destroy(new Error('not sent: the page moved on'));
          return;
        }
        this.once('end', () => setImmediate(() => gate.leave()));
        this.push(raw);
        this.push(null);
      }, (err: unknown) => this.destroy(err instanceof Error ? err : new Error(String(err))));
    },
  });
}

export function createEmailChannel(config: EmailChannelConfig, deps: { clock: Clock }): Channel {
  const { smtp } = config;
  const secrets = smtp.password === undefined ? [] : [smtp.password];
  const options: SMTPConnection.Options = {
    host: smtp.host,
    port: smtp.port ?? (smtp.tls === 'implicit' ? 465 : 587),
    secure: smtp.tls === 'implicit',
    requireTLS: smtp.tls === 'starttls',
    ignoreTLS: smtp.tls === 'none',
    tls: smtp.ca === undefined ? { minVersion: 'TLSv1.2' } : { minVersion: 'TLSv1.2', ca: smtp.ca },
    connectionTimeout: config.timeoutMs,
    greetingTimeout: config.timeoutMs,
    socketTimeout: config.timeoutMs,
  };
  const auth = smtp.username === undefined || smtp.password === undefined ? null : { user: smtp.username, pass: smtp.password };
  let loaded: Promise<Smtp> | null = null;
  const load = (): Promise<Smtp> => {
    loaded ??= Promise.all([import('nodemailer/lib/smtp-connection/index.js'), import('nodemailer/lib/mail-composer/index.js')])
      .then(([c, m]) => ({ SMTPConnection: c.default, MailComposer: m.default }));
    return loaded;
  };
  let closed = false;
  let healthy = true;
  const live = new Set<SMTPConnection>();

  /**
   * One SMTP session per message (connect, STARTTLS, AUTH, MAIL, RCPT, DATA, QUIT); `signal` closes
   * the connection. With a gate, the last look comes right before the message's bytes (gatedMessage).
   */
  async function send(message: OutboundMessage, signal: AbortSignal, gate?: WireGate): Promise<DeliveryResult> {
    if (closed) return { ok: false, retryable: true, error: 'channel closed' };
    if (signal.aborted) return { ok: false, retryable: true, error: 'aborted' };
    const mail = composeEmail(message, config.from);
    const to = message.to ?? config.to;
    const { SMTPConnection: Connection, MailComposer } = await load();
    const raw = await build(new MailComposer({
      from: config.from,
      to,
      subject: mail.subject,
      text: mail.text,
      messageId: mail.messageId,
      date: new Date(deps.clock.now()),
      ...(mail.inReplyTo === undefined ? {} : { inReplyTo: mail.inReplyTo, references: [mail.inReplyTo] }),
      // RFC 3834: out-of-office replies stay away from an automatic sender.
      headers: { 'Auto-Submitted': 'auto-generated' },
      disableFileAccess: true,
      disableUrlAccess: true,
    }));
    const conn = new Connection(options);
    live.add(conn);
    let refused = false;
    const onAbort = (): void => conn.close();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      await step<void>(conn, (done) => conn.connect(done));
      if (auth !== null) await step<unknown>(conn, (done) => conn.login(auth, done));
      const body = gate === undefined ? raw : gatedMessage(raw, gate, () => { refused = true; });
      const info = await step<SMTPConnection.SentMessageInfo>(conn, (done) => conn.send({ from: config.from, to }, body, done));
      conn.quit();
      healthy = true;
      return { ok: true, detail: { messageId: mail.messageId, thread: mail.inReplyTo ?? mail.messageId,
        smtpResponse: safeSnippet(String(info.response), secrets) } };
    } catch (err) {
      conn.close();
      if (refused) return NOT_SENT;
      if (signal.aborted) return { ok: false, retryable: true, error: 'aborted' };
      const result = classifySmtpError(err, secrets);
      healthy = !result.ok && !result.retryable;
      return result;
    } finally {
      signal.removeEventListener('abort', onAbort);
      live.delete(conn);
    }
  }

  return {
    id: config.id,
    type: 'email',
    direction: 'outbound',
    maxAttempts: config.maxAttempts,
    // Each person's mails of a page are one thread: the notifier hands over the thread of their first (§24.1).
    updatesPageMessages: true,
    pageMessageKeys: EMAIL_PAGE_MESSAGE_KEYS,
    send: (message, signal, gate) => send(message, signal, gate).catch((err: unknown) => ({
      ok: false as const, retryable: true, error: `internal error: ${safeSnippet(errorText(err), secrets)}` })),
    receive: () => ({ handled: false, reason: 'outbound-only' }),
    /** False after a connection failure or a 4xx, until a mail goes through again. */
    ready: () => !closed && healthy,
    close: () => {
      closed = true;
      for (const conn of live) conn.close();
      return Promise.resolve();
    },
  };
}
