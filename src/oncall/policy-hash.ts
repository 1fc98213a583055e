/**
 * `policySha256` (contract §17.3): the hex SHA-256 of a policy's RFC 8785 JSON, as loaded (durations
 * in milliseconds, targets parsed). A page records it when it opens; the same policy written
 * differently in YAML (`5m` or `300s`, key order, comments) hashes the same.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../audit/chain.js';
import type { Policy } from './oncall-config.js';

export function policySha256(policy: Policy): string {
  return createHash('sha256').update(canonicalJson(policy)).digest('hex');
}
