// The full conformance run against its embedded simulator, as a user types it (`npx tsx suites`): its wall time from
// the command's spawn and the CPU of all its processes by the kernel's accounting (bash's `times` for the children
// it waited for: npx, tsx, the command, every check process and the daemons they started), beside the figures the
// command prints itself at the end of every run ("CPU: ..." and "run time: ..."). Goals from the issue: 60 s of wall
// time and 70 CPU-s on 2 cores.
//
// BENCH_SUITES_ARGS: other arguments for the command (e.g. "--suite crud" for a quick try); BENCH_SUITES=0 skips.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { formatLine, type Measurement } from './measurement.ts';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const NPX = join(dirname(process.execPath), 'npx');

/** bash's `times`: its own user and system time, then its children's ("0m1.234s 0m0.567s" each). */
function childrenCpu(timesOutput: string): number {
  const lines = timesOutput.trim().split('\n').filter((l) => /\d+m[\d.]+s/.test(l));
  const last = lines[lines.length - 1] ?? '';
  return [...last.matchAll(/(\d+)m([\d.]+)s/g)].reduce((sum, m) => sum + Number(m[1]) * 60 + Number(m[2]), 0);
}

export async function run(log: (s: string) => void = console.log): Promise<Measurement[]> {
  if (process.env.BENCH_SUITES === '0') {
    log('BENCH_SUITES=0: skipped');
    return [];
  }
  const reports = mkdtempSync(join(tmpdir(), 'bench-suites-'));
  const extra = (process.env.BENCH_SUITES_ARGS ?? '').split(/\s+/).filter(Boolean);
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const command = [NPX, 'tsx', 'suites', '--report-dir', reports, ...extra].map(quote).join(' ');
  // The command's output to this process's stdout pipe; `times` (the children's CPU) to stderr, after it ended.
  const script = `${command}; rc=$?; times >&2; exit $rc`;
  const load0 = loadavg()[0];
  const t0 = performance.now();
  const child = spawn('bash', ['-c', script], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_OPTIONS: '' } });
  let out = '';
  let err = '';
  child.stdout.on('data', (b: Buffer) => (out = (out + b.toString()).slice(-20_000)));
  child.stderr.on('data', (b: Buffer) => (err = (err + b.toString()).slice(-20_000)));
  const code = await new Promise<number | null>((r) => child.on('exit', r));
  const wall = (performance.now() - t0) / 1000;
  rmSync(reports, { recursive: true, force: true });
  const cpu = childrenCpu(err);
  const own = /^CPU: ([\d.]+) s/m.exec(out)?.[1];
  const runTime = /^run time: ([\d.]+) s/m.exec(out)?.[1];
  const verdict = /\b(PASS|FAIL|INCOMPLETE)\b[^\n]*$/m.exec(out.split('\n').filter((l) => /verdict|PASS|FAIL/i.test(l)).slice(-1)[0] ?? '')?.[1];
  log(`npx tsx suites ${extra.join(' ')}: exit ${code}, ${wall.toFixed(1)} s from spawn, CPU ${cpu.toFixed(1)} s (kernel, all processes); the command's own lines: CPU ${own ?? '?'} s, run time ${runTime ?? '?'} s; load average ${load0.toFixed(1)} → ${loadavg()[0].toFixed(1)}`);
  if (own === undefined || runTime === undefined) log(`the command's last lines:\n${out.slice(-1500)}\n${err.slice(-500)}`);
  const label = extra.length ? `npx tsx suites ${extra.join(' ')}` : 'the full embedded run (npx tsx suites)';
  const results: Measurement[] = [
    { name: `${label}: wall time from the command's spawn (exit ${code}${verdict ? `, ${verdict}` : ''})`, value: wall, unit: 's', target: '<= 60', ok: wall <= 60 && own !== undefined },
    { name: `${label}: CPU of all its processes, by the kernel's accounting (the command's own line: ${own ?? '?'} s)`, value: cpu, unit: 'CPU-s', target: '<= 70', ok: cpu <= 70 && cpu > 0 },
  ];
  for (const m of results) log(formatLine(m));
  return results;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const results = await run();
  process.exitCode = results.every((m) => m.ok) ? 0 : 1;
}
