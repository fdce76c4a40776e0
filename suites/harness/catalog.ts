// The checks of the suite files (suites/*.suite.ts), loaded without running them: for --list, selection,
// coverage, and to know which files the engine must hand to the test runner.
import { readdirSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { registeredChecks, setCurrentSuite, type CheckDefinition } from './check.ts';

export const SUITES_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SUITE_SUFFIX = '.suite.ts';

export interface SuiteFile {
  name: string;
  file: string;
}

export interface Catalog {
  suites: SuiteFile[];
  checks: CheckDefinition[];
}

export function suiteFilesIn(dir = SUITES_DIR): SuiteFile[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(SUITE_SUFFIX))
    .sort()
    .map((f) => ({ name: basename(f, SUITE_SUFFIX), file: join(dir, f) }));
}

export function suiteNameOf(file: string): string {
  return basename(file, SUITE_SUFFIX);
}

/** Imports each suite file once (sequentially, so every check knows its suite) and returns their checks. */
export async function loadCatalog(files: SuiteFile[] = suiteFilesIn()): Promise<Catalog> {
  for (const suite of files) {
    setCurrentSuite(suite.name);
    try {
      await import(pathToFileURL(suite.file).href);
    } catch (err) {
      throw new Error(`suite file ${suite.file} failed to load: ${(err as Error).message}`);
    }
  }
  const names = new Set(files.map((s) => s.name));
  return { suites: files, checks: registeredChecks().filter((c) => names.has(c.suite)) };
}
