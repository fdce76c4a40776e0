// The one way to write a conformance check:
//
//   check('negotiation.yaml-accept', { rows: ['media.yaml', 'rule.negotiation.get-with-accept'],
//     requires: [{ group: '', version: 'v1', resource: 'configmaps', verbs: ['get'] }] },
//     async (ctx) => { ... });
//
// When the engine lists suites, check() only records the definition. When a suite file runs under the
// engine (node's test runner, one process per file), check() registers a node:test test for each selected
// check, with a context holding the target client, namespaces, fast-check settings and the recorder.
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import type fc from 'fast-check';
import { TargetClient, TransportError, WatchNotStreamed } from './client.ts';
import { join } from 'node:path';
import type { Discovery, Requirement } from './discovery.ts';
import { firstUnmet, unmetReason } from './discovery.ts';
import { ExchangeRecorder, renderExchange } from './recorder.ts';
import { PropertyFailure, PropertyRunner } from './property.ts';
import { rowsOf } from './expect.ts';
import { awaitDefaultAccount, createNamespace, DEFAULT_ACCOUNT_WAIT_MS, deleteNamespace, randomSuffix } from './namespaces.ts';
import { checkSeed, currentRunContext, formatReplay, type RunContextFile } from './run-context.ts';
import { writeEvidence } from './evidence.ts';
import { summarise, writeTranscript, type TranscriptEntry } from './transcript.ts';
import { noteCheckTime, noteDuration } from './timing.ts';
import { busyScaled } from './progress.ts';
import { NothingMovedError, type ProfileDeclaration } from './profile.ts';

export interface CheckMeta extends ProfileDeclaration {
  /** Spec-table row ids this check covers (validated by suites/coverage.test.ts). */
  rows: string[];
  /** What the target must serve for the check to apply; otherwise it is skipped with the reason. */
  requires?: Requirement[];
  /** One line for --list and reports. */
  title?: string;
  timeoutSeconds?: number;
  /**
   * Starts when its suite file loads instead of after the checks before it, so that checks which mostly wait
   * (for pods, controllers, schedules) wait side by side. Its reported duration counts from its turn in the
   * file, not from its start.
   */
  concurrent?: boolean;
  /**
   * Runs after every other check, with no other check running (alone or beside other solo checks): for checks
   * that flood the server (e.g. push the watch history window on, which would expire other checks' watches and
   * continue tokens mid-way).
   */
  solo?: boolean;
  /**
   * Needs a revision to leave the target's watch history window (the 410 checks). Against the embedded simulator
   * it pushes one out with writes (a solo check); against another target it waits for the spec's window (8.1:
   * 5 minutes, plus a margin) in the background while the run goes on (list-watch.ts waitOutHistory). `--quick`
   * leaves these checks out.
   */
  historyWindow?: boolean;
  /**
   * Entry numbers of the upstream conformance registry whose MUST this check states (suites/UPSTREAM-CONFORMANCE.md;
   * `npx tsx suites --list --upstream` prints the map from these).
   */
  upstream?: number[];
}

export interface CheckContext {
  readonly id: string;
  /** Recorded client for the target; every exchange lands in the evidence of a failure. */
  readonly client: TargetClient;
  readonly recorder: ExchangeRecorder;
  readonly discovery: Discovery;
  readonly vendor: string;
  /**
   * Against a target other than the embedded simulator: how long a history-window check waits for a revision to
   * leave the watch history (it runs beside the other checks and writes nothing to push it out).
   */
  readonly historyWaitMs?: number;
  /** fast-check settings of this check: its own seed (derived from the run seed) and the run count. */
  readonly fc: { seed: number; numRuns: number };
  /** A fresh namespace for this check, deleted when the check ends. */
  namespace(): Promise<string>;
  /** A namespace name of this run, not yet created (for checks that create it themselves); deleted at the end. */
  namespaceName(): string;
  /** A name unique within this check (DNS label), for objects created by property runs. */
  uniqueName(prefix?: string): string;
  /** Runs a property with this check's seed and run count; its failure carries the replay data. */
  forAll<T>(arbitrary: fc.Arbitrary<T>, predicate: (value: T) => Promise<void> | void, options?: { numRuns?: number }): Promise<void>;
  /** Stops the check as skipped (for conditions discovery cannot express). */
  skip(reason: string): never;
  /**
   * Stops the check as failed because a controller loop it waits for (one of its `needs.controllers`) did nothing
   * within the check's bound: the failure names the loop, what did not happen and the check's rows (profile.ts
   * NothingMovedError). Never a skip: a cluster whose controllers do not act is not conformant.
   */
  nothingMoved(controller: string, detail: string): never;
  /** Whether the target serves what a requirement names. */
  serves(requirement: Requirement): boolean;
}

export type CheckFn = (ctx: CheckContext) => Promise<void>;

export interface CheckDefinition extends CheckMeta {
  id: string;
  suite: string;
  fn: CheckFn;
}

const ID_PATTERN = /^[a-z0-9][a-z0-9._/-]*$/i;

interface Registry {
  checks: CheckDefinition[];
  currentSuite: string;
}

// Shared through globalThis so a suite file and the engine see one registry whichever way they import it.
const REGISTRY_KEY = Symbol.for('cluster-api-conformance.registry');
function registry(): Registry {
  const g = globalThis as unknown as Record<symbol, Registry>;
  g[REGISTRY_KEY] ??= { checks: [], currentSuite: 'unknown' };
  return g[REGISTRY_KEY];
}

export function registeredChecks(): readonly CheckDefinition[] {
  return registry().checks;
}

/** The engine sets this before importing a suite file, so checks know their suite. */
export function setCurrentSuite(name: string): void {
  registry().currentSuite = name;
}

class SkipSignal extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

export function check(id: string, meta: CheckMeta, fn: CheckFn): void {
  if (!ID_PATTERN.test(id)) throw new Error(`check id "${id}" must be letters, digits and . _ / -`);
  const reg = registry();
  if (reg.checks.some((c) => c.id === id)) throw new Error(`check id "${id}" is declared twice`);
  if (!Array.isArray(meta.rows) || meta.rows.length === 0) throw new Error(`check "${id}" must name the spec rows it covers`);
  const definition: CheckDefinition = { ...meta, id, suite: reg.currentSuite, fn };
  reg.checks.push(definition);
  const run = currentRunContext();
  if (run && run.selected.includes(id)) registerTest(definition, run);
}

function registerTest(definition: CheckDefinition, run: RunContextFile): void {
  // Bounds inside checks stretch on a busy machine (harness/progress.ts busyScaled): so does the check's time limit.
  const waitsHistory = definition.historyWindow && run.historyWaitMs ? run.historyWaitMs : 0;
  const timeout = busyScaled((definition.timeoutSeconds ?? 0) * 1000 || run.timeoutMs) + waitsHistory;
  // A concurrent check starts now; its test only collects the outcome when its turn comes. So does a check that
  // waits out the target's history window: it waits in the background while the file's other checks run.
  const startsEarly = (definition.concurrent || waitsHistory > 0) && !firstUnmet(run.discovery, definition.requires ?? []);
  const early = startsEarly ? executeCheck(definition, run) : undefined;
  test(definition.id, { timeout }, async (t) => {
    const reason = firstUnmet(run.discovery, definition.requires ?? []);
    if (reason) {
      t.skip(reason);
      return;
    }
    const outcome = await (early ?? executeCheck(definition, run));
    if (outcome.skipped) t.skip(outcome.skipped);
    else if (outcome.error) throw outcome.error;
  });
}

let baseClient: TargetClient | undefined;

/** A failure's message, never empty: an error thrown without one is named by its type and first stack frame. */
export function failureText(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  if (text.trim()) return text;
  const frame = err instanceof Error ? (err.stack ?? '').split('\n').find((l) => /^\s+at /.test(l))?.trim() : undefined;
  return `${err instanceof Error ? err.name : typeof err} thrown without a message${frame ? ` (${frame})` : ''}`;
}

/**
 * Before a check that needs the target's controllers and nodes while they are still starting (run.clusterReady):
 * waits until the engine says they are up. Bounded by the check's own time limit, which fails it.
 */
async function clusterReady(definition: CheckDefinition, run: RunContextFile): Promise<void> {
  const ready = run.clusterReady;
  if (!ready?.checks.includes(definition.id)) return;
  const deadline = Date.now() + run.timeoutMs;
  while (!existsSync(ready.file) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
}

/** Runs one check in this process: builds its context, runs it, writes evidence on failure, cleans up. */
export async function executeCheck(definition: CheckDefinition, run: RunContextFile): Promise<{ error?: unknown; skipped?: string }> {
  await clusterReady(definition, run);
  const recorder = new ExchangeRecorder();
  const transcript: TranscriptEntry[] | undefined = run.transcripts ? [] : undefined;
  if (transcript) recorder.onRecord = (e) => transcript.push(summarise(e));
  baseClient ??= new TargetClient({ connection: run.connection, vendor: run.vendor, watchMarker: join(run.evidenceDir, 'watch-not-streamed') });
  const client = baseClient.withRecorder(recorder);
  const replay = run.replay?.checkId === definition.id ? run.replay : undefined;
  const seed = replay ? replay.seed : checkSeed(run.seed, definition.id);
  const properties = new PropertyRunner(
    { seed, numRuns: run.runs, replay: replay?.property !== undefined && replay.path ? { property: replay.property, path: replay.path } : undefined },
    recorder,
  );
  const namespaces: string[] = [];
  let names = 0;
  const startMs = Date.now();
  const ctx: CheckContext = {
    id: definition.id,
    client,
    recorder,
    discovery: run.discovery,
    vendor: run.vendor,
    historyWaitMs: definition.historyWindow ? run.historyWaitMs : undefined,
    fc: { seed, numRuns: run.runs },
    namespaceName() {
      const name = `${run.namespacePrefix}${randomSuffix(8)}`;
      namespaces.push(name);
      return name;
    },
    async namespace() {
      const name = ctx.namespaceName();
      await createNamespace(client, name);
      if (run.serviceAccounts) await awaitDefaultAccount(client, name, run.serviceAccounts.tokens, busyScaled(DEFAULT_ACCOUNT_WAIT_MS));
      return name;
    },
    uniqueName(prefix = 'obj') {
      const base = prefix.toLowerCase().replace(/[^a-z0-9-]/g, '-').slice(0, 40).replace(/-+$/, '') || 'obj';
      // Differential mode: the same names on both targets (from the check's seed), so transcripts line up.
      const n = ++names;
      const suffix = run.transcripts ? (checkSeed(seed, `name-${n}`) >>> 0).toString(36).padStart(4, '0').slice(-4) : randomSuffix(4);
      return `${base}-${n.toString(36)}-${suffix}`;
    },
    forAll: (arbitrary, predicate, options) => properties.forAll(arbitrary, predicate, options),
    skip(reason: string): never {
      throw new SkipSignal(reason);
    },
    nothingMoved(controller: string, detail: string): never {
      throw new NothingMovedError(controller, detail, definition.rows);
    },
    serves: (requirement) => unmetReason(run.discovery, requirement) === undefined,
  };
  try {
    await definition.fn(ctx);
    return {};
  } catch (err) {
    if (err instanceof SkipSignal) return { skipped: err.reason };
    // One failure names 4.3.2 for a target that does not stream watches; the run's later watches are not verified.
    if (err instanceof WatchNotStreamed) return { skipped: err.message };
    const failure = err instanceof PropertyFailure ? err : undefined;
    const replayToken = formatReplay({ checkId: definition.id, seed, property: failure?.property, path: failure?.path });
    const curlOptions = {
      hasToken: Boolean(run.connection.token),
      insecure: run.connection.insecureSkipTlsVerify,
      caFile: run.connection.caFile,
      certFile: run.connection.certFile,
      keyFile: run.connection.keyFile,
    };
    const exchanges = recorder.evidence();
    if (err instanceof TransportError && !exchanges.includes(err.exchange)) exchanges.push(err.exchange);
    writeEvidence(run.evidenceDir, {
      checkId: definition.id,
      message: failureText(err),
      failedRows: rowsOf(err),
      exchanges: exchanges.map((e) => renderExchange(e, curlOptions)),
      seed,
      property: failure?.property,
      path: failure?.path,
      counterexample: failure?.counterexample,
      replay: replayToken,
      replayCommand: `${run.replayCommand} --replay '${replayToken}'`,
    });
    return { error: err };
  } finally {
    client.closeWatches();
    // The check's own time, for its progress line (a concurrent check's test reports only its turn's wait).
    noteDuration(run.evidenceDir, definition.id, Date.now() - startMs);
    if (transcript) writeTranscript(run.evidenceDir, definition.id, transcript);
    await Promise.all(namespaces.map((n) => deleteNamespace(baseClient!, n)));
    noteCheckTime(run.evidenceDir, { id: definition.id, startMs, endMs: Date.now() });
  }
}
