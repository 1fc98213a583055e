/**
 * svc ids for the vendor's people, schedules and policies (`^[a-z0-9][a-z0-9._-]{0,63}$`, contract §17):
 * made from the vendor's names so a person reads `oncall.yaml` and recognises them (`alice` for
 * alice@example.com, `platform-primary` for "Platform Primary"), unique within each list (`alice-2`
 * for a second alice), the same on every run over the same answers.
 */
import { ID_PATTERN } from '../config/schema.js';

const MAX_ID = 64;

/** The name as an id: lowercase, accents dropped, anything else a single `-`; `fallback` when nothing is left. */
export function slug(name: string, fallback: string): string {
  const base = name.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-').replace(/^[^a-z0-9]+/, '').replace(/[-.]+$/, '').slice(0, MAX_ID);
  return ID_PATTERN.test(base) ? base : fallback;
}

/** Hands out unique ids in one namespace (people, schedules or policies). */
export class IdAllocator {
  private readonly taken = new Set<string>();

  /** A fresh id made from `name` (`fallback` when the name has nothing usable), `-2`, `-3`, … when taken. */
  next(name: string, fallback: string): string {
    const base = slug(name, fallback);
    let id = base;
    for (let n = 2; this.taken.has(id); n++) {
      const suffix = `-${n}`;
      id = `${base.slice(0, MAX_ID - suffix.length)}${suffix}`;
    }
    this.taken.add(id);
    return id;
  }

  /** Reserves `id` (a derived schedule such as `primary-next`) if free; returns the id actually given. */
  reserve(id: string): string {
    return this.next(id, id);
  }
}
