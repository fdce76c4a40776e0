// Where a run's time and CPU go, measured where they are spent. node's test runner reports a suite file's
// checks in file order once earlier files are done, so the engine's own clock cannot tell when a check of a file
// running beside another really started; and a check's reported duration of a concurrent check counts from its
// turn, not from its start. So each check process notes when each of its checks really started and ended (wall
// clock) and, when it exits, its own CPU time and that of the processes it started and waited for (daemons
// under test, their shells), in one file per process that the engine reads.
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface CheckTime {
  id: string;
  /** Epoch milliseconds. */
  startMs: number;
  endMs: number;
}

export interface CpuTimes {
  /** This process (user + system), seconds. */
  self: number;
  /** Terminated, waited-for descendants (user + system), seconds. */
  children: number;
}

export interface ProcessTiming {
  pid: number;
  checks: CheckTime[];
  cpu: CpuTimes;
}

/** CPU seconds of this process and of its waited-for descendants: /proc/self/stat on Linux, else own usage only. */
export function cpuTimes(): CpuTimes {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // Fields after the ")" that closes the command name: state is field 3; utime..cstime are fields 14-17.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const tick = 100; // USER_HZ on Linux
    const n = (i: number) => Number(f[i - 3]) / tick;
    return { self: n(14) + n(15), children: n(16) + n(17) };
  } catch {
    const u = process.cpuUsage();
    return { self: (u.user + u.system) / 1e6, children: 0 };
  }
}

const checks: CheckTime[] = [];
let hooked: string | undefined;

/** Notes one check's wall-clock span; the first call hooks this process's exit to write its file. */
export function noteCheckTime(dir: string, time: CheckTime): void {
  checks.push(time);
  if (hooked) return;
  hooked = dir;
  process.on('exit', () => {
    try {
      mkdirSync(join(dir, 'timing'), { recursive: true });
      const record: ProcessTiming = { pid: process.pid, checks, cpu: cpuTimes() };
      writeFileSync(join(dir, 'timing', `${process.pid}.json`), JSON.stringify(record));
    } catch {
      // Timing is informative only.
    }
  });
}

/**
 * One check's duration, written as it ends (before its test reports), so that the engine's progress line for it
 * says the check's own time: a concurrent check's test reports only the wait for its outcome (0.0 s for one that
 * had finished), which disagreed with the end-of-run table.
 */
export function noteDuration(dir: string, id: string, ms: number): void {
  try {
    mkdirSync(join(dir, 'durations'), { recursive: true });
    writeFileSync(join(dir, 'durations', encodeURIComponent(id)), String(ms));
  } catch {
    // Informative only.
  }
}

export function readDuration(dir: string, id: string): number | undefined {
  try {
    const ms = Number(readFileSync(join(dir, 'durations', encodeURIComponent(id)), 'utf8'));
    return Number.isFinite(ms) ? ms : undefined;
  } catch {
    return undefined;
  }
}

/** Every check process's record of this run. */
export function readTimings(dir: string): ProcessTiming[] {
  const out: ProcessTiming[] = [];
  let names: string[] = [];
  try {
    names = readdirSync(join(dir, 'timing'));
  } catch {
    return out;
  }
  for (const name of names) {
    try {
      out.push(JSON.parse(readFileSync(join(dir, 'timing', name), 'utf8')) as ProcessTiming);
    } catch {
      // A process killed mid-write leaves nothing usable.
    }
  }
  return out;
}
