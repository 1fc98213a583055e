/**
 * The vendor exports under test/fixtures/import/<vendor>/ (each in its API's answer shape, with the
 * vendor's own rendering of its schedules written by render-vendor-views.ts), read and mapped as
 * `svc import` would at the instant the renderings start.
 */
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Override } from '../../src/oncall/oncall-config.js';
import type { Answers } from '../../src/import/answers.js';
import { DEFAULT_CONTACT_CHANNELS } from '../../src/import/contact-channels.js';
import type { ImportResult, ImportVendor } from '../../src/import/import-result.js';
import { readSavedDir } from '../../src/import/read-saved-dir.js';
import { VENDOR_SPECS } from '../../src/import/vendors.js';

/** The instant the fixtures were exported at (their renderings cover the 28 days from it). */
export const FIXTURE_NOW = '2026-03-20T12:00:00Z';
export const FIXTURE_NOW_MS = Date.parse(FIXTURE_NOW);

export const fixtureDir = (vendor: ImportVendor): string => join(import.meta.dirname, '..', 'fixtures', 'import', vendor);

/** A copy of a vendor fixture in a fresh temporary directory, for tests that change it. */
export function fixtureCopy(vendor: ImportVendor): string {
  const dir = mkdtempSync(join(tmpdir(), `svc-import-${vendor}-`));
  cpSync(fixtureDir(vendor), dir, { recursive: true });
  return dir;
}

export function importFixture(vendor: ImportVendor, dir = fixtureDir(vendor)): { answers: Answers; result: ImportResult } {
  const answers = readSavedDir(dir);
  return { answers, result: VENDOR_SPECS[vendor].map(answers, { nowMs: FIXTURE_NOW_MS, channels: DEFAULT_CONTACT_CHANNELS }) };
}

/** The imported overrides as the store would hold them. */
export function storedOverrides(result: ImportResult): Override[] {
  return result.overrides.map((o, i) => ({ id: `o${i + 1}`, agentId: 'test', scheduleId: o.scheduleId, personId: o.personId, fromMs: o.fromMs, toMs: o.toMs }));
}
