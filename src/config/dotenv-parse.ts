/**
 * The `.env` format svc reads (contract §13), strict so that a value is never changed silently — a
 * secret cut at a `#`, a quote swallowing the next lines, a second definition shadowing the first:
 *
 * - one `KEY=value` per line (`export KEY=value` too); blank lines and lines starting with `#` are
 *   skipped; a UTF-8 byte order mark at the start is dropped;
 * - an unquoted value is the rest of the line, spaces around it trimmed; a `#` inside it is part of
 *   it, and ` #` (a comment after a value) is refused: quote the value or drop the comment;
 * - `'…'` is taken as written; `"…"` knows `\n`, `\t`, `\r`, `\"` and `\\`; a quote closes on its own
 *   line, and after it only spaces and a ` # comment` may follow;
 * - a key defined twice in one file is refused.
 *
 * Problems name the line and the key, never the value.
 */
export type DotenvParse = { ok: true; vars: Map<string, string> } | { ok: false; problems: string[] };

const KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ESCAPES: Readonly<Record<string, string>> = { n: '\n', t: '\t', r: '\r', '"': '"', '\\': '\\' };

export function parseDotenv(text: string): DotenvParse {
  const vars = new Map<string, string>();
  const lineOf = new Map<string, number>();
  const problems: string[] = [];
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  lines.forEach((raw, index) => {
    const n = index + 1;
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const body = line.startsWith('export ') ? line.slice('export '.length).trimStart() : line;
    const eq = body.indexOf('=');
    const key = eq < 0 ? '' : body.slice(0, eq).trim();
    if (eq < 0 || !KEY.test(key)) {
      problems.push(`line ${n}: expected KEY=value with KEY of letters, digits and _`);
      return;
    }
    const value = valueOf(body.slice(eq + 1).trim());
    if (typeof value !== 'string') {
      problems.push(`line ${n}: ${key}: ${value.problem}`);
      return;
    }
    const first = lineOf.get(key);
    if (first !== undefined) {
      problems.push(`line ${n}: ${key}: already set on line ${first}`);
      return;
    }
    lineOf.set(key, n);
    vars.set(key, value);
  });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, vars };
}

function valueOf(text: string): string | { problem: string } {
  const quote = text[0];
  if (quote !== '"' && quote !== "'") {
    if (/\s#/.test(text)) return { problem: 'a comment after an unquoted value; quote the value or move the comment to a line of its own' };
    return text;
  }
  let out = '';
  for (let i = 1; i < text.length; i++) {
    const c = text[i] as string;
    if (c === quote) {
      const rest = text.slice(i + 1);
      if (rest.trim() !== '' && !/^\s+#/.test(rest)) return { problem: 'text after the closing quote' };
      return out;
    }
    if (quote === '"' && c === '\\') {
      const escaped = ESCAPES[text[i + 1] ?? ''];
      if (escaped === undefined) return { problem: 'unknown escape in a double-quoted value (known: \\n \\t \\r \\" \\\\)' };
      out += escaped;
      i++;
      continue;
    }
    out += c;
  }
  return { problem: 'the quote is not closed on its line' };
}
