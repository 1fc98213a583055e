/**
 * A vendor's saved REST answers (contract §22.1): one file per request, named by the request's path
 * with `.json` (`v2/users.json`, `v2/schedules/<id>/overrides.json`), further pages of the same request
 * `v2/users.2.json`, `v2/users.3.json`, … — the layout the `curl` commands of docs/import.md write and
 * the live fetch (fetch-live.ts) writes too. The vendor modules read answers only through this.
 */
import { ImportInputError, JsonCursor } from './json-cursor.js';

export interface SavedPage {
  /** The file it came from, relative to the saved directory (for error messages). */
  file: string;
  body: unknown;
}

/** A request's path without leading or trailing slashes: `api/v1/users/` → `api/v1/users`. */
export function requestPath(path: string): string {
  return path.replace(/^\/+|\/+$/g, '');
}

/** The file that holds page `page` (from 1) of the request at `path`. */
export function answerFile(path: string, page: number): string {
  return page === 1 ? `${requestPath(path)}.json` : `${requestPath(path)}.${page}.json`;
}

export class Answers {
  private readonly byPath = new Map<string, SavedPage[]>();

  /** Adds page `page` (from 1) of the answer to `path`. */
  add(path: string, page: number, body: unknown, file = answerFile(path, page)): void {
    const key = requestPath(path);
    const pages = this.byPath.get(key) ?? [];
    pages[page - 1] = { file, body };
    this.byPath.set(key, pages);
  }

  has(path: string): boolean {
    return this.byPath.has(requestPath(path));
  }

  paths(): string[] {
    return [...this.byPath.keys()];
  }

  /** Every page of the answer to `path`, in order; null when it was not saved. A missing page in between is an input error. */
  pages(path: string): SavedPage[] | null {
    const pages = this.byPath.get(requestPath(path));
    if (pages === undefined) return null;
    for (let i = 0; i < pages.length; i++) {
      if (pages[i] === undefined) {
        throw new ImportInputError(answerFile(path, i + 1), '$', `missing, while ${answerFile(path, pages.length)} is there: save every page of a paged answer`);
      }
    }
    return pages;
  }

  /** The first page of an answer that must be there. */
  required(path: string): JsonCursor {
    const first = this.pages(path)?.[0];
    if (first === undefined) throw missing(path);
    return new JsonCursor(first.body, first.file);
  }

  /** The first page of an answer that may be absent. */
  optional(path: string): JsonCursor | null {
    const first = this.pages(path)?.[0];
    return first === undefined ? null : new JsonCursor(first.body, first.file);
  }

  /**
   * The items of a list answer over all its pages: the array under `key` of each page (`data` for
   * Opsgenie, `users` for PagerDuty, `results` for Grafana OnCall). Null when the answer was not saved.
   */
  list(path: string, key: string): JsonCursor[] | null {
    const pages = this.pages(path);
    if (pages === null) return null;
    return pages.flatMap((page) => new JsonCursor(page.body, page.file).field(key).itemsOrNone());
  }

  /** The items of a list answer that must be there. */
  requiredList(path: string, key: string): JsonCursor[] {
    const items = this.list(path, key);
    if (items === null) throw missing(path);
    return items;
  }
}

function missing(path: string): ImportInputError {
  return new ImportInputError(answerFile(path, 1), '$', 'missing: the import needs this answer (docs/import.md gives the request that saves it)');
}
