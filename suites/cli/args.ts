// Command-line options of `npx tsx suites`, parsed with node:util parseArgs. Bad usage becomes a
// UsageError with a one-line message (exit 2).
import { parseArgs } from 'node:util';
import { parseReplay, type ReplaySpec } from '../harness/run-context.ts';
import { PROFILES, type Profile } from '../harness/profile.ts';
import { COMMAND } from './command-name.ts';

export class UsageError extends Error {
  override name = 'UsageError';
}

export interface CliOptions {
  target?: string;
  /** Differential mode: a second target answering the same checks; differences are reported per spec row. */
  reference?: string;
  token?: string;
  kubeconfig?: string;
  /** Bearer token of a second identity for the auth suite. */
  asUser?: string;
  insecureSkipTlsVerify: boolean;
  suites: string[];
  /** The profile to certify; none: all three for the embedded simulator, `cluster` against a target. */
  profile?: Profile;
  /** Leave out the checks that wait for the target's watch history window (5 minutes and more). */
  quick: boolean;
  grep?: RegExp;
  skip?: RegExp;
  list: boolean;
  /** With --list: the map of the upstream conformance registry (suites/UPSTREAM-CONFORMANCE.md) from the checks' declarations. */
  upstream: boolean;
  seed: number;
  runs: number;
  replay?: ReplaySpec;
  expectedFailures?: string;
  reportDir: string;
  workers: number;
  timeoutSeconds: number;
  vendor: string;
  /** Command that starts the controller daemon under test (daemon-options suite); default: this project's. */
  daemonCmd?: string;
  help: boolean;
}

export const DEFAULT_RUNS = 15;
export const DEFAULT_TIMEOUT_SECONDS = 60;
/**
 * Suite files at once. Four: the daemon suites spend their time in processes of their own (daemons, simulators of
 * their own) while the other suites load the target, so both kinds run side by side from the start (on 2 cores
 * under load, 2026-11-23: 176 s with 4 against 238 s with 2, the same CPU).
 */
export const DEFAULT_WORKERS = 4;

const OPTIONS = {
  target: { type: 'string' },
  reference: { type: 'string' },
  token: { type: 'string' },
  kubeconfig: { type: 'string' },
  'as-user': { type: 'string' },
  'insecure-skip-tls-verify': { type: 'boolean', default: false },
  suite: { type: 'string', multiple: true },
  profile: { type: 'string' },
  quick: { type: 'boolean', default: false },
  grep: { type: 'string' },
  skip: { type: 'string' },
  list: { type: 'boolean', default: false },
  upstream: { type: 'boolean', default: false },
  seed: { type: 'string' },
  runs: { type: 'string' },
  replay: { type: 'string' },
  'expected-failures': { type: 'string' },
  'report-dir': { type: 'string', default: 'reports' },
  workers: { type: 'string' },
  timeout: { type: 'string' },
  vendor: { type: 'string', default: 'kubernetes' },
  'daemon-cmd': { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

function integer(name: string, text: string | undefined, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (text === undefined) return fallback;
  if (!/^-?\d+$/.test(text.trim())) throw new UsageError(`--${name} expects an integer, got "${text}"`);
  const n = Number(text);
  if (n < min || n > max) throw new UsageError(`--${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

function regex(name: string, text: string | undefined): RegExp | undefined {
  if (text === undefined) return undefined;
  try {
    return new RegExp(text);
  } catch (err) {
    throw new UsageError(`--${name} is not a valid regular expression: ${(err as Error).message}`);
  }
}

function profile(text: string | undefined): Profile | undefined {
  if (text === undefined) return undefined;
  if (!(PROFILES as readonly string[]).includes(text)) throw new UsageError(`--profile must be one of ${PROFILES.join(', ')}, got "${text}"`);
  return text as Profile;
}

function daemonCommand(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  if (text.trim() === '') throw new UsageError('--daemon-cmd needs a command, e.g. "npx tsx simulator/controllers"');
  return text;
}

export function parseCliArgs(argv: string[]): CliOptions {
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    ({ values } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: false, strict: true }));
  } catch (err) {
    throw new UsageError((err as Error).message.split('\n')[0]);
  }
  const str = (k: string) => values[k] as string | undefined;
  const replayText = str('replay');
  let replay: ReplaySpec | undefined;
  if (replayText !== undefined) {
    try {
      replay = parseReplay(replayText);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  }
  const vendor = str('vendor') ?? 'kubernetes';
  if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/.test(vendor)) throw new UsageError(`--vendor must be a lower-case word, got "${vendor}"`);
  return {
    target: str('target'),
    reference: str('reference'),
    token: str('token'),
    kubeconfig: str('kubeconfig'),
    asUser: str('as-user'),
    insecureSkipTlsVerify: values['insecure-skip-tls-verify'] === true,
    suites: (values.suite as string[] | undefined) ?? [],
    profile: profile(str('profile')),
    quick: values.quick === true,
    grep: regex('grep', str('grep')),
    skip: regex('skip', str('skip')),
    list: values.list === true,
    upstream: values.upstream === true,
    seed: integer('seed', str('seed'), replay?.seed ?? Math.floor(Math.random() * 2 ** 31), -(2 ** 31), 2 ** 31 - 1),
    runs: integer('runs', str('runs'), DEFAULT_RUNS, 1, 100_000),
    replay,
    expectedFailures: str('expected-failures'),
    reportDir: str('report-dir') ?? 'reports',
    workers: integer('workers', str('workers'), DEFAULT_WORKERS, 1, 64),
    timeoutSeconds: integer('timeout', str('timeout'), DEFAULT_TIMEOUT_SECONDS, 1, 86_400),
    vendor,
    daemonCmd: daemonCommand(str('daemon-cmd')),
    help: values.help === true,
  };
}

export const HELP = `Conformance harness for the cluster resource API.

Usage: ${COMMAND} [options]
       ${COMMAND} report [--from results.json ...] [--report-dir DIR]   redraw index.html (several --from: a matrix)

Target
  --target URL                 API base URL; without it an embedded simulator is started on a free port
  --reference URL              differential mode: run the same checks (same seed) against this second target
                               too and report, per spec row, where the answers differ (exit 1 on a difference
                               not listed in --expected-failures)
  --token TOKEN                bearer token
  --kubeconfig FILE            use the current context: server, CA, client certificate/key, token
  --as-user TOKEN              bearer token of a second identity without cluster-wide grants, for the auth
                               suite (no credentials refused, no grants forbidden, namespaced grants, /status,
                               access reviews, the client-side proxy); never printed or written to reports
  --insecure-skip-tls-verify   do not verify the target's TLS certificate
  --vendor NAME                vendor word in media types (application/vnd.NAME.protobuf); default kubernetes
  --daemon-cmd CMD             controller daemon to check (daemon-options suite), run through the shell with
                               options appended; default: node --import tsx simulator/controllers/index.ts

Selection
  --profile api|cluster|daemon what the run certifies: api the API server alone (rows needing controllers or
                               nodes are "not applicable"); cluster the API server with its controllers and
                               nodes (default with --target); daemon the daemon under test (--daemon-cmd)
                               against simulators of its own. Without --target: all three
  --quick                      leave out the checks that wait out the target's watch history window (the
                               410 checks, 5 minutes and more against a target); the verdict says so
  --suite NAME                 run only this suite (repeatable)
  --grep RE                    run only checks whose id or a covered spec row id matches RE
  --skip RE                    leave out checks whose id or a covered spec row id matches RE (their rows
                               count as excluded)
  --list                       print the selected checks and the spec rows they cover; run nothing
  --list --upstream            print the map of the upstream conformance registry: each entry with the checks
                               that declare it (suites/UPSTREAM-CONFORMANCE.md holds the same table)
  --replay ID                  re-run one failed check exactly (ID as printed: <check>@<seed>[:<property>:<path>])

Run
  --seed N                     fast-check seed (default: random, printed in the summary)
  --runs N                     runs per property (default ${DEFAULT_RUNS})
  --workers N                  suite files run in parallel (default ${DEFAULT_WORKERS})
  --timeout SECONDS            time limit per check (default ${DEFAULT_TIMEOUT_SECONDS})
  --expected-failures FILE     YAML/JSON list of check or row ids expected to fail on this target
  --report-dir DIR             where junit.xml, results.json and index.html go (default reports/)
  -h, --help                   this text

Verdicts and exit status:
  0 PASS        every row of the profile was verified (expected failures and excluded rows apart)
  1 FAIL        a check failed
  3 INCOMPLETE  nothing failed, but rows were not verified (each printed with its reason); list them in
                --expected-failures or leave them out with --skip to count them as excluded
  2 bad usage or an unreachable target; 130 interrupted`;
