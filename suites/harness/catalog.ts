// The checks of the suite files (suites/*.suite.ts), loaded without running them: for --list, selection,
// coverage, and to know which files the engine must hand to the test runner.
import { readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { registeredChecks, setCurrentSuite, type CheckDefinition } from './check.ts';
import { compiledSuiteFile, loadCompiledSuite } from './compile.ts';

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

/**
 * Imports each suite file once (sequentially, so every check knows its suite) and returns their checks. Under the
 * compiled command (suites/index.ts), its build's catalog file when there is one (below), else the compiled suite
 * files of its build.
 */
export async function loadCatalog(files: SuiteFile[] = suiteFilesIn()): Promise<Catalog> {
  const built = builtCatalog(files);
  if (built) return built;
  for (const suite of files) {
    setCurrentSuite(suite.name);
    try {
      if (!(await loadCompiledSuite(suite.name))) await import(pathToFileURL(suite.file).href);
    } catch (err) {
      throw new Error(`suite file ${suite.file} failed to load: ${(err as Error).message}`);
    }
  }
  const names = new Set(files.map((s) => s.name));
  return { suites: files, checks: registeredChecks().filter((c) => names.has(c.suite)) };
}

/** The catalog file of a build (beside its compiled suite files): every check's definition but its function. */
export const CATALOG_FILE = 'catalog.json';

/** A check of the build's catalog runs in a check process (from its compiled suite file), never here. */
const notInThisProcess = async () => {
  throw new Error('this check definition comes from the catalog file of a build: it runs in a check process');
};

/**
 * Under the compiled command: the checks as the build's catalog file lists them (written once per build, by a
 * process that loaded its compiled suite files: harness/compile.ts writeBuildCatalog), so that the command does not
 * load every suite file before its first check; undefined when there is none.
 */
function builtCatalog(files: SuiteFile[]): Catalog | undefined {
  const first = files.length > 0 ? compiledSuiteFile(files[0].name) : undefined;
  if (!first) return undefined;
  try {
    const checks = JSON.parse(readFileSync(join(dirname(first), CATALOG_FILE), 'utf8')) as Array<Omit<CheckDefinition, 'fn'>>;
    const names = new Set(files.map((s) => s.name));
    if (!files.every((s) => compiledSuiteFile(s.name) && dirname(compiledSuiteFile(s.name)!) === dirname(first))) return undefined;
    return { suites: files, checks: checks.filter((c) => names.has(c.suite)).map((c) => ({ ...c, fn: notInThisProcess })) };
  } catch {
    return undefined;
  }
}

/**
 * Writes the catalog file of a build: its compiled suite files loaded here (this process runs no check), each
 * check's definition but its function. Run in a process of its own started by engine.ts (compileSuites) once per
 * build, through the build's own command module (suites-cli), so that the definitions register with the build's harness.
 */
export async function writeCatalogFile(compiled: Record<string, string>): Promise<void> {
  const files = suiteFilesIn().map((s) => ({ name: s.name, file: compiled[`${s.name}.suite`] ?? s.file }));
  if (!files.every((s) => s.file.endsWith('.js'))) throw new Error('not every suite file is in the build');
  const catalog = await loadCatalog(files);
  const dir = dirname(compiled[`${files[0].name}.suite`]);
  const tmp = join(dir, `${CATALOG_FILE}.${process.pid}`);
  writeFileSync(tmp, JSON.stringify(catalog.checks.map(({ fn: _fn, ...definition }) => definition)));
  renameSync(tmp, join(dir, CATALOG_FILE));
}
