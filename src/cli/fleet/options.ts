/** Number and choice flags of `svc fleet`, checked before any host is asked (a bad one is exit 2). */
import { UsageError } from '../../core/errors.js';

export function intFlag(flag: string, raw: string | undefined, min: number, max: number): number | undefined {
  if (raw === undefined) return undefined;
  const n = /^\d{1,10}$/.test(raw) ? Number(raw) : NaN;
  if (!(n >= min && n <= max)) throw new UsageError(`${flag}: expected an integer from ${min} to ${max}`);
  return n;
}

export function orderFlag(raw: string | undefined, fallback: 'asc' | 'desc'): 'asc' | 'desc' {
  if (raw === undefined) return fallback;
  if (raw !== 'asc' && raw !== 'desc') throw new UsageError('--order: expected asc or desc');
  return raw;
}
