// What the engine hands to each process that runs checks: the target, what it serves, the run's settings
// and which checks to run. Written as a JSON file whose path travels in an environment variable, because
// node's test runner starts each suite file in its own process.
import { existsSync, readFileSync } from 'node:fs';
import type { TargetConnection } from './connection.ts';
import type { Discovery } from './discovery.ts';

export const CONTEXT_ENV = 'CONFORMANCE_RUN_CONTEXT';

export interface ReplaySpec {
  checkId: string;
  seed: number;
  /** Index of the property inside the check, and the fast-check path to its counterexample. */
  property?: number;
  path?: string;
}

export interface RunContextFile {
  runId: string;
  namespacePrefix: string;
  connection: TargetConnection;
  vendor: string;
  discovery: Discovery;
  seed: number;
  runs: number;
  timeoutMs: number;
  /** Ids of the checks this run executes; other checks in a suite file are not registered. */
  selected: string[];
  replay?: ReplaySpec;
  evidenceDir: string;
  /** How to re-run one check from the command line, the check id and replay token appended. */
  replayCommand: string;
  /** Differential mode: every check writes the transcript of all its exchanges (harness/transcript.ts). */
  transcripts?: boolean;
  /** Against a target: how long the history-window checks wait for a revision to leave its history (list-watch.ts). */
  historyWaitMs?: number;
  /**
   * An embedded target whose controller daemon and nodes were still starting when the run began: the checks named
   * here wait, before they start, until the engine writes `file` (they are up); the others need the API server only.
   */
  clusterReady?: { file: string; checks: string[] };
  /**
   * The target makes a default service account in every namespace (and `tokens`: gives it a token Secret), so a
   * pod can be created in a check's namespace only once they exist (1.9's ServiceAccount admission): each new
   * namespace waits for them, as the upstream e2e framework waits. Undefined: nothing to wait for.
   */
  serviceAccounts?: { tokens: boolean };
}

let cached: RunContextFile | undefined | null = null;

/** How long a check process waits for its context before it gives up (the engine writes it within seconds). */
const CONTEXT_WAIT_MS = 10 * 60_000;

/**
 * The context of this process when it runs checks; undefined when the suite files are only being listed.
 *
 * The engine may launch a check process before the target is up (engine.ts runChecksNow): the process loads its
 * suite file meanwhile and the first check it declares waits here until the context file is in place (the engine
 * renames it into place whole). The wait blocks this process's only thread, which has nothing else to do yet; it
 * ends early when the process that launched it is gone.
 */
export function currentRunContext(): RunContextFile | undefined {
  if (cached !== null) return cached;
  const path = process.env[CONTEXT_ENV];
  if (path) waitForFile(path);
  cached = path ? (JSON.parse(readFileSync(path, 'utf8')) as RunContextFile) : undefined;
  return cached;
}

function waitForFile(path: string): void {
  if (existsSync(path)) return;
  const parent = process.ppid;
  const deadline = Date.now() + CONTEXT_WAIT_MS;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  while (!existsSync(path)) {
    // Orphaned: the run that launched this process ended without writing the context.
    if (process.ppid !== parent) process.exit(1);
    if (Date.now() > deadline) throw new Error(`the run's context ${path} was not written within ${CONTEXT_WAIT_MS / 60_000} minutes`);
    Atomics.wait(pause, 0, 0, 5);
  }
}

/** "<check id>@<seed>" or "<check id>@<seed>:<property>:<path>". */
export function formatReplay(spec: ReplaySpec): string {
  const base = `${spec.checkId}@${spec.seed}`;
  return spec.property === undefined || spec.path === undefined ? base : `${base}:${spec.property}:${spec.path}`;
}

export function parseReplay(text: string): ReplaySpec {
  const at = text.lastIndexOf('@');
  if (at <= 0) throw new Error(`--replay expects <check id>@<seed>[:<property>:<path>], got "${text}"`);
  const checkId = text.slice(0, at);
  const [seedText, propertyText, ...pathParts] = text.slice(at + 1).split(':');
  const seed = Number(seedText);
  if (!Number.isInteger(seed)) throw new Error(`--replay seed "${seedText}" is not an integer`);
  const spec: ReplaySpec = { checkId, seed };
  if (propertyText !== undefined) {
    const property = Number(propertyText);
    const path = pathParts.join(':');
    if (!Number.isInteger(property) || property < 0 || !/^\d+(:\d+)*$/.test(path)) {
      throw new Error(`--replay "${text}": expected <property index>:<fast-check path> after the seed`);
    }
    spec.property = property;
    spec.path = path;
  }
  return spec;
}

/** A stable 32-bit seed per check so that one check can be replayed alone with the same inputs. */
export function checkSeed(runSeed: number, checkId: string): number {
  let h = runSeed | 0;
  for (let i = 0; i < checkId.length; i++) h = Math.imul(h ^ checkId.charCodeAt(i), 0x01000193);
  return h | 0;
}
