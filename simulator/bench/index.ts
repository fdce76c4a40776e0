// npm run bench: runs every simulator/bench/*.bench.ts module's run() in turn (new benches join by being there) and
// prints what each reports. Exit status 1 when a bench throws or reports a measurement that missed its target.
//
//   npm run bench [-- name-filter ...]      e.g. npm run bench -- api storage

import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';

interface Measurement {
  name: string;
  value: number;
  unit: string;
  target: string;
  ok: boolean;
}

const isMeasurement = (x: unknown): x is Measurement =>
  !!x && typeof x === 'object' && typeof (x as Measurement).name === 'string' && typeof (x as Measurement).ok === 'boolean';

export function benchFiles(dir = dirname(fileURLToPath(import.meta.url))): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.bench.ts'))
    .sort()
    .map((f) => join(dir, f));
}

export async function main(filters: string[] = process.argv.slice(2)): Promise<number> {
  const files = benchFiles().filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)));
  const misses: string[] = [];
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
      if (Array.isArray(out)) for (const m of out.filter(isMeasurement)) if (!m.ok) misses.push(`${name}: ${m.name}`);
    } catch (e) {
      misses.push(`${name}: threw ${(e as Error).stack ?? e}`);
      console.log(`   FAILED: ${(e as Error).message}`);
    }
    console.log(`   (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  }
  console.log(misses.length ? `\n${misses.length} target(s) missed:\n  ${misses.join('\n  ')}` : `\nall ${files.length} bench module(s) met their targets`);
  return misses.length ? 1 : 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.exitCode = await main();
}
