// The controller daemon's command line (spec 8.2), checked on the daemon named by --daemon-cmd (default: this
// project's): for every option row, --help lists it, a generated valid value is accepted and shows in
// /configz, a generated invalid value makes the daemon exit non-zero with a message naming the option, and
// the default is the spec's. The daemon under test talks to a short-lived simulator of its own, never to the
// target (a daemon with random options must not run controllers against someone's cluster). To stay fast,
// one process checks every default and one process per run sets every option at once; only refusals need a
// process each (a daemon stops at the first bad option), run a few at a time. Failures are charged to the
// rows of the options concerned.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { loadSpecTables, type OptionRow } from '../spec-tables/index.ts';
import { check, type CheckContext } from './harness/check.ts';
import { fail } from './harness/expect.ts';
import { daemonCommand } from './cli/daemon-command.ts';
import { DaemonProcess, freePort, pool, portIsFree, runToExit, waitForConfigz } from './daemon/daemon-process.ts';
import {
  NOT_IN_CONFIGZ,
  componentConfig,
  configEntry,
  expectedDefault,
  invalidCases,
  namesOption,
  normalizeName,
  sameValue,
  validAssignment,
  type InvalidCase,
  type OptionValue,
  type ValueEnv,
} from './daemon/option-values.ts';
import { writeDaemonPki } from './daemon/pki.ts';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ALL_ROWS = loadSpecTables().options.map((o) => o.id);
/**
 * How long a daemon may take to serve /configz (or exit). A start takes about a second on idle cores; several
 * daemons starting side by side on a loaded machine took over 30 s. Generous, since only a broken daemon waits it out.
 */
const START_TIMEOUT_MS = 60_000;
const DEFAULT_PORT = 10252;

interface Problem {
  row: string;
  message: string;
}

/** Fails once with every problem, charged to the rows concerned. */
function report(problems: Problem[], what: string): void {
  if (problems.length === 0) return;
  const lines = problems.slice(0, 15).map((p) => `  ${p.row}: ${p.message}`);
  if (problems.length > 15) lines.push(`  ... and ${problems.length - 15} more`);
  fail(`${what}: ${problems.length} problem(s)\n${lines.join('\n')}`, [...new Set(problems.map((p) => p.row))]);
}

const tail = (text: string, n = 400) => (text.length > n ? `...${text.slice(-n)}` : text).trim();

interface DaemonEnv extends ValueEnv {
  rows: readonly OptionRow[];
  command: string;
  cwd: string;
}

/** A simulator for the daemons to talk to, a client config pointing at it, and files for path options. */
async function withDaemonEnv(ctx: CheckContext, fn: (env: DaemonEnv) => Promise<void>): Promise<void> {
  const tables = loadSpecTables({ vendor: ctx.vendor });
  const { startSimulator } = await import('../simulator/cluster.ts');
  const sim = await startSimulator({ port: 0, host: '127.0.0.1', vendor: ctx.vendor });
  const dir = mkdtempSync(join(tmpdir(), 'daemon-options-'));
  try {
    const kubeconfigPath = join(dir, 'kubeconfig');
    writeFileSync(
      kubeconfigPath,
      `apiVersion: v1\nkind: Config\nclusters:\n- name: sim\n  cluster:\n    server: ${sim.url}\nusers:\n- name: sim\n  user: {}\ncontexts:\n- name: sim\n  context:\n    cluster: sim\n    user: sim\ncurrent-context: sim\n`,
    );
    const file = join(dir, 'some-file');
    writeFileSync(file, '# a file for options that name one\n');
    const jsonFile = join(dir, 'credentials.json');
    writeFileSync(jsonFile, '{"note": "a JSON file for the cloud credential options"}\n');
    const { command, isDefault } = daemonCommand();
    const pem = await writeDaemonPki(dir);
    const podTemplateFile = join(dir, 'recycler.yaml');
    // The 1.9 recycler pod: one volume named "vol", a busybox container scrubbing it.
    writeFileSync(
      podTemplateFile,
      'apiVersion: v1\nkind: Pod\nmetadata:\n  generateName: pv-recycler-\n  namespace: default\nspec:\n  restartPolicy: Never\n  volumes:\n  - name: vol\n    hostPath:\n      path: /tmp\n' +
        '  containers:\n  - name: pv-recycler\n    image: busybox:1.27\n    command: ["/bin/sh", "-c", "rm -rf /scrub/*"]\n' +
        '    volumeMounts:\n    - name: vol\n      mountPath: /scrub\n',
    );
    await fn({
      pem,
      podTemplateFile,
      vendor: ctx.vendor,
      masterUrl: sim.url,
      kubeconfigPath,
      port: await freePort(),
      file,
      jsonFile,
      dir,
      controllers: tables.controllers,
      gates: tables.featureGates,
      rows: tables.options,
      command,
      cwd: isDefault ? REPO_ROOT : process.cwd(),
    });
  } finally {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Starts a daemon and returns its componentconfig, or fails naming the options its error names. */
async function configzOf(env: DaemonEnv, args: string[], host: string, port: number, what: string): Promise<Record<string, unknown>> {
  const p = new DaemonProcess(env.command, args, env.cwd);
  try {
    const out = await waitForConfigz(p, host, port, START_TIMEOUT_MS);
    if (out.kind === 'serving') {
      const config = componentConfig(out.configz);
      if (!config) fail(`${what}: /configz has no component configuration object: ${JSON.stringify(out.configz).slice(0, 200)}`);
      return config;
    }
    const output = `${p.stdout}\n${p.stderr}`;
    const named = env.rows.filter((r) => args.some((a) => a.startsWith(r.name)) && namesOption(output, r.name)).map((r) => r.id);
    const how = out.kind === 'exited' ? `exited with ${out.exit.code ?? out.exit.signal}` : `did not serve /configz within ${START_TIMEOUT_MS / 1000} s`;
    fail(`${what}: the daemon ${how}: ${tail(output)}\n  command: ${env.command} ${args.join(' ')}`, named.length ? named : undefined);
  } finally {
    await p.stop();
  }
}

check('daemon-options.help-lists-every-option', { rows: ALL_ROWS, title: '--help lists every option of the spec', timeoutSeconds: 90 }, async (ctx) => {
  await withDaemonEnv(ctx, async (env) => {
    const res = await runToExit(env.command, ['--help'], env.cwd, START_TIMEOUT_MS);
    if (res.code !== 0) fail(`--help exited with ${res.code ?? res.signal}${res.timedOut ? ' (killed after the time limit)' : ''}: ${tail(res.stderr || res.stdout)}`);
    const text = `${res.stdout}\n${res.stderr}`.replace(/_/g, '-');
    const missing = env.rows.filter((r) => !new RegExp(`--${normalizeName(r.name)}(?![a-z0-9-])`).test(text));
    report(missing.map((r) => ({ row: r.id, message: `${r.name} is not in the --help text` })), '--help');
  });
});

check('daemon-options.defaults', { rows: ALL_ROWS, title: 'every option left out shows the default of the spec in /configz', timeoutSeconds: 150 }, async (ctx) => {
  await withDaemonEnv(ctx, async (env) => {
    const problems: Problem[] = [];
    // Everything at its default except where the API is: the daemon then serves on 0.0.0.0:10252 itself.
    // If that port is taken here, --port and --address are given and their defaults read from --help.
    const defaultPortFree = await portIsFree(DEFAULT_PORT);
    const configured = new Set(['--xconfig', ...(defaultPortFree ? [] : ['--port', '--address'])]);
    const args = [`--xconfig=${env.kubeconfigPath}`, ...(defaultPortFree ? [] : ['--address=127.0.0.1', `--port=${env.port}`])];
    const config = await configzOf(env, args, '127.0.0.1', defaultPortFree ? DEFAULT_PORT : env.port, 'started with defaults');
    // A second daemon with --master instead shows the default of --xconfig.
    const config2 = await configzOf(env, [`--master=${env.masterUrl}`, '--address=127.0.0.1', `--port=${env.port}`], '127.0.0.1', env.port, 'started with --master');
    const help = defaultPortFree ? '' : (await runToExit(env.command, ['--help'], env.cwd, START_TIMEOUT_MS)).stdout;
    for (const row of env.rows) {
      if (NOT_IN_CONFIGZ.has(row.name)) continue; // --version: the daemon ran instead of printing its version, as it should
      const source = row.name === '--xconfig' ? config2 : configured.has(row.name) ? undefined : config;
      const want = expectedDefault(row);
      if (!source) {
        if (!new RegExp(`--${normalizeName(row.name)}[^\\n]*default ${String(want).replace(/\./g, '\\.')}`).test(help.replace(/_/g, '-'))) {
          problems.push({ row: row.id, message: `port ${DEFAULT_PORT} is busy here, and --help does not show "default ${String(want)}"` });
        }
        continue;
      }
      const entry = configEntry(source, row.name);
      if (!entry.found) problems.push({ row: row.id, message: `not in /configz` });
      else if (!sameValue(row.type, want, entry.value)) problems.push({ row: row.id, message: `default shown as ${JSON.stringify(entry.value)}, spec says ${JSON.stringify(want)}` });
    }
    report(problems, 'defaults');
  });
});

check('daemon-options.valid-values', { rows: ALL_ROWS, title: 'generated valid values for every option are accepted and shown in /configz', timeoutSeconds: 120 }, async (ctx) => {
  await withDaemonEnv(ctx, async (env) => {
    const byName = new Map(env.rows.map((r) => [r.name, r]));
    await ctx.forAll(
      validAssignment(env.rows, env),
      async (values: OptionValue[]) => {
        const address = values.find((v) => v.option === '--address')?.expected === '0.0.0.0' ? '127.0.0.1' : String(values.find((v) => v.option === '--address')?.expected ?? '127.0.0.1');
        const config = await configzOf(env, values.map((v) => v.arg), address, env.port, 'started with a valid value for every option');
        const problems: Problem[] = [];
        for (const v of values) {
          const row = byName.get(v.option)!;
          const entry = configEntry(config, v.option);
          if (!entry.found) problems.push({ row: row.id, message: `not in /configz (set as ${v.arg})` });
          else if (!sameValue(row.type, v.expected, entry.value)) problems.push({ row: row.id, message: `${v.arg} shown as ${JSON.stringify(entry.value)}, expected ${JSON.stringify(v.expected)}` });
        }
        report(problems, 'valid values');
      },
      { numRuns: 3 },
    );
    // --version prints the version and exits 0, bare or with =true.
    const version = byName.get('--version');
    if (version) {
      for (const a of ['--version', '--version=true']) {
        const res = await runToExit(env.command, [a], env.cwd, START_TIMEOUT_MS);
        if (res.code !== 0 || res.stdout.trim() === '') report([{ row: version.id, message: `${a} exited with ${res.code ?? res.signal} and printed ${JSON.stringify(tail(res.stdout, 80))}` }], '--version');
      }
    }
  });
});

check('daemon-options.invalid-values', { rows: ALL_ROWS, title: 'generated invalid values make the daemon exit non-zero naming the option', timeoutSeconds: 180 }, async (ctx) => {
  await withDaemonEnv(ctx, async (env) => {
    // One case per option that has any (plain strings accept every value), picked with the check's seed.
    const cases: InvalidCase[] = [];
    env.rows.forEach((row, i) => {
      const all = invalidCases(row, env.rows);
      if (all.length) cases.push(fc.sample(fc.constantFrom(...all), { seed: ctx.fc.seed + i, numRuns: 1 })[0]);
    });
    const ports = await Promise.all(cases.map(() => freePort()));
    // Each refusal is a process that spends much of its life waiting (module loading crosses to the loader thread
    // and back): 8 at a time on 2 cores finished the 62 refusals in 38-55 s where 3 at a time took 62-82 s (same
    // seed, same CPU time, 2 cores at load 20-30, 2026-11-23).
    // Fewer at once when other work already keeps the cores busy (the load average per core): the machine's free
    // capacity, not its core count, says how many can start side by side.
    const perCore = loadavg()[0] / availableParallelism();
    const width = Math.max(2, Math.min(8, Math.round((availableParallelism() * 4) / Math.max(1, perCore))));
    const problems = await pool(cases, width, async (c): Promise<Problem | undefined> => {
      const row = env.rows.find((r) => r.name === c.option)!;
      const port = ports[cases.indexOf(c)];
      const base = [
        ...(c.option === '--master' ? [] : [`--master=${env.masterUrl}`]),
        ...(c.option === '--address' ? [] : ['--address=127.0.0.1']),
        ...(c.option === '--port' ? [] : [`--port=${port}`]),
      ];
      const args = [...base, ...c.args];
      const p = new DaemonProcess(env.command, args, env.cwd);
      try {
        const out = await waitForConfigz(p, '127.0.0.1', port, START_TIMEOUT_MS);
        if (out.kind === 'serving') return { row: row.id, message: `${c.args.join(' ')} (${c.why}) was accepted: the daemon started` };
        if (out.kind === 'timeout') return { row: row.id, message: `${c.args.join(' ')} (${c.why}): the daemon neither exited nor served within ${START_TIMEOUT_MS / 1000} s` };
        if (out.exit.code === 0) return { row: row.id, message: `${c.args.join(' ')} (${c.why}): exited with 0` };
        const output = `${p.stdout}\n${p.stderr}`;
        if (!namesOption(output, c.option)) return { row: row.id, message: `${c.args.join(' ')} (${c.why}): exited with ${out.exit.code ?? out.exit.signal} but the message does not name ${c.option}: ${tail(output, 200)}` };
        return undefined;
      } finally {
        await p.stop();
      }
    });
    report(problems.filter((p): p is Problem => p !== undefined), 'invalid values');
  });
});
