/** The result of a chain verification as one line (`svc audit --verify`, online or `--db`). */
import type { VerifyResult } from '../audit/chain.js';

export function verifyLine(verify: VerifyResult): string {
  return verify.ok
    ? `chain ok: ${verify.checked} rows checked, head seq ${verify.headSeq} ${verify.headHash ?? ''}`.trimEnd()
    : `chain BROKEN at seq ${verify.firstBadSeq ?? '?'}: ${verify.problem ?? 'unknown'} (${verify.checked} rows checked)`;
}
