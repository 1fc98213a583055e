/**
 * Reading a vendor's JSON answer field by field, knowing where each value came from: a value that is
 * not what the vendor's API reference says is an ImportInputError naming the file and the JSON path
 * (`v2/users.json: $.data[3].username: expected a string, found a number`), which the CLI turns into
 * exit 2 (contract §22.1: "unreadable input, file and JSON path named"). Only the shape is checked
 * here; what a value means is the vendor module's.
 */

export class ImportInputError extends Error {
  readonly code = 'EIMPORTINPUT';
  constructor(readonly file: string, readonly jsonPath: string, readonly problem: string) {
    super(`${file}: ${jsonPath}: ${problem}`);
    this.name = 'ImportInputError';
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string': return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
    case 'number': return `the number ${value}`;
    case 'boolean': return `${value}`;
    case 'object': return 'an object';
    default: return typeof value;
  }
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A JSON value, where it sits (file and `$…` path), and typed reads that fail with both named. */
export class JsonCursor {
  constructor(readonly value: unknown, readonly file: string, readonly path = '$') {}

  fail(problem: string): never {
    throw new ImportInputError(this.file, this.path, problem);
  }

  private expected(what: string): never {
    return this.fail(`expected ${what}, found ${describe(this.value)}`);
  }

  /** The member `key` of this object (undefined members read as null). */
  field(key: string): JsonCursor {
    const record = this.record();
    const path = IDENTIFIER.test(key) ? `${this.path}.${key}` : `${this.path}[${JSON.stringify(key)}]`;
    return new JsonCursor(Object.hasOwn(record, key) ? record[key] : null, this.file, path);
  }

  /** The member `key`, or null when it is absent or null. */
  optional(key: string): JsonCursor | null {
    const member = this.field(key);
    return member.isNull() ? null : member;
  }

  isNull(): boolean {
    return this.value === null || this.value === undefined;
  }

  record(): Record<string, unknown> {
    if (typeof this.value !== 'object' || this.value === null || Array.isArray(this.value)) return this.expected('an object');
    return this.value as Record<string, unknown>;
  }

  items(): JsonCursor[] {
    if (!Array.isArray(this.value)) return this.expected('an array');
    return this.value.map((item, i) => new JsonCursor(item, this.file, `${this.path}[${i}]`));
  }

  /** An array, or none when the member is absent or null. */
  itemsOrNone(): JsonCursor[] {
    return this.isNull() ? [] : this.items();
  }

  str(): string {
    return typeof this.value === 'string' ? this.value : this.expected('a string');
  }

  optStr(): string | null {
    return this.isNull() ? null : this.str();
  }

  num(): number {
    return typeof this.value === 'number' && Number.isFinite(this.value) ? this.value : this.expected('a number');
  }

  int(min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER): number {
    const n = this.num();
    if (!Number.isInteger(n) || n < min || n > max) this.fail(`expected a whole number from ${min} to ${max}, found ${n}`);
    return n;
  }

  bool(): boolean {
    return typeof this.value === 'boolean' ? this.value : this.expected('true or false');
  }

  /** An instant: ISO-8601 with a zone (`2026-11-23T08:00:00Z`, `…+01:00`), as epoch milliseconds. */
  instant(): number {
    const text = this.str();
    const ms = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/.test(text) ? Date.parse(text) : NaN;
    if (!Number.isFinite(ms)) this.fail(`expected an ISO-8601 time with a zone, found ${describe(text)}`);
    return ms;
  }

  /** One of `allowed`. */
  oneOf<T extends string>(allowed: readonly T[]): T {
    const text = this.str();
    if (!(allowed as readonly string[]).includes(text)) this.fail(`expected one of ${allowed.join(', ')}, found ${describe(text)}`);
    return text as T;
  }
}
