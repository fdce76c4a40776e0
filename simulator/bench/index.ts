// npm run bench: runs every simulator/bench/*.bench.ts module's run() in turn (new benches join by being there),
// prints what each reports, then one table of every figure with its goal (report.ts), written to
// reports/bench.json and drawn in reports/bench.html. Exit status 1 when a bench throws or reports a measurement
// that missed its target.
//
//   npm run bench [-- name-filter ...]      e.g. npm run bench -- api storage

import { readdirSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';

import { isMeasurement } from './measurement.ts';
import { table, writeReport, type BenchReport } from './report.ts';

const REPORTS = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'reports');

export function benchFiles(dir = dirname(fileURLToPath(import.meta.url))): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.bench.ts'))
    .sort()
    .map((f) => join(dir, f));
}

export async function main(filters: string[] = process.argv.slice(2)): Promise<number> {
  // Filters match the file's name only (a worktree's path such as /work/wt-scale would otherwise match every file).
  const files = benchFiles().filter((f) => filters.length === 0 || filters.some((x) => basename(f).includes(x)));
  const misses: string[] = [];
  const report: BenchReport = {
    startedAt: new Date().toISOString(),
    machine: { cpus: cpus().length, node: process.version, platform: process.platform },
    load: { start: loadavg(), end: [] },
    rows: [],
    errors: [],
  };
  for (const file of files) {
    const name = file.split('/').pop()!.replace(/\.bench\.ts$/, '');
    console.log(`\n== ${name}`);
    const t0 = performance.now();
    try {
      const mod = (await import(pathToFileURL(file).href)) as { run?: (log?: (s: string) => void) => Promise<unknown> };
      if (typeof mod.run !== 'function') {
        console.log(`   (no run() exported: skipped)`);
        continue;
      }
      const out = await mod.run((s) => console.log(`   ${s}`));
      if (Array.isArray(out))
        for (const m of out.filter(isMeasurement)) {
          report.rows.push({ bench: name, ...m });
          if (!m.ok) misses.push(`${name}: ${m.name}`);
        }
    } catch (e) {
      misses.push(`${name}: threw ${(e as Error).stack ?? e}`);
      report.errors.push({ bench: name, message: (e as Error).message });
      console.log(`   FAILED: ${(e as Error).message}`);
    }
    console.log(`   (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  }
  report.load!.end = loadavg();
  console.log(`\n${table(report)}`);
  console.log(`\nload average (1, 5, 15 min): ${report.load!.start.map((x) => x.toFixed(1)).join(' ')} at the start, ${report.load!.end.map((x) => x.toFixed(1)).join(' ')} at the end`);
  // BENCH_REPORT names the files (npm run bench:scale writes bench-scale.*, leaving the full table's files alone).
  const base = process.env.BENCH_REPORT ?? 'bench';
  writeReport(report, join(REPORTS, `${base}.json`), join(REPORTS, `${base}.html`));
  console.log(`\nwritten: reports/${base}.json, reports/${base}.html`);
  console.log(misses.length ? `\n${misses.length} target(s) missed:\n  ${misses.join('\n  ')}` : `\nall ${files.length} bench module(s) met their targets`);
  return misses.length ? 1 : 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.exitCode = await main();
}
