/**
 * One audit row as an RFC 5424 syslog message, framed for TCP by octet counting (RFC 6587 §3.4.1):
 *
 *   <110>1 TIMESTAMP HOSTNAME APP-NAME PROCID MSGID [svc@32473 seq="…" hash="…" agent="…"] BOM{row JSON}
 *
 * PRI 110 = facility 13 (log audit) × 8 + severity 6 (informational). The MSG is the row's RFC 8785
 * JSON (hash included), so a receiver can recompute the chain from what it stored.
 */
import { canonicalJson } from '../audit/chain.js';
import type { AuditRow } from '../audit/audit-row.js';

const PRI = 13 * 8 + 6;
/** SD-ID of the structured data element: name@private-enterprise-number (RFC 5424 §6.3.2). */
export const SD_ID = 'svc@32473';
/** RFC 5424 §6.4: a UTF-8 MSG starts with the byte order mark. */
const BOM = '\uFEFF';

export interface SyslogHeader {
  hostname: string;
  appName: string;
  procId: string;
}

/**
 * A header field: printable US-ASCII without spaces (RFC 5424 §6: PRINTUSASCII), at most `max`
 * characters, NILVALUE `-` when nothing is left.
 */
export function headerField(value: string, max: number): string {
  const clean = value.replace(/[^\x21-\x7E]/g, '_').slice(0, max);
  return clean === '' ? '-' : clean;
}

/** PARAM-VALUE escaping (RFC 5424 §6.3.3): `"`, `\` and `]` are escaped with a backslash. */
export function sdParamValue(value: string): string {
  return value.replace(/["\\\]]/g, (c) => `\\${c}`);
}

/** The message (without framing) for one row. */
export function syslogMessage(row: AuditRow, header: SyslogHeader): string {
  const sd = `[${SD_ID} seq="${row.seq}" hash="${sdParamValue(row.hash)}" agent="${sdParamValue(row.agentId ?? '-')}"]`;
  // Field limits of RFC 5424 §6: HOSTNAME 255, APP-NAME 48, PROCID 128, MSGID 32.
  return `<${PRI}>1 ${row.ts} ${headerField(header.hostname, 255)} ${headerField(header.appName, 48)}`
    + ` ${headerField(header.procId, 128)} ${headerField(row.kind, 32)} ${sd} ${BOM}${canonicalJson(row)}`;
}

/** `MSG-LEN SP SYSLOG-MSG`, MSG-LEN counting octets of the UTF-8 message. */
export function octetCountedFrame(message: string): Buffer {
  const body = Buffer.from(message, 'utf8');
  return Buffer.concat([Buffer.from(`${body.length} `, 'ascii'), body]);
}

/** The frames of a batch, one per row in order, as one buffer: one socket write per batch. */
export function syslogBatch(rows: readonly AuditRow[], header: SyslogHeader): Buffer {
  return Buffer.concat(rows.map((row) => octetCountedFrame(syslogMessage(row, header))));
}
