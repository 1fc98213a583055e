/**
 * The on-call parts of bench/console-views.ts (contract §24.8, §24.6), each against real daemons with
 * wrk in its own process:
 *
 * - `pagesSection`: the console's views with 10,000 open pages vs 10 — Now, the page list (all, and
 *   triggered; 50 rows, and 10 rows at both sizes), one page — each view p50/p99 from wrk, sizes
 *   taking turns; the ratio of the p50s, and whether p99 at 10,000 stays under 200 ms;
 * - `teamSection`: the control plane's `/status` of a daemon whose team console listens with people
 *   signed in (real sign-ins at oidc-provider, test/support/idp.ts) vs one without a console, rounds
 *   taking turns; the ratio of the request rates (target ≥ 0.95).
 */
import { startIdp, signInWithoutBrowser } from '../../test/support/idp.js';
import type { BenchDaemon } from './daemon.js';
import { benchDaemon, freePort, r3 } from './daemon.js';
import type { OncallBenchDaemon } from './oncall.js';
import { oncallDaemon, pageWriter } from './oncall.js';
import type { WrkResult } from './wrk.js';
import { runWrk } from './wrk.js';

const note = (line: string): void => { process.stderr.write(`console-views: ${line}\n`); };
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

export async function pagesSection(opts: { sizes: [number, number]; seconds: number; rounds: number }): Promise<void> {
  const daemons: OncallBenchDaemon[] = [];
  const someId: string[] = [];
  try {
    for (const n of opts.sizes) {
      const d = await oncallDaemon({ oncall: { firstAfter: '1h', secondAfter: '1h' } });
      daemons.push(d);
      const writer = await pageWriter(d);
      const t0 = Date.now();
      // Open pages whose next step is hours away: nothing escalates while the views are read.
      const ids = await writer.open(Array.from({ length: n }, () => Date.now() + 6 * 3_600_000));
      await writer.close();
      someId.push(ids[Math.floor(ids.length / 2)] ?? '');
      note(`${n} open pages written in ${r3((Date.now() - t0) / 1000)} s`);
      await d.start();
    }
    // The lists show up to 50 rows (Now 20 of each state): 10 pages fill fewer. `limit=10` shows as many rows at both sizes,
    // so its ratio is what the number of stored pages costs; the default ones add what more rows cost to render.
    const views = [['now', '/ui/'], ['pages', '/ui/pages'], ['pages-10-rows', '/ui/pages?limit=10'], ['triggered', '/ui/pages?state=triggered'],
      ['triggered-10-rows', '/ui/pages?state=triggered&limit=10'], ['page', '/ui/pages/:id']] as const;
    const runs = new Map<string, [WrkResult[], WrkResult[]]>(views.map(([name]) => [name, [[], []]]));
    for (let round = 0; round < opts.rounds; round++) {
      for (const [name, path] of views) {
        // Sizes take turns, the order alternating by round.
        for (const k of round % 2 === 0 ? [0, 1] as const : [1, 0] as const) {
          const d = daemons[k] as BenchDaemon;
          const r = await runWrk({ url: `${d.cp}${path.replace(':id', someId[k] ?? '')}`, seconds: opts.seconds, connections: 2 });
          if (r.errors > 0) throw new Error(`${name} at ${opts.sizes[k]}: ${r.errors} errors`);
          runs.get(name)?.[k].push(r);
        }
      }
    }
    const result = Object.fromEntries(views.map(([name]) => {
      const [small, large] = runs.get(name) ?? [[], []];
      const p50 = [median(small.map((r) => r.p50Ms)), median(large.map((r) => r.p50Ms))];
      const p99 = [median(small.map((r) => r.p99Ms)), median(large.map((r) => r.p99Ms))];
      return [name, { p50Ms: p50.map(r3), p99Ms: p99.map(r3), ratioP50: r3((p50[1] ?? 0) / (p50[0] ?? 1)), under200ms: (p99[1] ?? Infinity) < 200 }];
    }));
    console.log(JSON.stringify({ bench: 'console-views', section: 'open-pages', sizes: opts.sizes, secondsPerRun: opts.seconds, rounds: opts.rounds, views: result }));
    console.log(`console views with ${opts.sizes[1]} open pages vs ${opts.sizes[0]} (wrk p50, median of ${opts.rounds} runs): `
      + Object.entries(result).map(([name, v]) => `${name} ${v.p50Ms[1]} vs ${v.p50Ms[0]} ms (x${v.ratioP50}, p99 ${v.p99Ms[1]} ms)`).join('; '));
  } finally {
    for (const d of daemons) { await d.stop(); d.cleanup(); }
  }
}

export async function teamSection(opts: { sessions: number; seconds: number; rounds: number }): Promise<void> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const secret = 'bench-team-console-secret-0123456789';
  const idp = await startIdp({}, { confidentialClients: { 'svc-team': { secret, redirect: `${origin}/auth/callback` } } });
  const plain = await benchDaemon();
  const team = await benchDaemon({ agentYaml: `console:\n  port: ${port}\n  publicUrl: ${origin}\n  oidc:\n    issuer: ${idp.issuer}\n`
    + '    clientId: svc-team\n    clientSecret: ${env:TEAM_SECRET}\n' });
  team.env.TEAM_SECRET = secret;
  try {
    await plain.start();
    await team.start();
    const t0 = Date.now();
    for (let i = 0; i < opts.sessions; i++) {
      const signed = await signInWithoutBrowser(`${origin}/auth/login`);
      if (!signed.cookie.includes('svc_team=') || !signed.landed.endsWith('/ui/')) throw new Error(`sign-in ${i} ended at ${signed.landed}`);
      // Each session reads a view once: the console has served it, then sits signed in.
      if ((await fetch(`${origin}/ui/`, { headers: { cookie: signed.cookie } })).status !== 200) throw new Error('a signed-in view failed');
    }
    note(`${opts.sessions} people signed in to the team console in ${r3((Date.now() - t0) / 1000)} s`);
    const rps: [number[], number[]] = [[], []];
    const p99: [number[], number[]] = [[], []];
    for (let round = 0; round < opts.rounds; round++) {
      for (const k of round % 2 === 0 ? [0, 1] : [1, 0]) {
        const d = k === 0 ? plain : team;
        const r = await runWrk({ url: `${d.cp}/status`, seconds: opts.seconds, connections: 4 });
        if (r.errors > 0) throw new Error(`/status: ${r.errors} errors`);
        rps[k as 0 | 1].push(r.rps);
        p99[k as 0 | 1].push(r.p99Ms);
      }
    }
    // Each round's two runs are next to each other in time: their ratio cancels most of a shared host's drift.
    const pairs = rps[1].map((v, i) => v / (rps[0][i] ?? NaN));
    const ratio = r3(median(pairs));
    console.log(JSON.stringify({ bench: 'console-views', section: 'team-console-status', sessions: opts.sessions, rounds: opts.rounds,
      statusRps: { without: rps[0].map(Math.round), withConsole: rps[1].map(Math.round) }, p99Ms: { without: p99[0].map(r3), withConsole: p99[1].map(r3) },
      roundRatios: pairs.map(r3), ratio, target: 0.95 }));
    console.log(`/status with the team console listening and ${opts.sessions} signed in vs without: ${Math.round(median(rps[1]))} vs `
      + `${Math.round(median(rps[0]))} req/s (median of the rounds' ratios x${ratio}, target >= 0.95)`);
  } finally {
    await team.stop();
    await plain.stop();
    team.cleanup();
    plain.cleanup();
    await idp.close();
  }
}
