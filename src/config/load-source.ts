/**
 * One webhook source of an agent directory, for the tools that only talk to it (`svc webhook send`,
 * contract §13: it "needs only its source's secret"). Only that source's references are resolved: a
 * channel token or another source's secret that is not set here does not stand in the way.
 */
import { join } from 'node:path';
import { parse } from 'yaml';
import { ConfigError, UsageError } from '../core/errors.js';
import { MAX_CONFIG_FILE_BYTES, readBoundedFile, readFailureText } from './read-bounded.js';
import { resolveRefs } from './refs.js';
import type { WebhookSourceConfig } from './schema.js';
import { webhookSourceSchema } from './schema.js';

export interface SourceLoadContext {
  env: NodeJS.ProcessEnv;
  home: string;
}

function resolveDeep(value: unknown, path: string, ctx: SourceLoadContext & { baseDir: string }, problems: string[]): unknown {
  if (typeof value === 'string') {
    const resolved = resolveRefs(value, ctx);
    if (resolved.ok) return resolved.value;
    problems.push(`${path}: ${resolved.error}`);
    return undefined;
  }
  if (Array.isArray(value)) return value.map((v, i) => resolveDeep(v, `${path}.${i}`, ctx, problems));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveDeep(v, `${path}.${k}`, ctx, problems)]));
  }
  return value;
}

/**
 * The webhook source `sourceId` (or the only webhook source) of `dir`/event-sources.yaml, references
 * resolved and validated. Usage errors say what is wrong: no such source (naming the ones there are),
 * an ack or Slack source, or several webhook sources and no `--source`.
 */
export function loadSource(dir: string, sourceId: string | undefined, ctx: SourceLoadContext): WebhookSourceConfig {
  const file = join(dir, 'event-sources.yaml');
  // Bounded like every configuration read (a regular file of at most 1 MiB; a FIFO never blocks).
  const read = readBoundedFile(file, { maxBytes: MAX_CONFIG_FILE_BYTES });
  if (!read.ok) {
    if (read.reason === 'not-found') throw new ConfigError(`${file}: file not found (is ${dir} an agent directory? use --dir)`);
    throw new ConfigError(`${file}: ${readFailureText(read)}`);
  }
  let doc: unknown;
  try {
    doc = parse(read.text);
  } catch {
    throw new ConfigError(`${file}: not valid YAML`);
  }
  const list = (doc as { sources?: unknown } | null)?.sources;
  if (!Array.isArray(list) || list.length === 0) throw new ConfigError(`${file}: sources: expected a list of sources`);
  const ids = list.map((s) => { const id = (s as { id?: unknown } | null)?.id; return typeof id === 'string' ? id : '?'; });
  const typeOf = (i: number): unknown => (list[i] as { type?: unknown } | null)?.type;
  // Ack, Slack and Twilio sources answer people, not alert senders: only webhook sources take a POST of alerts.
  const webhooks = ids.flatMap((id, i) => (typeOf(i) === 'webhook' ? [i] : []));
  const named = (of: number[]): string => of.map((i) => ids[i]).join(', ');
  let index: number;
  if (sourceId === undefined) {
    if (webhooks.length > 1) throw new UsageError(`--source is required: ${file} has ${webhooks.length} webhook sources (${named(webhooks)})`);
    if (webhooks.length === 0 && list.length > 1) throw new ConfigError(`${file}: no webhook source to send to (its sources: ${ids.join(', ')})`);
    index = webhooks[0] ?? 0; // one source of another type: the schema below says what is wrong with it
  } else {
    index = ids.indexOf(sourceId);
    if (index < 0) throw new UsageError(`--source ${JSON.stringify(sourceId)}: no such source in ${file}; its sources: ${ids.join(', ')}`);
    const type = typeOf(index);
    if (type === 'ack' || type === 'slack' || type === 'twilio') {
      const noun = type === 'ack' ? 'an ack' : type === 'slack' ? 'a Slack' : 'a Twilio';
      throw new UsageError(`--source ${sourceId}: ${noun} source answers people, it takes no alerts; webhook sources: ${named(webhooks) || 'none'}`);
    }
  }
  const problems: string[] = [];
  const resolved = resolveDeep(list[index], `sources.${index}`, { ...ctx, baseDir: dir }, problems);
  if (problems.length > 0) throw new ConfigError(problems.map((p) => `${file}: ${p}`).join('\n'));
  const parsed = webhookSourceSchema.safeParse(resolved);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${file}: ${['sources', index, ...i.path.map(String)].join('.')}: ${i.message}`).join('\n'));
  }
  return parsed.data;
}
