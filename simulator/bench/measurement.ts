// What every bench reports: one figure with its goal, whether it met it, and optionally how the cost grows with
// the work (a series drawn as a small chart in reports/bench.html). Ratios are against a reference measured in
// the same run (a bare Fastify route, the etcd client's own puts...), never against a fixed number of
// milliseconds alone, so a slower or busier machine moves both sides together.

import { readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

export interface Point {
  x: number;
  y: number;
}

export interface Measurement {
  name: string;
  value: number;
  unit: string;
  /** The goal as text ("<= 2x", ">= 0.8 of bare Fastify", "report only"). */
  target: string;
  ok: boolean;
  /**
   * For a ratio: its two sides (the median pair's, when paired), printed beside it in the table: what was measured
   * and the reference it is divided by, in `unit`, with what the reference is.
   */
  sides?: { measured: number; reference: number; unit: string; referenceLabel: string };
  /**
   * Cost over the size of the work, for the chart: x = store size, watcher count..., y = the figure; `reference`,
   * when there is one, the same cost of the reference (a bare server, the etcd client) at the same sizes, drawn beside.
   */
  series?: { xLabel: string; yLabel: string; points: Point[]; reference?: Point[]; referenceLabel?: string };
}

/** A paired ratio as a measurement: its goal a bound on measured/reference, the median pair's sides kept. */
export function ratioMeasurement(
  name: string,
  pair: Pair,
  goal: { atLeast?: number; atMost?: number },
  sides: { unit: string; referenceLabel: string },
): Measurement {
  const ok = (goal.atLeast === undefined || pair.ratio >= goal.atLeast) && (goal.atMost === undefined || pair.ratio <= goal.atMost);
  const target = [goal.atLeast !== undefined ? `>= ${goal.atLeast}` : '', goal.atMost !== undefined ? `<= ${goal.atMost}` : ''].filter(Boolean).join(', ');
  return { name, value: pair.ratio, unit: 'x', target, ok, sides: { measured: pair.measured, reference: pair.reference, ...sides } };
}

export const isMeasurement = (x: unknown): x is Measurement =>
  !!x && typeof x === 'object' && typeof (x as Measurement).name === 'string' && typeof (x as Measurement).ok === 'boolean';

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[s.length >> 1] : NaN;
}

export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(s.length * p))] : NaN;
}

/** One pair of a paired ratio: the rates of the side measured and of its reference, back to back. */
export interface Pair {
  ratio: number;
  measured: number;
  reference: number;
}

/**
 * A rate as a ratio to a reference's: `rounds` pairs, each the two measured back to back (the reference first in even
 * rounds), and the pair whose ratio is the median (its rates are what a bench prints). On a machine whose speed moves
 * from second to second, a pair measured together sees the same machine; the best of each side taken apart (what the
 * api and etcd benches did before) could set a fast moment of one against a slow moment of the other, and moved the
 * api ratios by a third between runs. `round` is passed on, so that each round can write keys of its own.
 */
export async function pairedRatio(
  rounds: number,
  measured: (round: number) => Promise<number>,
  reference: (round: number) => Promise<number>,
): Promise<{ median: Pair; pairs: Pair[] }> {
  const pairs: Pair[] = [];
  for (let round = 0; round < rounds; round++) {
    let m: number;
    let r: number;
    if (round % 2 === 0) {
      r = await reference(round);
      m = await measured(round);
    } else {
      m = await measured(round);
      r = await reference(round);
    }
    pairs.push({ ratio: m / r, measured: m, reference: r });
  }
  pairs.sort((a, b) => a.ratio - b.ratio);
  return { median: pairs[pairs.length >> 1], pairs };
}

export function formatLine(m: Measurement): string {
  return `${m.ok ? 'PASS' : 'FAIL'}  ${m.name}: ${Number.isFinite(m.value) ? m.value.toFixed(2) : m.value} ${m.unit} (target ${m.target})`;
}

/**
 * CPU time (user + system, seconds) of the calling thread alone, from /proc/thread-self/stat (Linux; node 20 has no
 * process.threadCpuUsage). A bench with threads reads each thread's share with it: on an unloaded machine the busiest
 * thread bounds the wall time, whatever else runs meanwhile. NaN where /proc is absent.
 */
export function threadCpuSeconds(): number {
  try {
    const stat = readFileSync('/proc/thread-self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return Number.NaN;
  }
}

/** The kernel's clock ticks per second for /proc times (USER_HZ: 100 on every Linux this runs on). */
const CLOCK_TICKS = 100;

/**
 * Starts a CPU profile of the calling thread (main or worker: each has its own inspector) and returns how to stop
 * it and write it to `file` (a .cpuprofile that Chrome's DevTools and `node --cpu-prof` tooling read). Lets a bench
 * profile its measured window only, without start-up.
 */
export async function startThreadProfile(file: string): Promise<() => Promise<void>> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 500 });
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  };
}
