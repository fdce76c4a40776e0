// The conformance suites' programmatic API (`cluster-api-conformance/suites`) and what the `cluster-conformance`
// command runs: the suites command (suites/index.ts, the same as `npx tsx suites` in the repository) in a child
// process under tsx, a dependency of this package. A child process, because a run starts check processes and an
// embedded simulator of its own and ends with process.exit; the exit code is the verdict (0 every applicable check
// passed, 1 a check failed, 2 bad usage or unreachable target).

import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

export interface ConformanceRunOptions {
  /** Directory the run works in: `reports/` lands there (default: this process's). */
  cwd?: string;
  /** Environment of the run (default: this process's). */
  env?: Record<string, string | undefined>;
  /** 'inherit' (default): the run prints to this process's stdout and stderr; 'pipe': collected into the result. */
  output?: 'inherit' | 'pipe';
}

export interface ConformanceRunResult {
  /** The suites' exit code: 0 pass, 1 a check failed, 2 bad usage or unreachable target. */
  exitCode: number;
  /** With output 'pipe': what the run printed. */
  stdout?: string;
  stderr?: string;
}

/** Where the suites' command is (the TypeScript sources ship in the package). */
export const SUITES_ENTRY: string = fileURLToPath(new URL('../suites/index.ts', import.meta.url));

/**
 * Runs the conformance suites with the command line's arguments, e.g. `runConformance(['--target', url, '--suite',
 * 'crud'])`; without `--target` against an embedded simulator. Resolves with the exit code (never rejects for a
 * failed check).
 */
export function runConformance(args: readonly string[] = [], options: ConformanceRunOptions = {}): Promise<ConformanceRunResult> {
  const tsxCli = createRequire(import.meta.url).resolve('tsx/cli');
  const child = spawn(process.execPath, [tsxCli, SUITES_ENTRY, ...args], {
    cwd: options.cwd,
    // The help and the replay lines name the command this package installs (suites/cli/command-name.ts).
    env: { CLUSTER_CONFORMANCE_COMMAND: 'npx cluster-conformance', ...(options.env ?? process.env) } as NodeJS.ProcessEnv,
    stdio: options.output === 'pipe' ? ['ignore', 'pipe', 'pipe'] : 'inherit',
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  // Ctrl-C reaches the child through the terminal; a SIGTERM sent to this process alone is passed on.
  const forward = () => child.kill('SIGTERM');
  process.on('SIGTERM', forward);
  return new Promise((resolveRun, reject) => {
    child.on('error', (e) => {
      process.off('SIGTERM', forward);
      reject(e);
    });
    child.on('close', (code, signal) => {
      process.off('SIGTERM', forward);
      const exitCode = code ?? (signal ? 128 + (signal === 'SIGINT' ? 2 : 15) : 1);
      resolveRun(options.output === 'pipe' ? { exitCode, stdout, stderr } : { exitCode });
    });
  });
}
