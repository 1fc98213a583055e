/**
 * Same-run comparison of svc against its bare baseline under wrk: rounds alternate between the two
 * (so drift on a shared machine falls on both alike), and the best round of each side counts.
 */
import type { WrkOptions, WrkResult } from './wrk.js';
import { runWrk } from './wrk.js';

export interface Comparison { svc: WrkResult; bare: WrkResult; ratio: number }

export async function compareRates(svc: WrkOptions, bare: WrkOptions, rounds = 3): Promise<Comparison> {
  let best: { svc: WrkResult | null; bare: WrkResult | null } = { svc: null, bare: null };
  for (let r = 0; r < rounds; r++) {
    const b = await runWrk(bare);
    const s = await runWrk(svc);
    if (s.errors > 0 || b.errors > 0) throw new Error(`errors under load: svc ${s.errors}, bare ${b.errors}`);
    if (best.bare === null || b.rps > best.bare.rps) best = { ...best, bare: b };
    if (best.svc === null || s.rps > best.svc.rps) best = { ...best, svc: s };
  }
  const svcBest = best.svc as WrkResult;
  const bareBest = best.bare as WrkResult;
  return { svc: svcBest, bare: bareBest, ratio: svcBest.rps / bareBest.rps };
}
