// Runs the selected checks against a target with node's test runner: one process per suite file, files in
// parallel up to the worker count. The engine launches the first phase's processes (they load their suite files
// while the target may still be starting), reads discovery, decides applicability, hands the run context to the
// processes, gathers their results and evidence, and sweeps the run's namespaces at the end.
import { spawn } from 'node:child_process';
import { setMaxListeners } from 'node:events';
import { existsSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { setPriority, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { run } from 'node:test';
import type { CheckDefinition } from './check.ts';
import { CATALOG_FILE, loadCatalog, suiteFilesIn, type Catalog, type SuiteFile } from './catalog.ts';
import { TargetClient } from './client.ts';
import type { TargetConnection } from './connection.ts';
import { firstUnmet, readDiscovery, type Discovery } from './discovery.ts';
import { readEvidence, type CheckEvidence } from './evidence.ts';
import { detectServiceAccounts, namespacePrefixFor, newRunId, settleNamespaces, sweepNamespaces } from './namespaces.ts';
import { busyScaled } from './progress.ts';
import { readTranscript, type TranscriptEntry } from './transcript.ts';
import { CONTEXT_ENV, type ReplaySpec, type RunContextFile } from './run-context.ts';
import { cpuTimes, readDuration, readTimings } from './timing.ts';
import { profileOf, runsCheck, type Profile } from './profile.ts';
import { plainNodeEntry, compileEntries, IMPORT_CALL, SUITES_BUILD, suitesBuildEntries, withoutTsx } from './compile.ts';

export type CheckStatus = 'passed' | 'failed' | 'skipped';

export interface CheckOutcome {
  id: string;
  suite: string;
  title?: string;
  rows: string[];
  status: CheckStatus;
  durationMs: number;
  /** Why it was skipped. */
  reason?: string;
  /** Why it failed (first line first). */
  message?: string;
  evidence?: CheckEvidence;
  /** Differential mode: every exchange of the check, normalised (harness/transcript.ts). */
  transcript?: TranscriptEntry[];
}

export interface Selection {
  /** Only the checks these profiles run (harness/profile.ts); all when absent. */
  profiles?: readonly Profile[];
  /** Leave out the checks that wait for the target's history window. */
  quick?: boolean;
  suites?: string[];
  grep?: RegExp;
  skip?: RegExp;
  replay?: ReplaySpec;
}

export interface EngineOptions extends Selection {
  /**
   * The target, or a promise of it while it is still starting (the embedded simulator): the check processes of
   * the first phase are launched before it is known, load their suite files meanwhile and wait for the run's
   * context (run-context.ts), which is written once the target's discovery has been read.
   */
  connection: TargetConnection | PromiseLike<TargetConnection>;
  vendor: string;
  seed: number;
  runs: number;
  workers: number;
  timeoutSeconds: number;
  /** The command line that re-runs this target, for replay lines in evidence. */
  replayCommand: string;
  signal?: AbortSignal;
  suiteFiles?: SuiteFile[];
  onCheckStart?(id: string): void;
  onCheckDone?(outcome: CheckOutcome): void;
  /** Called once the selection is known, with the number of checks that will report. */
  onPlan?(total: number): void;
  /** A line about the run itself (a wait between phases). */
  onNote?(text: string): void;
  /** Keep a transcript of every check's exchanges (differential mode). */
  transcripts?: boolean;
  /**
   * Against a target: the history-window checks run in the first phase, beside the others, and wait this long for
   * a revision to leave the target's history (instead of flooding it with writes in the solo phase).
   */
  historyWaitMs?: number;
  /**
   * The suite files compiled (`compileSuites`), run in check processes without tsx: ~0.5 CPU-second less per
   * process. Files missing from it (or all, when it is undefined) run from their sources.
   */
  compiled?: Promise<Record<string, string> | undefined>;
  /**
   * The target's controllers and nodes are still starting (an embedded simulator started with `clientsBehind`):
   * the checks for which `waits` is true wait in their processes until `ready` resolves; the others start at once.
   * `launched` is called once the first check processes are being started (after discovery was read).
   */
  clusterStarting?: { ready: Promise<void>; waits(check: CheckDefinition): boolean; launched?(): void };
  /**
   * The target makes every namespace's default service account (and its token): each check's new namespace waits
   * for them (run-context.ts). Undefined: the engine asks the target (namespaces.ts detectServiceAccounts).
   */
  serviceAccounts?: { tokens: boolean };
}

/**
 * The suite files compiled for check processes without tsx (harness/compile.ts), keyed by `<suite>.suite`; the
 * same build holds the command itself (`suites-cli`), which suites/index.ts runs at the next start.
 */
export async function compileSuites(): Promise<Record<string, string> | undefined> {
  // With its CommonJS form: the `npx tsx suites` command runs from it (suites/index.ts).
  const compiled = await compileEntries(SUITES_BUILD, suitesBuildEntries(), undefined, { commonJs: true });
  if (compiled && !existsSync(join(dirname(compiled['suites-cli']), CATALOG_FILE))) writeBuildCatalog(compiled);
  return compiled;
}

/**
 * The build's catalog file (catalog.ts), written once per build by a process of its own at low priority, in the
 * background: the compiled command reads it instead of loading every suite file. Plain node, no run context (its
 * suite files only record their checks). Never throws: without it the compiled command loads the suite files.
 */
function writeBuildCatalog(compiled: Record<string, string>): void {
  try {
    const script = `const m = await ${IMPORT_CALL}${JSON.stringify(pathToFileURL(compiled['suites-cli']).href)}); await m.writeCatalogFile(${JSON.stringify(compiled)});`;
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '' };
    delete env[CONTEXT_ENV];
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { detached: true, stdio: 'ignore', env });
    child.on('error', () => {});
    if (child.pid) setPriority(child.pid, 19);
    child.unref();
  } catch {
    // Only a quicker start is lost.
  }
}

export interface EngineResult {
  runId: string;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  discovery: Discovery;
  checks: CheckOutcome[];
  interrupted: boolean;
  /** Namespaces of this run still present at the end and deleted by the sweep. */
  swept: string[];
  /**
   * Per suite file: when (ms after the run's start) its first check started and its last one reported. With
   * --workers files running side by side, these spans show where the run's wall time goes.
   */
  suiteSpans?: Record<string, { startMs: number; endMs: number; checks: number }>;
  /**
   * CPU seconds of the run (user + system): this process (the engine, and the embedded simulator when there is
   * one), every check process with what it started (daemons under test), and per suite file.
   */
  cpu?: { total: number; main: number; checkProcesses: number; bySuite: Record<string, number> };
}

export class SelectionError extends Error {
  override name = 'SelectionError';
}

/**
 * Applies --profile, --quick, --suite, --grep, --skip and --replay. grep/skip match the check id or any row id it
 * covers.
 */
export function selectChecks(catalog: Catalog, selection: Selection): CheckDefinition[] {
  const known = new Set(catalog.suites.map((s) => s.name));
  for (const name of selection.suites ?? []) {
    if (!known.has(name)) throw new SelectionError(`unknown suite "${name}" (suites: ${[...known].join(', ')})`);
  }
  if (selection.replay) {
    const target = catalog.checks.find((c) => c.id === selection.replay!.checkId);
    if (!target) throw new SelectionError(`--replay names unknown check "${selection.replay.checkId}"`);
    return [target];
  }
  const matches = (re: RegExp, c: CheckDefinition) => re.test(c.id) || c.rows.some((r) => re.test(r));
  return catalog.checks.filter(
    (c) =>
      (!selection.profiles || runsCheck(selection.profiles, profileOf(c))) &&
      !(selection.quick && c.historyWindow) &&
      (!selection.suites?.length || selection.suites.includes(c.suite)) &&
      (!selection.grep || matches(selection.grep, c)) &&
      !(selection.skip && matches(selection.skip, c)),
  );
}

// One run at a time per process: the run context reaches the test processes through the environment.
let queue: Promise<unknown> = Promise.resolve();

export function runChecks(options: EngineOptions): Promise<EngineResult> {
  const next = queue.then(() => runChecksNow(options));
  queue = next.catch(() => undefined);
  return next;
}

interface FailureData {
  message?: string;
  failureType?: string;
  cause?: { message?: string } | string;
}

function failureMessage(error: FailureData | undefined): string {
  if (!error) return 'failed';
  const cause = error.cause;
  if (cause && typeof cause === 'object' && typeof cause.message === 'string' && cause.message) return cause.message;
  if (typeof cause === 'string' && cause) return cause;
  return error.message || 'failed without a message';
}

/**
 * Rough relative run times of the suites (wall seconds on a loaded 2-core machine, from the end-of-run table):
 * daemon-controllers runs 20 checks with simulators and daemons of their own (35-95 s), daemon-options some 70
 * daemon processes (13-45 s), defaults and subresources load the target most, lifecycle and workloads wait for
 * pods. Unknown suites count as average. Only the order of the files depends on this: the longest first, so
 * that with N workers the slowest file does not start last and hold up the end.
 */
const SUITE_WEIGHTS: Record<string, number> = {
  // Its one check waits for the next minute of a "* * * * *" schedule (up to 60 s), idle: it starts first.
  'upstream-cronjobs': 70,
  'daemon-controllers': 60,
  'daemon-options': 50,
  lifecycle: 30,
  defaults: 25,
  subresources: 20,
  workloads: 10,
  chunking: 7,
  watch: 6,
  patch: 5,
  'namespace-lifecycle': 4,
  // The upstream conformance files wait for controllers (2-12 s a check on an idle machine).
  'upstream-core': 15,
  'upstream-daemonsets': 12,
  'upstream-statefulsets': 12,
  'upstream-api': 10,
  'upstream-deployments': 8,
  'upstream-gc': 6,
  'upstream-replication': 6,
};

function suiteWeight(name: string): number {
  return SUITE_WEIGHTS[name] ?? 3;
}

async function runChecksNow(options: EngineOptions): Promise<EngineResult> {
  const started = Date.now();
  const cpuAtStart = cpuTimes();
  const runId = newRunId();
  // What to run needs only the catalog: the first phase's check processes start loading their suite files (about
  // 0.4 s of a process each) while the target is still starting and its discovery is read, not after.
  const catalog = await loadCatalog(options.suiteFiles ?? suiteFilesIn());
  const selected = selectChecks(catalog, options);
  options.onPlan?.(selected.length);
  const workDir = mkdtempSync(join(tmpdir(), `conformance-${runId}-`));
  const evidenceDir = join(workDir, 'evidence');
  const namespacePrefix = namespacePrefixFor(runId);
  const compiled = await options.compiled;
  const suiteFilesOf = (checks: CheckDefinition[]) =>
    catalog.suites
      .filter((s) => checks.some((c) => c.suite === s.name))
      // Longest suites first, so that with N workers the slowest file does not start last and hold up the end.
      .sort((a, b) => suiteWeight(b.name) - suiteWeight(a.name))
      .map((s) => {
        const built = compiled?.[`${s.name}.suite`];
        return { ...s, file: built ? plainNodeEntry(built) : s.file };
      });
  const previousEnv = process.env[CONTEXT_ENV];
  const firstPhaseContext = join(workDir, 'context-0.json');
  // Stops the early processes when the run ends before their context is written (the target never came up).
  const early = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, early.signal]) : early.signal;
  // One abort listener per suite file and check of node's test runner: no leak, so no MaxListenersExceededWarning.
  setMaxListeners(0, signal, early.signal);
  // A history-window check that waits (against a target) runs beside the others; one that floods runs solo.
  const isSolo = (c: CheckDefinition) => c.solo && !(c.historyWindow && options.historyWaitMs);
  const ordinary = selected.filter((c) => !isSolo(c));
  const prelaunched = ordinary.length > 0 ? launchPhase(suiteFilesOf(ordinary), firstPhaseContext, options.workers, signal) : undefined;

  let connection: TargetConnection;
  let client: TargetClient;
  let discovery: Discovery;
  try {
    connection = await options.connection;
    client = new TargetClient({ connection, vendor: options.vendor });
    discovery = await readDiscovery(client);
  } catch (err) {
    early.abort();
    prelaunched?.restore();
    if (previousEnv === undefined) delete process.env[CONTEXT_ENV];
    else process.env[CONTEXT_ENV] = previousEnv;
    rmSync(workDir, { recursive: true, force: true });
    throw err;
  }

  const outcomes = new Map<string, CheckOutcome>();
  const done = (outcome: CheckOutcome) => {
    outcomes.set(outcome.id, outcome);
    options.onCheckDone?.(outcome);
  };
  const runnable: CheckDefinition[] = [];
  for (const c of selected) {
    const reason = firstUnmet(discovery, c.requires ?? []);
    if (reason) done({ id: c.id, suite: c.suite, title: c.title, rows: c.rows, status: 'skipped', durationMs: 0, reason });
    else runnable.push(c);
  }

  const byId = new Map(runnable.map((c) => [c.id, c]));
  const fileErrors = new Map<string, string>();
  // Two phases: every ordinary check, then the solo ones (they flood the target) with nothing else running. The
  // first is kept when its processes were launched early, even with nothing left to run: they wait for its context.
  const phases = [runnable.filter((c) => !isSolo(c)), runnable.filter(isSolo)].filter((p, i) => p.length > 0 || (i === 0 && prelaunched));
  const suiteSpans: EngineResult['suiteSpans'] = {};
  const span = (suite: string, done: boolean) => {
    const t = Date.now() - started;
    const sp = (suiteSpans[suite] ??= { startMs: t, endMs: t, checks: 0 });
    sp.endMs = Math.max(sp.endMs, t);
    if (done) sp.checks++;
  };
  // The file a check process waits for before a check that needs the cluster's controllers and nodes.
  const clusterReady = options.clusterStarting && { file: join(workDir, 'cluster-ready'), checks: runnable.filter((c) => options.clusterStarting!.waits(c)).map((c) => c.id) };
  options.clusterStarting?.ready.then(
    () => {
      try {
        writeFileSync(clusterReady!.file, '');
      } catch {
        // The run is over (its directory gone).
      }
    },
    () => {}, // the caller stops the run
  );
  const serviceAccounts = options.serviceAccounts ?? (await detectServiceAccounts(client));
  try {
    for (const [index, phase] of phases.entries()) {
      if (options.signal?.aborted) break;
      const solo = index > 0 || (phase[0] !== undefined && isSolo(phase[0]));
      if (solo) {
        // The solo checks judge what a quiet target does with their flood of writes: first let the target finish
        // deleting the ordinary checks' namespaces (bounded; on a busy machine that backlog took most of its time).
        const settled = await settleNamespaces(client, namespacePrefix, busyScaled(30_000));
        options.onNote?.(`before the solo checks: ${settled.terminating} namespace(s) of this run were still being deleted; waited ${(settled.waitedMs / 1000).toFixed(1)} s`);
      }
      const context: RunContextFile = {
        runId,
        namespacePrefix,
        connection,
        vendor: options.vendor,
        discovery,
        seed: options.seed,
        runs: options.runs,
        timeoutMs: options.timeoutSeconds * 1000,
        selected: phase.map((c) => c.id),
        replay: options.replay,
        evidenceDir,
        replayCommand: options.replayCommand,
        transcripts: options.transcripts,
        historyWaitMs: options.historyWaitMs,
        serviceAccounts,
        clusterReady,
      };
      const contextPath = solo ? join(workDir, 'context-solo.json') : firstPhaseContext;
      // It holds the credentials of the target (tokens, client keys): readable by this user only. Written beside
      // and renamed into place: an early process waiting for it never reads half of it.
      writeFileSync(`${contextPath}.part`, JSON.stringify(context), { mode: 0o600 });
      renameSync(`${contextPath}.part`, contextPath);
      const launched =
        contextPath === firstPhaseContext && prelaunched ? prelaunched : launchPhase(suiteFilesOf(phase), contextPath, options.workers, options.signal);
      if (!launched) continue;
      // The run's discovery has been read: an embedded target's daemon and nodes may start now.
      options.clusterStarting?.launched?.();
      try {
        await readEvents(launched.stream, options, byId, evidenceDir, fileErrors, done, span);
      } finally {
        launched.restore();
      }
    }
  } catch (err) {
    if (!options.signal?.aborted) throw err;
  } finally {
    early.abort(); // nothing is left of them by now; a phase that threw leaves none behind either
    if (previousEnv === undefined) delete process.env[CONTEXT_ENV];
    else process.env[CONTEXT_ENV] = previousEnv;
  }
  const interrupted = options.signal?.aborted ?? false;

  for (const c of runnable) {
    if (outcomes.has(c.id)) continue;
    const fileError = [...fileErrors.entries()].find(([file]) => new RegExp(`(^|/)${c.suite}\\.suite\\.m?[jt]s$`).test(file))?.[1];
    const message = interrupted ? 'not run: the run was interrupted' : `did not report a result${fileError ? `: ${fileError}` : ''}`;
    done({
      id: c.id,
      suite: c.suite,
      title: c.title,
      rows: c.rows,
      status: interrupted ? 'skipped' : 'failed',
      durationMs: 0,
      ...(interrupted ? { reason: message } : { message }),
    });
  }

  if (options.transcripts) {
    for (const o of outcomes.values()) o.transcript = readTranscript(evidenceDir, o.id);
  }

  // The check processes' own clocks and CPU (harness/timing.ts): real spans per suite file and per check (a
  // concurrent check's reported duration counts from its turn only), CPU per suite file.
  const timings = readTimings(evidenceDir);
  const bySuite: Record<string, number> = {};
  const realSpans: NonNullable<EngineResult['suiteSpans']> = {};
  for (const t of timings) {
    // The engine's catalog knows each check's suite (a check process does not name its own).
    const suiteOf = (id: string) => byId.get(id)?.suite ?? 'unknown';
    const first = t.checks[0];
    if (first) bySuite[suiteOf(first.id)] = (bySuite[suiteOf(first.id)] ?? 0) + t.cpu.self + t.cpu.children;
    for (const c of t.checks) {
      const o = outcomes.get(c.id);
      if (o && o.status !== 'skipped') o.durationMs = c.endMs - c.startMs;
      const sp = (realSpans[suiteOf(c.id)] ??= { startMs: c.startMs - started, endMs: c.endMs - started, checks: 0 });
      sp.startMs = Math.min(sp.startMs, c.startMs - started);
      sp.endMs = Math.max(sp.endMs, c.endMs - started);
      sp.checks++;
    }
  }
  for (const [suite, sp] of Object.entries(realSpans)) suiteSpans[suite] = sp;
  const cpuAtEnd = cpuTimes();
  const main = cpuAtEnd.self - cpuAtStart.self;
  const checkProcesses = cpuAtEnd.children - cpuAtStart.children;

  let swept: string[] = [];
  try {
    swept = await sweepNamespaces(client, namespacePrefix);
  } catch {
    // The target went away; nothing more can be cleaned.
  }
  rmSync(workDir, { recursive: true, force: true });
  const finished = Date.now();
  return {
    runId,
    startedAt: new Date(started).toISOString(),
    finishedAt: new Date(finished).toISOString(),
    durationMs: finished - started,
    discovery,
    checks: selected.map((c) => outcomes.get(c.id)!),
    interrupted,
    swept,
    suiteSpans,
    cpu: { total: main + checkProcesses, main, checkProcesses, bySuite },
  };
}

/**
 * Starts one run of node's test runner over the given suite files, whose processes read the run's context from
 * `contextPath` (they wait for it: run-context.ts). `restore` puts back what the launch changed of this process
 * (its node options) once the run's events have been read.
 */
function launchPhase(
  suiteFiles: SuiteFile[],
  contextPath: string,
  workers: number,
  signal: AbortSignal | undefined,
): { stream: ReturnType<typeof run>; restore(): void } | undefined {
  if (suiteFiles.length === 0) return undefined;
  process.env[CONTEXT_ENV] = contextPath;
  // Inside a test file (the harness's own tests) node refuses a nested run() when it sees
  // NODE_TEST_CONTEXT; the check processes get their own value from run() anyway, so hide it
  // only for the synchronous call.
  const testContext = process.env.NODE_TEST_CONTEXT;
  delete process.env.NODE_TEST_CONTEXT;
  // node 20's runner starts each file's process with this process's node options (tsx's loader among them), read
  // when it starts the process: compiled files need no loader, so it is left out while this phase runs.
  const execArgv = process.execArgv;
  const compiledFiles = suiteFiles.every((s) => /\.m?js$/.test(s.file));
  if (compiledFiles) process.execArgv = withoutTsx(execArgv);
  try {
    const stream = run({ files: suiteFiles.map((s) => s.file), concurrency: Math.max(1, workers), signal });
    return { stream, restore: () => void (process.execArgv = execArgv) };
  } catch (err) {
    process.execArgv = execArgv;
    throw err;
  } finally {
    if (testContext !== undefined) process.env.NODE_TEST_CONTEXT = testContext;
  }
}

async function readEvents(
  stream: ReturnType<typeof run>,
  options: EngineOptions,
  byId: Map<string, CheckDefinition>,
  evidenceDir: string,
  fileErrors: Map<string, string>,
  done: (outcome: CheckOutcome) => void,
  span: (suite: string, done: boolean) => void,
): Promise<void> {
  for await (const event of stream as AsyncIterable<{ type: string; data: Record<string, unknown> }>) {
    const data = event.data;
    if (data?.nesting !== 0 || typeof data.name !== 'string') continue;
    const definition = byId.get(data.name);
    if (event.type === 'test:start' && definition) {
      span(definition.suite, false);
      options.onCheckStart?.(definition.id);
    }
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    if (definition) span(definition.suite, true);
    const details = (data.details ?? {}) as { duration_ms?: number; error?: FailureData };
    if (!definition) {
      // A failure outside any check: usually a suite file that failed to load in its process.
      if (event.type === 'test:fail') fileErrors.set(String(data.file ?? data.name), failureMessage(details.error));
      continue;
    }
    const base = {
      id: definition.id,
      suite: definition.suite,
      title: definition.title,
      rows: definition.rows,
      durationMs: readDuration(evidenceDir, definition.id) ?? Math.round(details.duration_ms ?? 0),
    };
    if (event.type === 'test:pass' && data.skip !== undefined && data.skip !== false) {
      done({ ...base, status: 'skipped', reason: typeof data.skip === 'string' ? data.skip : 'skipped by the check' });
    } else if (event.type === 'test:pass') {
      done({ ...base, status: 'passed' });
    } else {
      const evidence = readEvidence(evidenceDir, definition.id);
      done({ ...base, status: 'failed', message: evidence?.message ?? failureMessage(details.error), evidence });
    }
  }
}
