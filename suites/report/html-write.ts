// Writes index.html into a report directory: after every run (from write.ts) and for `suites report`.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConformanceResults } from './results-schema.ts';
import { renderHtmlReport } from './html.ts';
import { specSectionTitles } from './html-sections.ts';

export const HTML_REPORT_FILE = 'index.html';

/** Renders one run or a matrix of runs and returns the file's path. */
export function writeHtmlReport(dir: string, runs: readonly ConformanceResults[]): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, HTML_REPORT_FILE);
  writeFileSync(path, renderHtmlReport(runs, { sectionTitles: specSectionTitles() }));
  return path;
}
