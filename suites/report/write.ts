// Writes the report files of a run into the report directory.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConformanceResults } from './results-schema.ts';
import { renderJunit } from './junit.ts';
import { writeHtmlReport } from './html-write.ts';

export function writeReports(dir: string, results: ConformanceResults): { junit: string; results: string; html: string } {
  mkdirSync(dir, { recursive: true });
  const files = { junit: join(dir, 'junit.xml'), results: join(dir, 'results.json') };
  writeFileSync(files.results, `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(files.junit, renderJunit(results));
  return { ...files, html: writeHtmlReport(dir, [results]) };
}
