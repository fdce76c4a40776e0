// Starting the controller daemon under test as a process (through the shell, since --daemon-cmd is a command
// line such as "npx tsx simulator/controllers"), reading its output, waiting for its /configz, stopping it.
// Each daemon runs in its own process group so that wrappers (npx, shells) and the daemon stop together.

import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * The characters a shell word may hold unquoted, as the inside of a regular expression's character class (its "-"
 * last, so that it stays a character and what is put before the class's end is not taken into a range).
 */
const SHELL_SAFE = 'A-Za-z0-9_./:=,@%+-';
const SAFE_WORD = new RegExp(`^[${SHELL_SAFE}]+$`);
const UNSAFE_CHAR = new RegExp(`[^${SHELL_SAFE}]`, 'g');

/**
 * A command line without shell syntax, which `exec` may prefix: a program (no VAR=value before it) and its words, of
 * safe characters and the backslashes of shellEscape.
 */
const SIMPLE_COMMAND = new RegExp(`^[${SHELL_SAFE.replace('=', '')}]+( +[\\\\${SHELL_SAFE}]+)*$`);

/** One word for the shell: as it is when safe, else in single quotes. */
export const shellQuote = (arg: string) => (SAFE_WORD.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`);

/** One word for the shell with every unsafe character backslash-escaped (a command line that stays SIMPLE_COMMAND). */
export const shellEscape = (word: string) => word.replace(UNSAFE_CHAR, (c) => `\\${c}`);

export class DaemonProcess {
  private out = '';
  private err = '';
  private readonly child: ChildProcess;
  readonly exited: Promise<Exit>;
  private exitValue: Exit | undefined;

  constructor(command: string, args: readonly string[], cwd: string) {
    const line = `${command} ${args.map(shellQuote).join(' ')}`;
    // A plain command line is exec'd by the shell, so that the daemon itself is this process's child: the run's CPU
    // figure counts a child once it has been waited for, and a daemon left under the shell (dash does not exec the
    // last command) was reparented when its group was stopped, its CPU seen nowhere (25-30 CPU-s of a full run).
    this.child = spawn(SIMPLE_COMMAND.test(command) ? `exec ${line}` : line, { shell: true, cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout!.on('data', (b: Buffer) => (this.out += b.toString('utf8')));
    this.child.stderr!.on('data', (b: Buffer) => (this.err += b.toString('utf8')));
    this.exited = new Promise((resolve) => {
      this.child.on('error', (e) => {
        this.err += `\nspawn failed: ${e.message}`;
        resolve((this.exitValue = { code: -1, signal: null }));
      });
      this.child.on('close', (code, signal) => resolve((this.exitValue = { code, signal })));
    });
  }

  get stdout(): string {
    return this.out;
  }

  get stderr(): string {
    return this.err;
  }

  get exit(): Exit | undefined {
    return this.exitValue;
  }

  /** The process (and process group) id; undefined when the spawn failed. */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** SIGTERM to the whole process group, SIGKILL if it has not gone after a grace period. */
  async stop(graceMs = 5_000): Promise<Exit> {
    if (this.exitValue) return this.exitValue;
    const kill = (sig: NodeJS.Signals) => {
      try {
        if (this.child.pid) process.kill(-this.child.pid, sig);
      } catch {
        // Already gone.
      }
    };
    kill('SIGTERM');
    const timer = setTimeout(() => kill('SIGKILL'), graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * How long the processes of group `pgid` waited for a CPU while runnable (the most of any member's main thread), in
 * ms, from Linux's /proc/<pid>/schedstat; 0 where that is not available. A daemon on a machine whose cores are
 * busy with other work waits for its turn rather than working; time limits on it leave that wait out.
 */
export function runQueueWaitMs(pgid: number | undefined): number {
  if (!pgid) return 0;
  let most = 0;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return 0;
  }
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
      // Fields after the command name (in parentheses, which may hold spaces): state ppid pgrp ...
      const pgrp = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
      if (pgrp !== pgid) continue;
      const waitNs = Number(readFileSync(`/proc/${e}/schedstat`, 'utf8').split(' ')[1]);
      if (Number.isFinite(waitNs)) most = Math.max(most, waitNs / 1e6);
    } catch {
      // Gone meanwhile, or not readable.
    }
  }
  return most;
}

/**
 * A time limit judged on the time a process group could work: `limitMs` of wall time minus its wait for a CPU
 * (runQueueWaitMs), and never more than `hardCapFactor` times `limitMs` of wall time. The same daemon thus gets
 * the same verdict on an idle machine and on one whose cores other runs keep busy.
 */
export class WorkClock {
  private readonly started = performance.now();

  constructor(
    private readonly pgid: () => number | undefined,
    private readonly limitMs: number,
    private readonly hardCapFactor = 5,
  ) {}

  get wallMs(): number {
    return performance.now() - this.started;
  }

  /** Whether the limit has passed (reads /proc only once the wall time alone has passed it). */
  expired(): boolean {
    const wall = this.wallMs;
    if (wall < this.limitMs) return false;
    if (wall >= this.limitMs * this.hardCapFactor) return true;
    return wall - runQueueWaitMs(this.pgid()) >= this.limitMs;
  }
}

/** Runs the command to completion (or kills it after timeoutMs of work time: WorkClock). */
export async function runToExit(
  command: string,
  args: readonly string[],
  cwd: string,
  timeoutMs: number,
): Promise<Exit & { stdout: string; stderr: string; timedOut: boolean }> {
  const p = new DaemonProcess(command, args, cwd);
  let timedOut = false;
  const clock = new WorkClock(() => p.pid, timeoutMs);
  const timer = setInterval(() => {
    if (!clock.expired()) return;
    timedOut = true;
    clearInterval(timer);
    void p.stop();
  }, 250);
  const exit = await p.exited;
  clearInterval(timer);
  return { ...exit, stdout: p.stdout, stderr: p.stderr, timedOut };
}

export type ConfigzOutcome = { kind: 'serving'; configz: Record<string, unknown> } | { kind: 'exited'; exit: Exit } | { kind: 'timeout' };

/**
 * Polls the daemon's /configz until it serves, the process exits or the time is up (`timeoutMs` of work time:
 * WorkClock). `isOurs` tells this daemon's
 * /configz from another's: a port found free a moment ago may have been taken by a daemon of another check (the
 * suites run side by side); then this one fails to bind and exits, and the caller tries another port.
 */
export async function waitForConfigz(
  p: DaemonProcess,
  host: string,
  port: number,
  timeoutMs: number,
  isOurs?: (configz: Record<string, unknown>) => boolean,
): Promise<ConfigzOutcome> {
  const clock = new WorkClock(() => p.pid, timeoutMs);
  while (!clock.expired()) {
    if (p.exit) return { kind: 'exited', exit: p.exit };
    try {
      const res = await fetch(`http://${host}:${port}/configz`, { signal: AbortSignal.timeout(2_000) });
      if (res.status === 200) {
        const configz = (await res.json()) as Record<string, unknown>;
        if (!isOurs || isOurs(configz)) return { kind: 'serving', configz };
      } else await res.body?.cancel();
    } catch {
      // Not listening yet.
    }
    const exit = await Promise.race([p.exited, new Promise<undefined>((r) => setTimeout(() => r(undefined), 100))]);
    if (exit) return { kind: 'exited', exit };
  }
  return { kind: 'timeout' };
}

/** A TCP port that was free a moment ago on the loopback interface. */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, host, () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

/** Whether a port can be listened on (e.g. the daemon's default 10252). */
export function portIsFree(port: number, host = '0.0.0.0'): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, host, () => srv.close(() => resolve(true)));
  });
}

/** Runs tasks with at most `limit` at a time, keeping their order in the result. */
export async function pool<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return out;
}
