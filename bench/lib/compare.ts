/**
 * Same-run comparison of svc against its bare baseline under wrk: rounds alternate between the two
 * (so drift on a shared machine falls on both alike), and the best round of each side counts. Every
 * round is kept too, so a report can show the range, with the load average around the run and, given
 * the two servers' process ids, the CPU time each spent per answered request — a figure that other
 * work on a shared host disturbs far less than a rate does.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import type { WrkOptions, WrkResult } from './wrk.js';
import { runWrk } from './wrk.js';

export interface Round {
  svc: WrkResult;
  bare: WrkResult;
  /** CPU per answered request, µs: the whole svc process, its main thread alone, the bare server. */
  svcCpuUsPerReq?: number;
  svcMainCpuUsPerReq?: number;
  bareCpuUsPerReq?: number;
}

export interface Comparison {
  svc: WrkResult;
  bare: WrkResult;
  ratio: number;
  /** Each round's pair, in order (bare measured first). */
  rounds: Round[];
  /** The 1-minute load average before the first round and after the last. */
  load: [number, number];
}

/**
 * User + system CPU, ms, from /proc (Linux; clock ticks of 10 ms): of a whole process (all its
 * threads), or with `thread` of that one thread (the main thread's id is the process id).
 */
export function processCpuMs(pid: number, thread?: number): number {
  const stat = readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function measured(o: WrkOptions, pid: number | undefined): Promise<{ r: WrkResult; cpuUsPerReq?: number; mainCpuUsPerReq?: number }> {
  if (pid === undefined) return { r: await runWrk(o) };
  const before = [processCpuMs(pid), processCpuMs(pid, pid)] as const;
  const r = await runWrk(o);
  const perReq = (ms: number): number => (ms * 1000) / Math.max(1, r.requests);
  return { r, cpuUsPerReq: perReq(processCpuMs(pid) - before[0]), mainCpuUsPerReq: perReq(processCpuMs(pid, pid) - before[1]) };
}

export async function compareRates(svc: WrkOptions, bare: WrkOptions, rounds = 3, pids?: { svc: number; bare: number }): Promise<Comparison> {
  const before = loadavg()[0] as number;
  const all: Round[] = [];
  for (let r = 0; r < rounds; r++) {
    const b = await measured(bare, pids?.bare);
    const s = await measured(svc, pids?.svc);
    if (s.r.errors > 0 || b.r.errors > 0) throw new Error(`errors under load: svc ${s.r.errors}, bare ${b.r.errors}`);
    all.push({ svc: s.r, bare: b.r,
      ...(s.cpuUsPerReq === undefined || b.cpuUsPerReq === undefined ? {}
        : { svcCpuUsPerReq: s.cpuUsPerReq, svcMainCpuUsPerReq: s.mainCpuUsPerReq, bareCpuUsPerReq: b.cpuUsPerReq }) });
  }
  const best = (side: 'svc' | 'bare'): WrkResult => all.map((x) => x[side]).reduce((a, b) => (b.rps > a.rps ? b : a));
  const svcBest = best('svc');
  const bareBest = best('bare');
  return { svc: svcBest, bare: bareBest, ratio: svcBest.rps / bareBest.rps, rounds: all, load: [before, loadavg()[0] as number] };
}
