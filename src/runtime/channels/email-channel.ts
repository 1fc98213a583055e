/**
 * `email` channel (contract §18.5): one plain-text mail per message over SMTP, through nodemailer.
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
 * nodemailer is loaded with the first mail, so a daemon without an email channel — or whose email
 * channel has not sent yet — does not carry it in memory.
 */
import type { Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import type { EmailChannelConfig } from '../../config/schema.js';
import type { Clock } from '../../core/clock.js';
import { errorText } from '../../core/errors.js';
import type { Channel, DeliveryResult, OutboundMessage } from './channel.js';
import { textWithLinks } from './channel.js';
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

export function createEmailChannel(config: EmailChannelConfig, deps: { clock: Clock }): Channel {
  const { smtp } = config;
  const secrets = smtp.password === undefined ? [] : [smtp.password];
  const options: SMTPTransport.Options = {
    host: smtp.host,
    port: smtp.port ?? (smtp.tls === 'implicit' ? 465 : 587),
    secure: smtp.tls === 'implicit',
    requireTLS: smtp.tls === 'starttls',
    ignoreTLS: smtp.tls === 'none',
    ...(smtp.username === undefined || smtp.password === undefined ? {} : { auth: { user: smtp.username, pass: smtp.password } }),
    tls: smtp.ca === undefined ? { minVersion: 'TLSv1.2' } : { minVersion: 'TLSv1.2', ca: smtp.ca },
    connectionTimeout: config.timeoutMs,
    greetingTimeout: config.timeoutMs,
    socketTimeout: config.timeoutMs,
    disableFileAccess: true,
    disableUrlAccess: true,
  };
  let transport: Promise<Transporter> | null = null;
  const connect = (): Promise<Transporter> => {
    transport ??= import('nodemailer').then(({ default: nodemailer }) => nodemailer.createTransport(options));
    return transport;
  };
  let closed = false;
  let healthy = true;

  /**
   * nodemailer takes no AbortSignal: an abort is honoured before a mail starts; one under way ends
   * within the transport's timeouts (each `timeoutMs`).
   */
  async function send(message: OutboundMessage, signal: AbortSignal): Promise<DeliveryResult> {
    if (closed) return { ok: false, retryable: true, error: 'channel closed' };
    if (signal.aborted) return { ok: false, retryable: true, error: 'aborted' };
    const mail = composeEmail(message, config.from);
    const to = message.to ?? config.to;
    try {
      const info = await (await connect()).sendMail({
        from: config.from,
        to,
        subject: mail.subject,
        text: mail.text,
        messageId: mail.messageId,
        date: new Date(deps.clock.now()),
        ...(mail.inReplyTo === undefined ? {} : { inReplyTo: mail.inReplyTo, references: [mail.inReplyTo] }),
        // RFC 3834: out-of-office replies stay away from an automatic sender.
        headers: { 'Auto-Submitted': 'auto-generated' },
      });
      healthy = true;
      return { ok: true, detail: { messageId: mail.messageId, thread: mail.inReplyTo ?? mail.messageId,
        smtpResponse: safeSnippet(String(info.response), secrets) } };
    } catch (err) {
      const result = classifySmtpError(err, secrets);
      healthy = !result.ok && !result.retryable;
      return result;
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
    send: (message, signal) => send(message, signal).catch((err: unknown) => ({
      ok: false as const, retryable: true, error: `internal error: ${safeSnippet(errorText(err), secrets)}` })),
    receive: () => ({ handled: false, reason: 'outbound-only' }),
    /** False after a connection failure or a 4xx, until a mail goes through again. */
    ready: () => !closed && healthy,
    close: () => {
      closed = true;
      void transport?.then((t) => t.close(), () => undefined);
      return Promise.resolve();
    },
  };
}
