/**
 * An ntfy server stand-in on loopback (https://docs.ntfy.sh/publish/), the one every ntfy test uses.
 * It reads a publish as ntfy does: `POST /<topic>` (topic `^[-_A-Za-z0-9]{1,64}$`), the headers
 * `Title`/`Priority`/`Tags`/`Click`/`Actions` (RFC 2047 encoded-words decoded, the `Actions` short
 * format parsed, at most three actions), `Authorization: Bearer` checked when the server has a token,
 * the body a UTF-8 message (over 4,096 bytes it is an attachment). It answers as ntfy does: 200 and
 * the message as JSON, or an error `{"code":…,"http":…,"error":…,"link":…}` (server/errors.go) —
 * 400 40007 for a bad priority, 40018 for bad actions, 401 40101 for a wrong token, 403 40301 without
 * one, 404 40401 for a bad path. Scripted answers (`failNext`) walk 429 and 5xx.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface NtfyAction { action: string; label: string; url?: string; method?: string; clear?: boolean }

export interface NtfyPublish {
  topic: string;
  /** The request's headers as received (lower-case names). */
  headers: Record<string, string | string[] | undefined>;
  /** The body's bytes as text. */
  body: string;
  /** What ntfy makes of the headers. */
  title: string | null;
  priority: number;
  tags: string[];
  click: string | null;
  actions: NtfyAction[];
  attachment: boolean;
  /** The HTTP status answered. */
  status: number;
}

export interface FakeNtfy {
  /** What channels.yaml's `server` should say. */
  readonly url: string;
  /** Every publish request, accepted or not, in arrival order. */
  readonly publishes: NtfyPublish[];
  /** The next answers, in order, before the usual ones: `{ status: 429 }`, `{ status: 503, retryAfter: '2' }`. */
  readonly failNext: Array<{ status: number; retryAfter?: string }>;
  close(): Promise<void>;
}

const ERRORS: Record<number, { code: number; error: string; link?: string }> = {
  400: { code: 40000, error: 'invalid request' },
  401: { code: 40101, error: 'unauthorized', link: 'https://ntfy.sh/docs/publish/#authentication' },
  403: { code: 40301, error: 'forbidden', link: 'https://ntfy.sh/docs/publish/#authentication' },
  404: { code: 40401, error: 'page not found' },
  429: { code: 42901, error: 'limit reached: too many requests', link: 'https://ntfy.sh/docs/publish/#limitations' },
  500: { code: 50001, error: 'internal server error' },
};

/** RFC 2047 encoded-words (B and Q) decoded, as Go's mime.WordDecoder does; the space between two words dropped. */
export function decodeWords(value: string): string {
  return value.replace(/\?=\s+=\?/g, '?==?').replace(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g, (_m, _charset: string, enc: string, text: string) =>
    (enc.toUpperCase() === 'B' ? Buffer.from(text, 'base64').toString('utf8')
      : Buffer.from(text.replace(/_/g, ' ').replace(/=([0-9A-Fa-f]{2})/g, (_q, h: string) => String.fromCharCode(parseInt(h, 16))), 'latin1').toString('utf8')));
}

/** ntfy's short `Actions` format: `action, label, url, key=value…; …`; values may be quoted. Throws on what ntfy refuses. */
export function parseActions(header: string): NtfyAction[] {
  const actions: NtfyAction[] = [];
  let i = 0;
  const input = header.trim();
  while (i < input.length) {
    const action: NtfyAction = { action: '', label: '' };
    for (let section = 0; ; section += 1) {
      while (input[i] === ' ') i += 1;
      const key = /^([-.\w]+)\s*=\s*/.exec(input.slice(i));
      if (key !== null) i += key[0].length;
      let value: string;
      const quote = input[i];
      if (quote === '"' || quote === '\'') {
        const end = input.indexOf(quote, i + 1);
        if (end < 0) throw new Error('unexpected end of input');
        value = input.slice(i + 1, end);
        i = end + 1;
        while (input[i] === ' ') i += 1;
      } else {
        const end = input.slice(i).search(/[,;]/);
        value = (end < 0 ? input.slice(i) : input.slice(i, i + end)).trim();
        i = end < 0 ? input.length : i + end;
      }
      const name = key?.[1] ?? ['action', 'label', 'url'][section];
      if (name === 'action') action.action = value.toLowerCase();
      else if (name === 'label') action.label = value;
      else if (name === 'url') action.url = value;
      else if (name === 'method') action.method = value.toUpperCase();
      else if (name === 'clear') action.clear = ['true', 'yes', '1'].includes(value.toLowerCase());
      else if (name === undefined) throw new Error('term must have a key');
      const sep = input[i];
      i += 1;
      if (sep === undefined || sep === ';') break;
      if (sep !== ',') throw new Error(`unexpected character ${sep}`);
    }
    if (!['view', 'http', 'broadcast'].includes(action.action) || action.label === '' || (action.action !== 'broadcast' && action.url === undefined)) {
      throw new Error('action invalid');
    }
    if (action.action === 'http' && action.method === undefined) action.method = 'POST';
    actions.push(action);
  }
  if (actions.length > 3) throw new Error('only 3 actions allowed');
  return actions;
}

const PRIORITIES: Record<string, number> = { '': 3, 1: 1, min: 1, 2: 2, low: 2, 3: 3, default: 3, 4: 4, high: 4, 5: 5, max: 5, urgent: 5 };

export async function startFakeNtfy(opts: { token?: string } = {}): Promise<FakeNtfy> {
  const publishes: NtfyPublish[] = [];
  const failNext: Array<{ status: number; retryAfter?: string }> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const body = raw.toString('utf8');
      const header = (name: string): string => decodeWords(String(req.headers[name] ?? '')).trim();
      const topic = (req.url ?? '').split('?')[0]?.slice(1) ?? '';
      const record: NtfyPublish = { topic, headers: { ...req.headers }, body, title: header('title') || null, priority: 3,
        tags: header('tags').split(',').map((t) => t.trim()).filter((t) => t !== ''), click: header('click') || null, actions: [],
        attachment: raw.length > 4096, status: 200 };
      publishes.push(record);
      const fail = (status: number, code?: number, error?: string, extra: Record<string, string> = {}): void => {
        record.status = status;
        const e = ERRORS[status] ?? { code: status * 100, error: 'error' };
        res.writeHead(status, { 'Content-Type': 'application/json', ...extra })
          .end(`${JSON.stringify({ code: code ?? e.code, http: status, error: error ?? e.error, ...(e.link === undefined ? {} : { link: e.link }) })}\n`);
      };
      if (req.method !== 'POST' && req.method !== 'PUT') return fail(404);
      if (!/^[-_A-Za-z0-9]{1,64}$/.test(topic)) return fail(404);
      const auth = req.headers.authorization;
      if (opts.token !== undefined && auth === undefined) return fail(403);
      if (opts.token !== undefined && auth !== `Bearer ${opts.token}`) return fail(401);
      const scripted = failNext.shift();
      if (scripted !== undefined) return fail(scripted.status, undefined, undefined, scripted.retryAfter === undefined ? {} : { 'Retry-After': scripted.retryAfter });
      const priority = PRIORITIES[header('priority').toLowerCase()];
      if (priority === undefined) return fail(400, 40007, 'invalid priority parameter');
      record.priority = priority;
      if (header('actions') !== '') {
        try {
          record.actions = parseActions(header('actions'));
        } catch (err) {
          return fail(400, 40018, `invalid request: actions invalid; ${(err as Error).message}`);
        }
      }
      if (Buffer.from(body, 'utf8').compare(raw) !== 0) return fail(400, 40011, 'invalid request: message must be UTF-8 encoded');
      const now = Math.floor(Date.now() / 1000);
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(`${JSON.stringify({ id: randomBytes(9).toString('base64url').slice(0, 12),
        time: now, expires: now + 43_200, event: 'message', topic, ...(record.title === null ? {} : { title: record.title }),
        message: record.attachment ? 'You received a file: attachment.txt' : body, priority, tags: record.tags,
        ...(record.click === null ? {} : { click: record.click }), ...(record.actions.length === 0 ? {} : { actions: record.actions }) })}\n`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    publishes,
    failNext,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
