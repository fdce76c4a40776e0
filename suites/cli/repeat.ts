// `npm run suites:repeat -- N [suites options]`: N full runs of `npx tsx suites` one after the other (each with
// its own random seed unless --seed is given, each in its own process, against the same kind of target), then a
// comparison of the per-check verdicts. The same verdict every time is the goal: a check that passes on one run
// and fails or skips on another depends on timing, not on the target. Exit 0 when every run passed with no
// skip and all verdicts agree; 1 otherwise; 2 for bad usage.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

interface RunSummary {
  index: number;
  exitCode: number;
  durationMs: number;
  seed?: number;
  verdicts: Map<string, string>;
  counts: Record<string, number>;
}

interface ResultsFile {
  run?: { seed?: number; durationMs?: number };
  checks?: Array<{ id: string; status: string; reason?: string; message?: string }>;
}

function runOnce(index: number, args: string[], reportDir: string): Promise<RunSummary> {
  const started = Date.now();
  return new Promise((resolvePromise) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'suites', 'index.ts'), ...args, '--report-dir', reportDir], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let tail = '';
    const keep = (b: Buffer) => {
      tail = (tail + b.toString('utf8')).slice(-4000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('close', (code) => {
      const verdicts = new Map<string, string>();
      const counts: Record<string, number> = { passed: 0, failed: 0, skipped: 0 };
      let seed: number | undefined;
      try {
        const results = JSON.parse(readFileSync(join(reportDir, 'results.json'), 'utf8')) as ResultsFile;
        seed = results.run?.seed;
        for (const c of results.checks ?? []) {
          verdicts.set(c.id, c.status);
          counts[c.status] = (counts[c.status] ?? 0) + 1;
          if (c.status !== 'passed') process.stdout.write(`  run ${index}: ${c.status} ${c.id}: ${(c.message ?? c.reason ?? '').split('\n')[0].slice(0, 300)}\n`);
        }
      } catch {
        process.stdout.write(`  run ${index}: no results.json (exit ${code}); output ends with:\n${tail}\n`);
      }
      resolvePromise({ index, exitCode: code ?? 1, durationMs: Date.now() - started, seed, verdicts, counts });
    });
  });
}

export async function repeat(argv: string[]): Promise<number> {
  const [countText, ...rest] = argv;
  const n = Number(countText);
  if (!Number.isInteger(n) || n < 1) {
    process.stderr.write('usage: npm run suites:repeat -- N [npx tsx suites options]\n');
    return 2;
  }
  if (rest.includes('--report-dir')) {
    process.stderr.write('error: suites:repeat chooses a report directory per run (printed); leave out --report-dir\n');
    return 2;
  }
  const base = mkdtempSync(join(tmpdir(), 'suites-repeat-'));
  process.stdout.write(`${n} runs of: npx tsx suites ${rest.join(' ')}\nreports under ${base}/run-<i>\n`);
  const runs: RunSummary[] = [];
  for (let i = 1; i <= n; i++) {
    const r = await runOnce(i, rest, join(base, `run-${i}`));
    runs.push(r);
    process.stdout.write(
      `run ${String(i).padStart(2)}: exit ${r.exitCode}  ${r.counts.passed} passed, ${r.counts.failed} failed, ${r.counts.skipped} skipped  ${(r.durationMs / 1000).toFixed(1)} s  (seed ${r.seed ?? '?'}, load average ${loadavg()[0].toFixed(1)})\n`,
    );
  }
  const ids = [...new Set(runs.flatMap((r) => [...r.verdicts.keys()]))].sort();
  const differing = ids.filter((id) => new Set(runs.map((r) => r.verdicts.get(id) ?? 'absent')).size > 1);
  const notPassed = ids.filter((id) => runs.some((r) => r.verdicts.get(id) !== 'passed'));
  process.stdout.write(`\n${ids.length} checks in ${n} runs: ${differing.length === 0 ? 'identical verdicts in every run' : `${differing.length} check(s) with differing verdicts`}\n`);
  for (const id of differing) process.stdout.write(`  ${id}: ${runs.map((r) => `${r.index}:${r.verdicts.get(id) ?? 'absent'}`).join(' ')}\n`);
  const durations = runs.map((r) => r.durationMs / 1000);
  process.stdout.write(`run time: min ${Math.min(...durations).toFixed(1)} s, max ${Math.max(...durations).toFixed(1)} s, mean ${(durations.reduce((a, b) => a + b, 0) / n).toFixed(1)} s\n`);
  const ok = differing.length === 0 && notPassed.length === 0 && runs.every((r) => r.exitCode === 0);
  process.stdout.write(ok ? 'repeat: PASS (every run passed every check, no skip)\n' : `repeat: FAIL (${notPassed.length} check(s) not passed in some run)\n`);
  return ok ? 0 : 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exit(await repeat(process.argv.slice(2)));
}
