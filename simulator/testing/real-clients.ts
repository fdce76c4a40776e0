// Test helper for the client matrix (simulator/clients/): finds the real clients scripts/install-client-tools.sh
// installs (the current kubectl on PATH, kubectl 1.20 in .tools/, Debian's python3-kubernetes), writes the client
// config the simulator itself writes, and runs the clients with a private HOME so no cache leaks between runs.
// A missing client skips its tests with the reason — except under CI, where it is a failure (CI installs them).

import { execFile, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { clientConfigYaml } from '../cluster.ts';

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** CI=1 / CI=true: every client must be there (a missing one fails instead of skipping). */
export const IN_CI = !!process.env.CI && !['0', 'false'].includes(process.env.CI.toLowerCase());

export interface FoundClient {
  /** Executable (kubectl) or interpreter (python3). */
  path: string;
  /** What `version` printed, one line. */
  version: string;
}

export type ClientProbe = { found: FoundClient; missing?: undefined } | { found?: undefined; missing: string };

function probe(path: string, args: string[], check: (out: string) => string | undefined): ClientProbe {
  const r = spawnSync(path, args, { encoding: 'utf8', timeout: 20_000, env: { PATH: process.env.PATH, HOME: tmpdir() } });
  if (r.error) return { missing: `${path}: ${(r.error as NodeJS.ErrnoException).code ?? r.error.message}` };
  const out = `${r.stdout}${r.stderr}`;
  const version = check(out);
  if (r.status !== 0 || !version) return { missing: `${path} ${args.join(' ')} exited ${r.status}: ${out.trim().slice(0, 300)}` };
  return { found: { path, version } };
}

const kubectlVersion = (out: string) => /Client Version:\s*(?:version\.Info\{.*?GitVersion:"(v[^"]+)"|(v\S+))/.exec(out)?.slice(1).find(Boolean);

/** The machine's kubectl (on PATH). */
export function kubectlCurrent(): ClientProbe {
  return probe('kubectl', ['version', '--client'], kubectlVersion);
}

/** kubectl 1.20 from Debian's kubernetes-client, unpacked into .tools/ by scripts/install-client-tools.sh. */
export function kubectl120(): ClientProbe {
  const path = join(REPO, '.tools', 'kubectl-1.20', 'kubectl');
  if (!existsSync(path)) return { missing: `${path} is missing (run scripts/install-client-tools.sh)` };
  const p = probe(path, ['version', '--client'], kubectlVersion);
  if (p.found && !p.found.version.startsWith('v1.20.')) return { missing: `${path} is ${p.found.version}, not v1.20` };
  return p;
}

/** Debian's python3 with the `kubernetes` package (python3-kubernetes); PYTHON overrides the interpreter. */
export function pythonClient(): ClientProbe {
  const path = process.env.PYTHON ?? '/usr/bin/python3';
  return probe(path, ['-c', 'import kubernetes; print("kubernetes", kubernetes.__version__)'], (out) => /^kubernetes (\S+)/m.exec(out)?.[1]);
}

/**
 * The OpenAPI-driven `kubernetes-client` npm package (a devDependency, CommonJS). Found through require, which
 * also honours NODE_PATH (a copy installed elsewhere); `load` requires its modules for the test.
 */
export function kubernetesClientPackage(): ClientProbe & { load?: (id: string) => unknown } {
  const req = createRequire(join(REPO, 'package.json'));
  try {
    const version = (req('kubernetes-client/package.json') as { version: string }).version;
    return { found: { path: req.resolve('kubernetes-client'), version }, load: (id: string) => req(id) };
  } catch (e) {
    return { missing: `the kubernetes-client package is not installed (npm ci installs it): ${(e as Error).message.split('\n')[0]}` };
  }
}

/**
 * The `skip` option of a describe(): false when the client is there; the reason when it is missing outside CI.
 * Under CI a missing client does not skip: the describe runs and `requireClient` fails its first test.
 */
export function skipUnlessFound(p: ClientProbe): false | string {
  if (p.found || IN_CI) return false;
  return `${p.missing} (CI installs it with scripts/install-client-tools.sh)`;
}

export function requireClient(p: ClientProbe): FoundClient {
  if (!p.found) throw new Error(`client missing under CI: ${p.missing}`);
  return p.found;
}

/** A private HOME and the simulator's own client config (cluster.ts clientConfigYaml) in it. */
export interface ClientDir {
  dir: string;
  kubeconfig: string;
  env: NodeJS.ProcessEnv;
}

export function clientDir(url: string, namespace = 'default'): ClientDir {
  const dir = mkdtempSync(join(tmpdir(), 'client-matrix-'));
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, clientConfigYaml(url, namespace));
  return { dir, kubeconfig, env: { PATH: process.env.PATH, HOME: dir, KUBECONFIG: kubeconfig, LANG: 'C.UTF-8' } };
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a client to completion (never throws on a non-zero exit: callers assert on code and output). */
export function run(path: string, args: string[], opts: { env: NodeJS.ProcessEnv; input?: string; timeoutMs?: number }): Promise<RunResult> {
  return new Promise((resolvePromise) => {
    const child = execFile(path, args, { env: opts.env, timeout: opts.timeoutMs ?? 30_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : -1) : 0;
      resolvePromise({ code, stdout, stderr: err && code === -1 ? `${stderr}\n${err.message}` : stderr });
    });
    if (opts.input !== undefined) child.stdin?.end(opts.input);
  });
}

export interface CheckResult {
  ok: boolean;
  detail: string;
}

/**
 * Runs one of the Python scripts of simulator/clients/python/ (`python3 <script> KUBECONFIG NAMESPACE`), which print
 * one JSON line per check; answers each check's result by name and the whole output (to show when one is missing).
 */
export async function runPythonChecks(
  python: string,
  script: string,
  cd: ClientDir,
  namespace: string,
  timeoutMs: number,
): Promise<{ results: Map<string, CheckResult>; output: string }> {
  const r = await run(python, [resolve(REPO, 'simulator/clients/python', script), cd.kubeconfig, namespace], { env: cd.env, timeoutMs });
  const results = new Map<string, CheckResult>();
  for (const line of r.stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    const res = JSON.parse(line) as CheckResult & { check: string };
    results.set(res.check, res);
  }
  return { results, output: `exit ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}` };
}
