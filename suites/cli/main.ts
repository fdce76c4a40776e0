// `npx tsx suites`: resolves the target (a URL, a kubeconfig, or an embedded simulator), runs the selected
// checks of the run's profiles, writes the reports and returns the exit status of its verdict: 0 PASS, 1 FAIL,
// 3 INCOMPLETE (rows not verified), 2 bad usage or an unreachable target (always a one-line reason, never a stack
// trace).
import { setMaxListeners } from 'node:events';
import { inScope, readUpstreamMap, renderUpstreamTable } from '../harness/upstream-map.ts';
import { loadSpecTables } from '../../spec-tables/index.ts';
import { HELP, UsageError, parseCliArgs, type CliOptions } from './args.ts';
import { readKubeconfig } from './kubeconfig.ts';
import { readExpectedFailures, type ExpectedFailure } from './expected-failures.ts';
import { Progress, type ProgressStream } from './progress.ts';
import { DAEMON_BUILD_ENV, DAEMON_CMD_ENV } from './daemon-command.ts';
import { buildDaemon } from '../daemon/daemon-build.ts';
import { normaliseTargetUrl, type TargetConnection } from '../harness/connection.ts';
import { TargetClient, TransportError, type RawResponse } from '../harness/client.ts';
import { loadCatalog } from '../harness/catalog.ts';
import { compileSuites, runChecks, selectChecks, SelectionError, type CheckOutcome, type EngineResult } from '../harness/engine.ts';
import { compareRuns, renderDivergences, type Divergence } from '../harness/differential.ts';
import { buildResults } from '../report/results.ts';
import { writeReports } from '../report/write.ts';
import { renderSummary } from '../report/console.ts';
import { profileLabel, profileOf, runProfiles, runsCheck } from '../harness/profile.ts';
import { HISTORY_WAIT_MS } from '../harness/list-watch.ts';
import { reportCommand } from './report.ts';
import type { RunningSimulator } from '../../simulator/cluster.ts';
import { COMMAND } from './command-name.ts';

// For the catalog file of a build of this command (harness/engine.ts compileSuites starts a process that loads it).
export { writeCatalogFile } from '../harness/catalog.ts';

export interface CliIo {
  stdout: ProgressStream;
  stderr: ProgressStream;
  /** Ctrl-C handling; tests pass their own signal. */
  signal?: AbortSignal;
}

export const EXIT_PASS = 0;
export const EXIT_FAIL = 1;
export const EXIT_USAGE = 2;
/** Nothing failed, but rows of the profile were not verified (skipped, not excluded). */
export const EXIT_INCOMPLETE = 3;

class TargetError extends Error {}

/**
 * Suites whose requests are answered at a pace set by controllers, nodes or daemon processes (not by the
 * target's API rules): the differential mode compares their verdicts only.
 */
const VERDICT_ONLY_SUITES = new Set(['daemon-options', 'daemon-controllers', 'lifecycle', 'workloads', 'controllers', 'namespace-lifecycle']);
/**
 * Checks of other suites whose requests may rightly be answered differently by two conformant targets, compared by
 * verdict only: deletion.status-body-and-options deletes an object pending on its 'orphan' finalizer a second time,
 * which the garbage collector may have finished meanwhile (200 on one target, 404 on the other; the check allows both).
 */
const VERDICT_ONLY_CHECKS = new Set(['deletion.status-body-and-options']);

/**
 * How the embedded simulator starts so that every testable row can be checked within the run's time goal:
 * - the controller daemon in-process (namespace deletion, garbage collection, workload controllers) and three
 *   simulated nodes that run the pods, as `npx tsx simulator` starts them;
 * - a watch history window by count only (the last 1500 changes, no age window): the 410 checks push a
 *   revision out of it with a few thousand writes instead of waiting 5 minutes;
 * - the controllers' clock 90 s ahead of the API server's and the CronJob controller looking every second:
 *   a CronJob of schedule "* * * * *" runs within seconds of its creation instead of at the next minute;
 * - the controllers' clients at 1,000 qps, so that the run's namespaces are deleted as fast as the server allows.
 */
export const EMBEDDED_SIMULATOR = (vendor: string, clientsBehind: boolean | PromiseLike<unknown> = false) => ({
  port: 0,
  host: '127.0.0.1',
  vendor,
  controllers: true,
  nodes: 3,
  watchHistoryEvents: 1500,
  watchHistoryAgeMs: 0,
  controllerClockSkewMs: 90_000,
  cronJobCheckIntervalMs: 1000,
  // The run starts once the API server answers; the daemon and the nodes come up behind it (API_ONLY_SUITES).
  clientsBehind,
  // Each controller's client at 1,000 qps (burst 2,000) instead of the simulator's 300: a run deletes about 80
  // namespaces, each emptied with a live list of every namespaced resource (~45 requests), and the flooding checks
  // wait for them: 3,700 requests of the namespace controller took 8-12 s at 300 qps.
  controllerArgs: ['--x-api-qps=1000', '--x-api-burst=2000'],
});

/**
 * Suites whose checks need only the embedded simulator's API server: they start as soon as it answers, while its
 * controller daemon and nodes are still starting; every other check waits (in its process) until those are up.
 * The daemon suites run daemons and simulators of their own; these others read and write objects and wait for no
 * controller or node (where a controller may write beside them, as on any target, they already allow it).
 */
export const API_ONLY_SUITES: ReadonlySet<string> = new Set(['daemon-options', 'daemon-controllers', 'crud', 'negotiation', 'robustness', 'chunking', 'watch']);

/**
 * Where the wall time and the CPU went: each suite file's span (first check started to last check ended, by the
 * check processes' own clocks; files run --workers at a time, the flooding "solo" checks after all others) with
 * the CPU seconds of its process and the daemons it started, and the slowest checks (a concurrent check's time
 * from its own start to its end).
 */
export function renderTimes(engine: Pick<EngineResult, 'durationMs' | 'checks' | 'suiteSpans' | 'cpu'>, embedded = true): string {
  const s = (ms: number) => `${(ms / 1000).toFixed(1)}`;
  const spans = Object.entries(engine.suiteSpans ?? {}).sort((a, b) => b[1].endMs - b[1].startMs - (a[1].endMs - a[1].startMs));
  const bySuite = engine.cpu?.bySuite ?? {};
  const lines = ['Time by suite file (s after start: from - to = span, checks, CPU s of its process and daemons):'];
  for (const [suite, sp] of spans) {
    const cpu = bySuite[suite] === undefined ? '' : `  cpu ${bySuite[suite].toFixed(1)}`;
    lines.push(`  ${suite.padEnd(22)} ${s(sp.startMs).padStart(6)} - ${s(sp.endMs).padStart(6)} = ${s(sp.endMs - sp.startMs).padStart(6)}  (${sp.checks})${cpu}`);
  }
  const slow = [...engine.checks].sort((a, b) => b.durationMs - a.durationMs).slice(0, 10);
  lines.push(`Slowest checks: ${slow.map((c) => `${c.id} ${s(c.durationMs)} s`).join(', ')}`);
  if (engine.cpu) {
    const c = engine.cpu;
    // What was measured: the target's own CPU only when it ran in this process (the embedded simulator).
    const main = embedded ? 'this process with the embedded simulator' : 'this process (the target is not measured)';
    lines.push(`CPU: ${c.total.toFixed(1)} s (${main} ${c.main.toFixed(1)} s, check processes and their daemons ${c.checkProcesses.toFixed(1)} s)`);
  }
  return lines.join('\n');
}

function resolveConnection(options: CliOptions): TargetConnection | undefined {
  let connection: TargetConnection | undefined;
  if (options.kubeconfig) connection = { ...readKubeconfig(options.kubeconfig), kubeconfigFile: options.kubeconfig };
  if (options.target) connection = { ...(connection ?? {}), url: options.target };
  if (!connection) return undefined;
  if (options.token) connection.token = options.token;
  if (options.asUser) connection.asUserToken = options.asUser;
  if (options.insecureSkipTlsVerify) connection.insecureSkipTlsVerify = true;
  connection.url = normaliseTargetUrl(connection.url);
  return connection;
}

async function probe(connection: TargetConnection, vendor: string): Promise<void> {
  const client = new TargetClient({ connection, vendor });
  try {
    const res = await client.raw({ method: 'GET', path: '/api', headers: { Accept: 'application/json' }, timeoutMs: 10_000 });
    const apis = await client.raw({ method: 'GET', path: '/apis', headers: { Accept: 'application/json' }, timeoutMs: 10_000 });
    // A 200 is not enough: a server answering {} to everything would otherwise have every check skipped as "not
    // served" and the run pass. An API server lists its versions at /api (APIVersions) or its groups at /apis.
    const core = discoveryList(res, 'versions');
    const groups = discoveryList(apis, 'groups');
    if (core !== 'listed' && groups !== 'listed') {
      throw new TargetError(`target ${connection.url} serves no discovery document (GET /api answered ${core}, GET /apis answered ${groups})`);
    }
  } catch (err) {
    if (err instanceof TransportError) {
      const reason = err.exchange.error ?? err.message;
      throw new TargetError(`target ${connection.url} is unreachable: ${reason}`);
    }
    throw err;
  }
}

/** 'listed' when the answer is a 200 whose JSON body has the list `field` (versions, groups), else what it was. */
function discoveryList(res: RawResponse, field: string): string {
  if (res.status !== 200) return String(res.status);
  try {
    const body = JSON.parse(res.text()) as Record<string, unknown> | null;
    return Array.isArray(body?.[field]) ? 'listed' : `200 without a "${field}" list`;
  } catch {
    return '200 with a body that is not JSON';
  }
}

function replayBase(options: CliOptions, embedded: boolean, url: string | undefined): string {
  const parts = [COMMAND];
  if (!embedded) {
    if (options.kubeconfig) parts.push(`--kubeconfig '${options.kubeconfig}'`);
    if (options.target || !options.kubeconfig) parts.push(`--target '${url}'`);
    if (options.token) parts.push('--token "$TOKEN"');
    if (options.insecureSkipTlsVerify) parts.push('--insecure-skip-tls-verify');
  }
  if (options.vendor !== 'kubernetes') parts.push(`--vendor ${options.vendor}`);
  if (options.daemonCmd !== undefined) parts.push(`--daemon-cmd '${options.daemonCmd.replace(/'/g, `'\\''`)}'`);
  parts.push(`--runs ${options.runs}`);
  return parts.join(' ');
}

export async function main(argv: string[], io: CliIo = { stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  const say = (text: string) => io.stdout.write(`${text}\n`);
  const complain = (text: string) => io.stderr.write(`${text}\n`);
  // `suites report ...` redraws index.html from saved results; it runs no check (cli/report.ts).
  if (argv[0] === 'report') return reportCommand(argv.slice(1), io);
  let options: CliOptions;
  try {
    options = parseCliArgs(argv);
  } catch (err) {
    complain(`error: ${(err as Error).message} (see --help)`);
    return EXIT_USAGE;
  }
  if (options.help) {
    say(HELP);
    return EXIT_PASS;
  }

  let stopSimulator: (() => Promise<void>) | undefined;
  try {
    // Without a target the embedded simulator starts now, while the spec tables and the suite files load, not
    // after them: its modules and the suites' are read and transpiled on tsx's loader thread side by side, and
    // the first check comes that much sooner. (Stopped in `finally` whatever happens next.)
    let starting: Promise<RunningSimulator> | undefined;
    // The embedded simulator's daemon and nodes failed to start after the run began: the run stops with that error.
    let clusterFailure: unknown;
    // The embedded daemon and nodes start once the first check processes are launched: the run's discovery reads
    // the API server before their start keeps it busy.
    let launched = () => {};
    const checksLaunched = new Promise<void>((r) => (launched = r));
    if (!options.kubeconfig && !options.target && !options.list) {
      starting = import('../../simulator/cluster.ts').then(({ startSimulator }) => startSimulator(EMBEDDED_SIMULATOR(options.vendor, checksLaunched)));
      const started = starting.catch(() => undefined);
      stopSimulator = async () => (await started)?.close();
    }
    // This project's daemon, compiled once for the daemon suites' ~100 starts (daemon/daemon-build.ts).
    const building = !options.list && options.daemonCmd === undefined && !process.env[DAEMON_CMD_ENV] ? buildDaemon() : undefined;
    // The suite files too, for check processes without tsx (harness/compile.ts), side by side with the rest.
    const compiled = options.list ? undefined : compileSuites();
    const tables = loadSpecTables({ vendor: options.vendor });
    const catalog = await loadCatalog();
    const embeddedRun = !options.kubeconfig && !options.target;
    const profiles = runProfiles(options.profile, embeddedRun);
    const selection = { profiles, quick: options.quick, suites: options.suites, grep: options.grep, skip: options.skip, replay: options.replay };
    const selected = selectChecks(catalog, selection);
    if (options.list && options.upstream) {
      const entries = readUpstreamMap();
      say(renderUpstreamTable(entries, catalog.checks));
      const scoped = entries.filter(inScope);
      const covered = scoped.filter((e) => catalog.checks.some((c) => c.upstream?.includes(e.no)));
      say(`${covered.length} of ${scoped.length} in-scope entries (1.9: yes or ver) have a check; ${entries.length - scoped.length} out of scope`);
      return EXIT_PASS;
    }
    if (options.list) {
      for (const c of selected) say(`${c.id}  [${c.suite}, ${profileOf(c)}]  ${c.rows.join(', ')}${c.title ? `  — ${c.title}` : ''}`);
      say(`${selected.length} checks in ${new Set(selected.map((c) => c.suite)).size} suites (profile ${profileLabel(profiles)})`);
      return EXIT_PASS;
    }
    // Checks of the run's profiles left out on purpose: their rows are "excluded" in the reports, not "not selected".
    const excluded = new Map<string, string>();
    const matches = (re: RegExp, c: { id: string; rows: string[] }) => re.test(c.id) || c.rows.some((r) => re.test(r));
    for (const c of catalog.checks) {
      if (!runsCheck(profiles, profileOf(c))) continue;
      if (options.skip && matches(options.skip, c)) excluded.set(c.id, `left out with --skip ${options.skip.source}`);
      else if (options.quick && c.historyWindow) excluded.set(c.id, 'left out with --quick (it waits for the target\'s watch history window)');
    }
    // Against a target the history-window checks wait for the spec's window in the background (list-watch.ts).
    const historyWaitMs = embeddedRun ? undefined : HISTORY_WAIT_MS;
    const history = selected.filter((c) => c.historyWindow);
    say(`profile: ${profileLabel(profiles)}${options.profile ? '' : embeddedRun ? ' (the embedded simulator: all three)' : ' (the default against a target)'}`);
    if (historyWaitMs && history.length > 0) {
      say(
        `${history.length} history-window checks (${history.map((c) => c.id).join(', ')}) wait ${historyWaitMs / 1000} s in the background for a revision to leave the target's watch history (8.1: 5 minutes, plus ${(historyWaitMs - 300_000) / 1000} s margin); --quick leaves them out`,
      );
    } else if (options.quick) {
      say('--quick: the history-window checks (410 on an expired watch revision and continue token) are left out');
    }
    if (selected.length === 0) throw new UsageError('no check matches the selection (--suite/--grep/--skip)');
    let expected: ExpectedFailure[] = [];
    if (options.expectedFailures) expected = readExpectedFailures(options.expectedFailures);

    const given = resolveConnection(options);
    const embedded = given === undefined;
    if (embedded !== embeddedRun) throw new Error('internal: target resolution disagrees with the profile choice');
    const controller = new AbortController();
    // node's test runner adds an abort listener per suite file and check to the run's signal: more than the 10 an
    // EventTarget allows before it prints MaxListenersExceededWarning on stderr, which is no leak here.
    setMaxListeners(0, controller.signal);
    let clusterStarting: { ready: Promise<void>; waits(c: { suite: string }): boolean; launched(): void } | undefined;
    // The embedded simulator is handed to the run while it starts: the run launches its first check processes
    // meanwhile (they load their suite files and wait for it), and reads its discovery once it answers.
    let target: TargetConnection | Promise<TargetConnection>;
    if (given) {
      await probe(given, options.vendor);
      target = given;
    } else {
      // Like a real cluster: the controller daemon in-process (namespace deletion, garbage collection, workload
      // controllers) and simulated nodes that run the pods (as `npx tsx simulator` starts them), still starting.
      const simulator = starting!;
      const ready = simulator.then((s) => s.ready);
      ready.catch((err: unknown) => {
        clusterFailure = err;
        controller.abort();
      });
      clusterStarting = { ready, waits: (c) => !API_ONLY_SUITES.has(c.suite), launched };
      target = simulator.then(async (s) => {
        const up: TargetConnection = { url: s.url.replace(/\/+$/, ''), embedded: true };
        say(`embedded simulator at ${up.url}`);
        await probe(up, options.vendor);
        return up;
      });
      target.catch(() => {}); // the run awaits it and reports its failure
    }

    // The daemon command reaches the check processes (started by node's test runner) through the environment.
    const previousDaemonCmd = process.env[DAEMON_CMD_ENV];
    const previousDaemonBuild = process.env[DAEMON_BUILD_ENV];
    if (options.daemonCmd !== undefined) process.env[DAEMON_CMD_ENV] = options.daemonCmd;
    const built = await building;
    if (built && selected.some((c) => c.suite.startsWith('daemon-'))) process.env[DAEMON_BUILD_ENV] = built;

    const onSigint = () => {
      if (controller.signal.aborted) process.exit(130);
      complain('\ninterrupted: stopping checks and deleting this run\'s namespaces (Ctrl-C again to quit at once)');
      controller.abort();
    };
    io.signal?.addEventListener('abort', () => controller.abort(), { once: true });
    process.on('SIGINT', onSigint);
    const progress = new Progress(io.stdout);
    const differential = options.reference !== undefined;
    const engineRun = (conn: TargetConnection | Promise<TargetConnection>, embeddedTarget: boolean, onProgress: boolean) =>
      runChecks({
        connection: conn,
        vendor: options.vendor,
        ...selection,
        historyWaitMs: embeddedTarget ? undefined : historyWaitMs,
        seed: options.seed,
        runs: options.runs,
        workers: options.workers,
        timeoutSeconds: options.timeoutSeconds,
        replayCommand: replayBase(options, embeddedTarget, given?.url),
        signal: controller.signal,
        transcripts: differential,
        compiled,
        clusterStarting: embeddedTarget ? clusterStarting : undefined,
        // The embedded simulator's daemon makes every namespace's default account and its token (it may still be
        // starting when the first namespace is made); a target is asked.
        serviceAccounts: embeddedTarget ? { tokens: true } : undefined,
        ...(onProgress
          ? {
              onPlan: (n: number) => progress.plan(n),
              onCheckStart: (id: string) => progress.start(id),
              onCheckDone: (o: CheckOutcome) => progress.done(o),
              onNote: (text: string) => progress.note(text),
            }
          : {}),
      });
    let connection: TargetConnection;
    let engine;
    let referenceEngine;
    let referenceConnection: TargetConnection | undefined;
    try {
      engine = await engineRun(target, embedded, true);
      connection = await target;
      if (differential && !engine.interrupted) {
        referenceConnection = { ...connection, url: normaliseTargetUrl(options.reference!) };
        if (embedded) referenceConnection = { url: referenceConnection.url };
        await probe(referenceConnection, options.vendor);
        say(`\nreference ${referenceConnection.url}: the same checks, seed ${options.seed}`);
        referenceEngine = await engineRun(referenceConnection, false, true);
      }
    } finally {
      if (previousDaemonCmd === undefined) delete process.env[DAEMON_CMD_ENV];
      else process.env[DAEMON_CMD_ENV] = previousDaemonCmd;
      if (previousDaemonBuild === undefined) delete process.env[DAEMON_BUILD_ENV];
      else process.env[DAEMON_BUILD_ENV] = previousDaemonBuild;
      process.off('SIGINT', onSigint);
      progress.finish();
    }
    if (clusterFailure !== undefined) throw clusterFailure;
    const results = buildResults({
      engine,
      catalog: catalog.checks,
      profiles,
      excluded,
      quick: options.quick,
      rows: tables.all,
      target: connection.url,
      embedded,
      vendor: options.vendor,
      seed: options.seed,
      runs: options.runs,
      suites: [...new Set(selected.map((c) => c.suite))],
      grep: options.grep?.source,
      skip: options.skip?.source,
      expectedFailures: options.expectedFailures ? { file: options.expectedFailures, ids: expected.map((e) => e.id) } : undefined,
    });
    let divergences: Divergence[] = [];
    if (referenceEngine && referenceConnection) {
      const verdictOnly = new Set(selected.filter((c) => c.concurrent || VERDICT_ONLY_SUITES.has(c.suite) || VERDICT_ONLY_CHECKS.has(c.id)).map((c) => c.id));
      const expectedIds = new Set(expected.map((e) => e.id));
      divergences = compareRuns(engine, referenceEngine, { verdictOnly, expected: expectedIds });
      results.differential = { reference: referenceConnection.url, referencePassed: referenceEngine.checks.every((c) => c.status !== 'failed'), divergences };
    }
    const files = writeReports(options.reportDir, results);
    say('');
    say(renderSummary(results, { color: Boolean(io.stdout.isTTY) }));
    if (referenceConnection) say(renderDivergences(divergences, connection.url, referenceConnection.url));
    say(`reports: ${files.junit}, ${files.results}, ${files.html}`);
    say(renderTimes(engine, embedded));
    // The checks' time, then the whole command's (the embedded simulator's start and the suite files' loading).
    const since = process.uptime().toFixed(1);
    say(`run time: ${(engine.durationMs / 1000).toFixed(1)} s${referenceEngine ? ` (reference ${(referenceEngine.durationMs / 1000).toFixed(1)} s)` : ''}, ${since} s since the command started`);
    if (engine.interrupted || referenceEngine?.interrupted) return 130;
    if (divergences.some((d) => !d.expected)) return EXIT_FAIL;
    return results.verdict === 'PASS' ? EXIT_PASS : results.verdict === 'FAIL' ? EXIT_FAIL : EXIT_INCOMPLETE;
  } catch (err) {
    if (err instanceof UsageError || err instanceof SelectionError || err instanceof TargetError) {
      complain(`error: ${err.message}`);
      return EXIT_USAGE;
    }
    const e = err as Error;
    // Configuration problems (kubeconfig, expected-failures file, spec tables) are usage errors too.
    if (/KubeconfigError|ExpectedFailuresError|SpecTableError/.test(e?.name ?? '') || /^target /.test(e?.message ?? '')) {
      complain(`error: ${e.message.split('\n')[0]}`);
      return EXIT_USAGE;
    }
    complain(`internal error: ${e?.stack ?? String(err)}`);
    return EXIT_USAGE;
  } finally {
    await stopSimulator?.();
  }
}
