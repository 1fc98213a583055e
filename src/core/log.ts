/** The shape of a structured log record's level and fields, shared by every writer of records. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Record<string, string | number | boolean | null | undefined>;
/** Writes one record; never throws (a failing sink is counted by its owner, not propagated). */
export type Log = (level: LogLevel, event: string, fields: LogFields) => void;
