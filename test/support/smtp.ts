/**
 * A real SMTP server on loopback for the email channel's tests (the `smtp-server` library): STARTTLS
 * with a throwaway self-signed certificate, AUTH PLAIN/LOGIN against one user, every accepted mail
 * kept raw with its envelope.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';

export interface TestCert { cert: string; key: string }

/** A self-signed certificate for 127.0.0.1 and localhost (openssl, one per call). */
export function selfSignedCert(): TestCert {
  const dir = mkdtempSync(join(tmpdir(), 'svc-cert-'));
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
      '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'], { stdio: 'ignore' });
    return { cert: readFileSync(join(dir, 'cert.pem'), 'utf8'), key: readFileSync(join(dir, 'key.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  /** Whether the session was encrypted when the mail arrived. */
  secure: boolean;
  user: string | undefined;
}

export interface TestSmtpServer {
  port: number;
  mails: ReceivedMail[];
  /** Connections that got as far as a greeting: evidence that a client did come. */
  connections(): number;
  /** Next MAIL FROM answers this SMTP code and text (then back to accepting). */
  failNext(code: number, text: string): void;
  close(): Promise<void>;
}

export async function startSmtpServer(options: { cert?: TestCert; starttls: boolean; user?: { name: string; password: string } }): Promise<TestSmtpServer> {
  const mails: ReceivedMail[] = [];
  let connections = 0;
  let failure: { code: number; text: string } | null = null;
  const server = new SMTPServer({
    ...(options.cert ? { key: options.cert.key, cert: options.cert.cert } : {}),
    disabledCommands: options.starttls ? (options.user ? [] : ['AUTH']) : (options.user ? ['STARTTLS'] : ['STARTTLS', 'AUTH']),
    hideSTARTTLS: !options.starttls,
    allowInsecureAuth: false,
    authOptional: options.user === undefined,
    logger: false,
    onConnect: (_session, callback) => { connections += 1; callback(); },
    onAuth: (auth, _session, callback) => {
      if (options.user && auth.username === options.user.name && auth.password === options.user.password) {
        callback(null, { user: auth.username });
        return;
      }
      callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onMailFrom: (_address, _session, callback) => {
      if (failure) {
        const f = failure;
        failure = null;
        callback(Object.assign(new Error(f.text), { responseCode: f.code }));
        return;
      }
      callback();
    },
    onData: (stream, session, callback) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push({ from: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
          to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8'),
          secure: session.secure, user: typeof session.user === 'string' ? session.user : undefined });
        callback();
      });
    },
  });
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port, mails, connections: () => connections,
    failNext: (code, text) => { failure = { code, text }; },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The header block of a raw mail as name (lower case) → unfolded value. */
export function mailHeaders(raw: string): Map<string, string> {
  const head = raw.slice(0, raw.indexOf('\r\n\r\n')).replace(/\r\n[ \t]+/g, ' ');
  const out = new Map<string, string>();
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    out.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  return out;
}

/** The body of a raw mail, line endings as a person's client shows them. */
export function mailBody(raw: string): string {
  return raw.slice(raw.indexOf('\r\n\r\n') + 4).replace(/\r\n/g, '\n');
}

/**
 * The body as the person's client shows it: quoted-printable (RFC 2045 §6.7, which nodemailer uses
 * for lines over 76 characters) decoded — soft line breaks joined, `=XX` octets read as UTF-8.
 */
export function mailText(raw: string): string {
  const body = mailBody(raw);
  if (mailHeaders(raw).get('content-transfer-encoding') !== 'quoted-printable') return body;
  const joined = body.replace(/=\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < joined.length; i += 1) {
    const hex = joined.slice(i + 1, i + 3);
    if (joined[i] === '=' && /^[0-9A-F]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else bytes.push(...Buffer.from(joined[i] ?? '', 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}
