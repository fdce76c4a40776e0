// The controller daemon's controllers, feature gates and credential options (spec 1.9, 5, 8.2), checked on the
// daemon named by --daemon-cmd against a simulator of its own (never the target, like daemon-options):
// - which controllers a --controllers value selects (on by default: all but bootstrapsigner and tokencleaner),
//   as /configz and the daemon's start log show it. The log is read in the two wordings known (per-controller
//   lines 'Started "x"' / '"x" is disabled' / 'Skipping "x"' of the 1.9 daemon, or lists "enabled controllers:
//   ..." / "disabled controllers: ..."); a daemon whose output says neither is skipped with that reason;
// - every feature gate with the stage and default of the spec in --help, and all of them set to the other value
//   at once accepted and shown in /configz;
// - the client-config file option finds the API, --master overrides the file's address, the cloud credential
//   options are accepted: seen through a controller acting on the simulator (a new namespace gets its default
//   ServiceAccount from the serviceaccount controller).

import { createHmac, randomBytes, verify, X509Certificate, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { loadSpecTables, type ControllerRow, type FeatureGateRow } from '../spec-tables/index.ts';
import { check, type CheckContext } from './harness/check.ts';
import { expectTrue, fail } from './harness/expect.ts';
import { daemonCommand } from './cli/daemon-command.ts';
import { DaemonProcess, freePort, runToExit, waitForConfigz } from './daemon/daemon-process.ts';
import { componentConfig, configEntry, sameValue } from './daemon/option-values.ts';
import { certificateRequest, writeDaemonPki } from './daemon/pki.ts';
import { busyScaled, sleep, within } from './harness/progress.ts';
import type { KubeObject } from '../simulator/api/meta.ts';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const TABLES = loadSpecTables();
/**
 * How long a daemon may take to serve /configz (or exit). A start takes about a second on idle cores; several
 * daemons starting side by side on a loaded machine took over 30 s. Generous, since only a broken daemon waits it out.
 */
const START_TIMEOUT_MS = 60_000;
/** How long the start log may take to name every controller once /configz serves. */
const LOG_MS = 10_000;

interface Env {
  command: string;
  cwd: string;
  masterUrl: string;
  dir: string;
  controllers: readonly ControllerRow[];
  gates: readonly FeatureGateRow[];
  kubeconfig(server: string): string;
  /** Plain HTTP to this check's simulator (no authentication). */
  api: Http;
  /** Nodes whose kubelet is the check; stopped when the check's environment closes. */
  kubelets(): FakeKubelets;
}

/**
 * How many checks of this file have a simulator and daemons at once. Every check is concurrent (they mostly
 * wait), but their simulators, fake kubelets and the checks share this process's event loop: with all 17 at once
 * on a loaded machine, heartbeats and timed observations of the node and cloud checks slipped by seconds. Slots
 * are taken in the order the checks start (the file's order), so a check's turn finds it running.
 */
const ENV_SLOTS = 6;
let freeSlots = ENV_SLOTS;
const slotQueue: Array<() => void> = [];

async function withSlot<T>(fn: () => Promise<T>): Promise<T> {
  if (freeSlots > 0) freeSlots--;
  else await new Promise<void>((resolve) => slotQueue.push(resolve));
  try {
    return await fn();
  } finally {
    const next = slotQueue.shift();
    if (next) next();
    else freeSlots++;
  }
}

async function withEnv(ctx: CheckContext, fn: (env: Env) => Promise<void>): Promise<void> {
  return withSlot(() => withOwnEnv(ctx, fn));
}

async function withOwnEnv(ctx: CheckContext, fn: (env: Env) => Promise<void>): Promise<void> {
  const tables = loadSpecTables({ vendor: ctx.vendor });
  const { startSimulator } = await import('../simulator/cluster.ts');
  const sim = await startSimulator({ port: 0, host: '127.0.0.1', vendor: ctx.vendor });
  const dir = mkdtempSync(join(tmpdir(), 'daemon-controllers-'));
  let n = 0;
  const api = http(sim.url);
  const fakes: FakeKubelets[] = [];
  try {
    const { command, isDefault } = daemonCommand();
    await fn({
      api,
      kubelets() {
        const k = new FakeKubelets(api);
        fakes.push(k);
        return k;
      },
      command,
      cwd: isDefault ? REPO_ROOT : process.cwd(),
      masterUrl: sim.url,
      dir,
      controllers: tables.controllers,
      gates: tables.featureGates,
      kubeconfig(server: string) {
        const path = join(dir, `kubeconfig-${++n}`);
        writeFileSync(
          path,
          `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: ${server}\nusers:\n- name: u\n  user: {}\ncontexts:\n- name: c\n  context:\n    cluster: c\n    user: u\ncurrent-context: c\n`,
        );
        return path;
      },
    });
  } finally {
    for (const k of fakes) k.close();
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const tail = (text: string, n = 400) => (text.length > n ? `...${text.slice(-n)}` : text).trim();

/**
 * Starts a daemon on a free port and runs `fn` while it serves /configz; stops it after. A port another check's
 * daemon took in between (this daemon then exits, unable to bind) means: again on another port, within the
 * time budget.
 */
async function withDaemon<T>(
  env: Env,
  args: string[],
  what: string,
  fn: (config: Record<string, unknown>, p: DaemonProcess, configz: Record<string, unknown>) => Promise<T>,
): Promise<T> {
  const master = args.find((a) => a.startsWith('--master='))?.slice('--master='.length);
  // Only our daemon talks to this check's own simulator.
  const isOurs = (configz: Record<string, unknown>) => {
    const config = componentConfig(configz);
    const shown = config ? configEntry(config, '--master') : { found: false };
    const norm = (u: unknown) => String(u).replace(/\/+$/, '');
    return master === undefined || !shown.found || typeof shown.value !== 'string' || norm(shown.value) === norm(master);
  };
  const started = Date.now();
  for (;;) {
    const port = await freePort();
    const all = ['--address=127.0.0.1', `--port=${port}`, ...args];
    const p = new DaemonProcess(env.command, all, env.cwd);
    try {
      const out = await waitForConfigz(p, '127.0.0.1', port, START_TIMEOUT_MS, isOurs);
      if (out.kind !== 'serving') {
        const output = `${p.stdout}\n${p.stderr}`;
        if (out.kind === 'exited' && /address already in use|EADDRINUSE/i.test(output) && Date.now() - started < START_TIMEOUT_MS) continue;
        const how = out.kind === 'exited' ? `exited with ${out.exit.code ?? out.exit.signal}` : `did not serve /configz within ${START_TIMEOUT_MS / 1000} s`;
        fail(`${what}: the daemon ${how}: ${tail(output)}\n  command: ${env.command} ${all.join(' ')}`);
      }
      const config = componentConfig(out.configz);
      if (!config) fail(`${what}: /configz has no component configuration object: ${JSON.stringify(out.configz).slice(0, 200)}`);
      return await fn(config, p, out.configz);
    } finally {
      await p.stop();
    }
  }
}

export interface ControllersRun {
  config: Record<string, unknown>;
  p: DaemonProcess;
  configz: Record<string, unknown>;
}

/** 'started "x"' (this daemon) / 'Started "x"' (1.9) / 'Starting "x"'; 'not starting "x": why' / 'Skipping "x"'. */
export function startLogOf(output: string, name: string): { started: boolean; refused?: string } {
  const q = `["']${escape(name)}["']`;
  const refused = new RegExp(`(?:not starting|skipping) ${q}:?\\s*([^\\n]*)`, 'i').exec(output);
  if (refused) return { started: false, refused: refused[1].trim() || 'no reason given' };
  return { started: new RegExp(`\\b(started|starting) ${q}`, 'i').test(output) };
}

/**
 * The block every loop check starts with: the daemon under test on this check's simulator (--master), without
 * leader election, running only `controllers`, with `flags`; `fn` runs once the start log says each of those
 * controllers started (a daemon whose log says nothing of them gets LOG_MS) and `settleMs` more for their
 * first passes (informers listed). A controller the daemon says it did not start fails the check with its
 * reason, charged to `rows` (all of the check's rows when absent), unless named in `mayNotStart`.
 */
async function withControllers<T>(
  env: Env,
  controllers: string | readonly string[],
  flags: readonly string[],
  what: string,
  fn: (run: ControllersRun) => Promise<T>,
  opts: { settleMs?: number; rows?: string[]; mayNotStart?: string[] } = {},
): Promise<T> {
  const names = typeof controllers === 'string' ? controllers.split(',') : [...controllers];
  const args = [`--master=${env.masterUrl}`, '--leader-elect=false', `--controllers=${names.join(',')}`, ...flags];
  return withDaemon(env, args, what, async (config, p, configz) => {
    const output = () => `${p.stdout}\n${p.stderr}`;
    const said = (n: string) => {
      const s = startLogOf(output(), n);
      return s.started || s.refused !== undefined;
    };
    await within(LOG_MS, async () => (names.every(said) ? true : undefined), 100);
    for (const n of names) {
      const s = startLogOf(output(), n);
      if (s.refused !== undefined && !opts.mayNotStart?.includes(n))
        fail(`${what}: the daemon did not start "${n}": ${s.refused}\n  command: ${env.command} ${args.join(' ')}`, opts.rows);
    }
    await sleep(opts.settleMs ?? 1_500);
    return fn({ config, p, configz });
  });
}

export type Selection = Map<string, 'enabled' | 'disabled' | 'both'>;

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** What the daemon's output says about each controller name (absent: it says nothing about it). */
export function readSelection(output: string, names: readonly string[]): Selection {
  const sel: Selection = new Map();
  const mark = (name: string, state: 'enabled' | 'disabled') => {
    const prev = sel.get(name);
    sel.set(name, prev && prev !== state ? 'both' : state);
  };
  for (const m of output.matchAll(/\b(enabled|disabled) controllers:\s*([^\n]*)/gi)) {
    const state = m[1].toLowerCase() as 'enabled' | 'disabled';
    for (const word of m[2].split(/[\s,]+/)) if (names.includes(word)) mark(word, state);
  }
  for (const name of names) {
    const q = `["']${escape(name)}["']`;
    if (new RegExp(`${q} is disabled`, 'i').test(output)) mark(name, 'disabled');
    if (new RegExp(`\\b(started|starting|skipping|not starting) ${q}`, 'i').test(output)) mark(name, 'enabled');
  }
  return sel;
}

/** The controllers a --controllers value selects (spec 8.2: * = all on by default, name, -name). */
export function expectedSelection(value: readonly string[], controllers: readonly ControllerRow[]): Set<string> {
  const on = new Set<string>();
  const star = value.includes('*');
  for (const c of controllers) {
    if (value.includes(`-${c.name}`)) continue;
    if (value.includes(c.name) || (star && c.enabledByDefault)) on.add(c.name);
  }
  return on;
}

const CONTROLLER_ROWS = TABLES.controllers.map((c) => c.id);

check(
  'daemon-controllers.selection',
  {
    rows: [...CONTROLLER_ROWS, 'rule.daemon.named-controllers', 'option.controllers'],
    title: '--controllers selects controllers as the spec says (default: all but bootstrapsigner and tokencleaner), shown in /configz and the start log',
    timeoutSeconds: 150,
    concurrent: true,
  },
  async (ctx) => {
    await withEnv(ctx, async (env) => {
      const names = env.controllers.map((c) => c.name);
      const onByDefault = env.controllers.filter((c) => c.enabledByDefault).map((c) => c.name);
      // Three selections: the default, * with the off-by-default ones on and some others off, and an explicit list.
      const [dropped, picked] = fc.sample(
        fc.tuple(fc.subarray(onByDefault, { minLength: 1, maxLength: 4 }), fc.subarray(names, { minLength: 1, maxLength: 4 })),
        { seed: ctx.fc.seed, numRuns: 1 },
      )[0];
      const cases: Array<{ value: string[] | undefined; what: string }> = [
        { value: undefined, what: 'default --controllers' },
        { value: ['*', 'bootstrapsigner', 'tokencleaner', ...dropped.map((n) => `-${n}`)], what: '' },
        { value: picked, what: '' },
      ];
      const problems: Array<{ row: string; message: string }> = [];
      let saidNothing = 0;
      await Promise.all(
        cases.map(async (c) => {
          const label = c.value ? `--controllers=${c.value.join(',')}` : 'no --controllers';
          const args = [`--master=${env.masterUrl}`, '--leader-elect=false', ...(c.value ? [`--controllers=${c.value.join(',')}`] : [])];
          await withDaemon(env, args, label, async (config, p) => {
            const entry = configEntry(config, '--controllers');
            const shown = c.value ?? ['*'];
            if (!entry.found || !sameValue('stringSlice', shown, entry.value))
              problems.push({
                row: 'option.controllers',
                message: `${label}: /configz shows ${JSON.stringify(entry.value)}, expected ${JSON.stringify(shown)}`,
              });
            const want = expectedSelection(shown, env.controllers);
            const sel = (await within(LOG_MS, async () => {
              const s = readSelection(`${p.stdout}\n${p.stderr}`, names);
              return s.size === names.length ? s : undefined;
            })) ?? readSelection(`${p.stdout}\n${p.stderr}`, names);
            if (sel.size === 0) {
              saidNothing++;
              return;
            }
            const row = (n: string) => env.controllers.find((x) => x.name === n)!.id;
            for (const n of names) {
              const got = sel.get(n);
              const expected = want.has(n) ? 'enabled' : 'disabled';
              if (got === undefined)
                problems.push({
                  row: row(n),
                  message: `${label}: the start log does not say whether ${n} runs (it names ${sel.size} of ${names.length} controllers)`,
                });
              else if (got !== expected) problems.push({ row: row(n), message: `${label}: the start log shows ${n} ${got}, expected ${expected}` });
            }
            const extra = [...`${p.stdout}\n${p.stderr}`.matchAll(/\benabled controllers:\s*([^\n]*)/gi)]
              .flatMap((m) => m[1].split(/[\s,]+/))
              .filter((w) => w && !names.includes(w));
            if (extra.length)
              problems.push({
                row: 'rule.daemon.named-controllers',
                message: `${label}: the daemon runs controllers the spec does not list: ${extra.join(', ')}`,
              });
          });
        }),
      );
      if (saidNothing === cases.length && problems.every((p) => p.row === 'option.controllers')) {
        if (problems.length) fail(problems.map((p) => `${p.row}: ${p.message}`).join('\n'), ['option.controllers']);
        ctx.skip(
          "the daemon's output says nothing about which controllers run (neither 'Started \"x\"' / '\"x\" is disabled' lines nor enabled/disabled lists)",
        );
      }
      if (problems.length) {
        const lines = problems.slice(0, 20).map((p) => `  ${p.row}: ${p.message}`);
        fail(`${problems.length} problem(s) with the controller selection:\n${lines.join('\n')}`, [...new Set(problems.map((p) => p.row))]);
      }
    });
  },
);

const GATE_ROWS = TABLES.featureGates.map((g) => g.id);

/** "Name=true|false (STAGE - default=x)" as the 1.9 --help prints gates; the stage is left out for GA gates. */
export function gateHelpProblem(help: string, gate: FeatureGateRow): string | undefined {
  const line = help.split('\n').find((l) => new RegExp(`(^|[\\s,])${escape(gate.name)}=true\\|false\\b`).test(l));
  if (!line) return `${gate.name}=true|false is not in --help`;
  const m = /\((?:(alpha|beta|ga)\s*-\s*)?default=(true|false)\)/i.exec(line.slice(line.indexOf(`${gate.name}=`)));
  if (!m) return `--help shows ${gate.name} without "(stage - default=...)": ${line.trim()}`;
  const stage = m[1]?.toLowerCase() ?? null;
  if ((gate.stage ?? null) !== stage && !(gate.stage === null && stage === 'ga'))
    return `--help shows ${gate.name} at stage ${stage ?? '(none)'}, spec says ${gate.stage ?? '(none)'}`;
  if (String(gate.default) !== m[2].toLowerCase()) return `--help shows ${gate.name} default=${m[2]}, spec says ${gate.default}`;
  return undefined;
}

check(
  'daemon-controllers.feature-gates',
  {
    rows: [...GATE_ROWS, 'option.feature-gates'],
    title: 'every feature gate is listed with its stage and default in --help, and all of them set against their default at once are accepted and shown in /configz',
    timeoutSeconds: 150,
    concurrent: true,
  },
  async (ctx) => {
    await withEnv(ctx, async (env) => {
      const problems: Array<{ row: string; message: string }> = [];
      const help = await runToExit(env.command, ['--help'], env.cwd, START_TIMEOUT_MS);
      if (help.code !== 0) fail(`--help exited with ${help.code ?? help.signal}: ${tail(help.stderr || help.stdout)}`);
      const text = `${help.stdout}\n${help.stderr}`;
      for (const g of env.gates) {
        const p = gateHelpProblem(text, g);
        if (p) problems.push({ row: g.id, message: p });
      }
      const flipped = Object.fromEntries(env.gates.map((g) => [g.name, !g.default]));
      const arg = `--feature-gates=${Object.entries(flipped).map(([k, v]) => `${k}=${v}`).join(',')}`;
      await withControllers(env, 'serviceaccount', [arg], 'every gate set against its default', async ({ config, configz }) => {
        const entry = configEntry(config, '--feature-gates');
        if (!entry.found) problems.push({ row: 'option.feature-gates', message: '/configz has no feature gates entry' });
        else {
          const shown = (entry.value ?? {}) as Record<string, unknown>;
          for (const g of env.gates)
            if (shown[g.name] !== flipped[g.name])
              problems.push({ row: g.id, message: `/configz shows ${g.name}=${JSON.stringify(shown[g.name])} after ${g.name}=${flipped[g.name]}` });
        }
        // Where /configz also describes each gate (stage, default, state), it must agree with the spec.
        const described = configz.featureGates as Record<string, { enabled?: unknown; stage?: unknown; default?: unknown }> | undefined;
        if (described && typeof described === 'object') {
          for (const g of env.gates) {
            const d = described[g.name];
            if (!d) continue;
            if (d.default !== undefined && d.default !== g.default)
              problems.push({ row: g.id, message: `/configz describes ${g.name} with default ${JSON.stringify(d.default)}, spec says ${g.default}` });
            if (
              d.stage !== undefined &&
              String(d.stage || '').toLowerCase() !== String(g.stage ?? '').toLowerCase() &&
              !(g.stage === null && String(d.stage).toLowerCase() === 'ga')
            )
              problems.push({ row: g.id, message: `/configz describes ${g.name} at stage ${JSON.stringify(d.stage)}, spec says ${g.stage}` });
            if (d.enabled !== undefined && d.enabled !== flipped[g.name])
              problems.push({ row: g.id, message: `/configz shows ${g.name} enabled=${JSON.stringify(d.enabled)} after ${g.name}=${flipped[g.name]}` });
          }
        }
      });
      if (problems.length) {
        const lines = problems.slice(0, 20).map((p) => `  ${p.row}: ${p.message}`);
        fail(`${problems.length} problem(s) with feature gates:\n${lines.join('\n')}`, [...new Set(problems.map((p) => p.row))]);
      }
    });
  },
);

/** Waits until the default ServiceAccount of a new namespace exists on the simulator (the serviceaccount controller acted). */
async function serviceAccountAppears(masterUrl: string, ns: string, ms: number): Promise<boolean> {
  const created = await fetch(`${masterUrl}/api/v1/namespaces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }),
  });
  await created.body?.cancel();
  if (![200, 201, 202].includes(created.status)) fail(`setup: creating namespace ${ns} on the daemon's simulator answered ${created.status}`);
  return (
    (await within(ms, async () => {
      const res = await fetch(`${masterUrl}/api/v1/namespaces/${ns}/serviceaccounts/default`);
      await res.body?.cancel();
      return res.status === 200 ? true : undefined;
    })) ?? false
  );
}

check(
  'daemon-controllers.client-config-and-master',
  {
    rows: ['auth.daemon.client-config', 'auth.daemon.master-overrides', 'auth.daemon.cloud-credentials', 'rule.daemon.control-loops', 'controller.serviceaccount', 'option.xconfig', 'option.master'],
    title: 'the daemon reaches the API through the client-config file, --master overrides the file, the cloud credential options are accepted',
    timeoutSeconds: 150,
    concurrent: true,
  },
  async (ctx) => {
    await withEnv(ctx, async (env) => {
      const cred = join(env.dir, 'cloud-credentials.json');
      writeFileSync(cred, '{}\n');
      // No controller acts on this simulator yet: a new namespace stays without a ServiceAccount.
      const probe = await fetch(`${env.masterUrl}/api/v1/namespaces/default/serviceaccounts/default`);
      await probe.body?.cancel();
      // Whether the daemon acts at all: stretched on a busy machine.
      const bound = busyScaled(30_000);
      // 1. Only the client-config file names the API (plus the cloud credential options).
      const cloud = [`--cloud-a-container-registry-config=${cred}`, `--cloud-b-json-key=${cred}`];
      await withDaemon(env, [`--xconfig=${env.kubeconfig(env.masterUrl)}`, '--leader-elect=false', '--controllers=serviceaccount', ...cloud], '--xconfig only', async (config) => {
        for (const [opt, row] of [
          ['--cloud-a-container-registry-config', 'auth.daemon.cloud-credentials'],
          ['--cloud-b-json-key', 'auth.daemon.cloud-credentials'],
        ] as const) {
          const e = configEntry(config, opt);
          expectTrue(e.found && e.value === cred, `/configz shows ${opt}=${cred} (got ${JSON.stringify(e.value)})`, row);
        }
        const ok = await serviceAccountAppears(env.masterUrl, `xconfig-${ctx.fc.seed % 100000}`, bound);
        expectTrue(
          ok,
          `with only --xconfig naming the API, the daemon's serviceaccount controller gave a new namespace its default ServiceAccount within ${bound / 1000} s`,
          ['auth.daemon.client-config', 'rule.daemon.control-loops', 'controller.serviceaccount', 'option.xconfig'],
        );
      });
      // 2. The file names an address where nothing listens; --master names the API and wins.
      const dead = `http://127.0.0.1:${await freePort()}`;
      await withDaemon(env, [`--xconfig=${env.kubeconfig(dead)}`, `--master=${env.masterUrl}`, '--leader-elect=false', '--controllers=serviceaccount'], '--xconfig naming a dead address and --master', async () => {
        const ok = await serviceAccountAppears(env.masterUrl, `master-${ctx.fc.seed % 100000}`, bound);
        expectTrue(
          ok,
          `with --xconfig naming ${dead} and --master naming the API, the daemon acted on the API within ${bound / 1000} s (a new namespace got its default ServiceAccount)`,
          ['auth.daemon.master-overrides', 'option.master'],
        );
      });
    });
  },
);

// ---------------------------------------------------------------------------------------------------------
// Nodes, networking and the cloud (spec 8.2): the node, ttl, service and route loops of the daemon under
// test, observed through the API of the simulator the check starts. The check itself plays the kubelets: it
// creates Nodes, posts their heartbeats (Ready=True, lastHeartbeatTime now) and stops them, so the checks do
// not depend on this project's simulated nodes and apply to any daemon.

interface Http {
  get(path: string): Promise<KubeObject | undefined>;
  list(path: string): Promise<KubeObject[]>;
  send(method: string, path: string, body?: unknown, type?: string): Promise<{ status: number; body: unknown }>;
}

function http(base: string): Http {
  const send = async (method: string, path: string, body?: unknown, type = 'application/json') => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': type },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON
    }
    return { status: res.status, body: parsed };
  };
  return {
    send,
    async get(path) {
      const r = await send('GET', path);
      return r.status === 200 ? (r.body as KubeObject) : undefined;
    },
    async list(path) {
      const r = await send('GET', path);
      return r.status === 200 ? ((r.body as { items?: KubeObject[] }).items ?? []) : [];
    },
  };
}

const nowText = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');
const readyOf = (n: KubeObject | undefined) =>
  ((n?.status as { conditions?: Array<{ type: string; status: string; reason?: string }> } | undefined)?.conditions ?? []).find((c) => c.type === 'Ready');
const conditionOfNode = (n: KubeObject | undefined, type: string) =>
  ((n?.status as { conditions?: Array<{ type: string; status: string; reason?: string }> } | undefined)?.conditions ?? []).find((c) => c.type === type);

/**
 * Nodes whose "kubelet" is this check: heartbeats every 250 ms until stopped. Heartbeat times are whole seconds,
 * so a node controller sees a new one about once a second; `lastChange` is when the check sent the last heartbeat
 * carrying a new time (the controller cannot have seen it earlier), the reference for "no heartbeat since": on a
 * loaded machine this process may stall for seconds, so the moment a check stops a kubelet is not it.
 * `setReady(name, false)` has the kubelet report NotReady from now on (a transition at a moment the check
 * chooses, the same for several nodes at once, whatever the heartbeat timing).
 */
class FakeKubelets {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly since = nowText();
  private readonly sent = new Map<string, { text: string; at: number }>();
  private readonly ready = new Map<string, { status: string; since: string }>();
  constructor(private readonly api: Http) {}

  async add(name: string, labels: Record<string, string> = {}, heartbeat = true): Promise<void> {
    const r = await this.api.send('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name, labels } });
    if (r.status !== 201 && r.status !== 200) fail(`setup: creating node ${name} answered ${r.status}`);
    if (!heartbeat) return;
    await this.beat(name);
    const t = setInterval(() => void this.beat(name).catch(() => {}), 250);
    this.timers.set(name, t);
  }

  /** When the last heartbeat with a new time was sent (epoch ms), undefined before any. */
  lastChange(name: string): number | undefined {
    return this.sent.get(name)?.at;
  }

  /** From now on the node's kubelet reports Ready=True or False (transition time now); sent at once. */
  async setReady(name: string, ready: boolean): Promise<void> {
    this.ready.set(name, { status: ready ? 'True' : 'False', since: nowText() });
    await this.beat(name);
  }

  private async beat(name: string): Promise<void> {
    const heartbeat = nowText();
    const ready = this.ready.get(name) ?? { status: 'True', since: this.since };
    const c = (type: string, status: string, reason: string, since = this.since) => ({
      type,
      status,
      reason,
      message: 'posted by the check',
      lastHeartbeatTime: heartbeat,
      lastTransitionTime: since,
    });
    const at = Date.now();
    await this.api.send(
      'PATCH',
      `/api/v1/nodes/${name}/status`,
      {
        status: {
          conditions: [
            c('Ready', ready.status, ready.status === 'True' ? 'KubeletReady' : 'KubeletNotReady', ready.since),
            c('MemoryPressure', 'False', 'KubeletHasSufficientMemory'),
            c('DiskPressure', 'False', 'KubeletHasNoDiskPressure'),
          ],
        },
      },
      'application/strategic-merge-patch+json',
    );
    if (this.sent.get(name)?.text !== heartbeat) this.sent.set(name, { text: heartbeat, at });
  }

  stop(name: string): void {
    clearInterval(this.timers.get(name));
    this.timers.delete(name);
  }

  close(): void {
    for (const t of this.timers.values()) clearInterval(t);
    this.timers.clear();
  }
}

/** A Running, Ready pod bound to the node (status posted as a kubelet would). */
async function runningPod(api: Http, ns: string, name: string, node: string, extra: Record<string, unknown> = {}): Promise<void> {
  const r = await api.send('POST', `/api/v1/namespaces/${ns}/pods`, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { nodeName: node, containers: [{ name: 'c', image: 'nginx:1.13' }], ...extra },
  });
  if (r.status !== 201) fail(`setup: creating pod ${name} answered ${r.status}: ${JSON.stringify(r.body).slice(0, 200)}`);
  const ts = nowText();
  await api.send(
    'PATCH',
    `/api/v1/namespaces/${ns}/pods/${name}/status`,
    { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: ts }] } },
    'application/merge-patch+json',
  );
}

async function namespaceFor(api: Http, prefix: string): Promise<string> {
  const ns = `${prefix}-${Math.random().toString(36).slice(2, 7)}`;
  const r = await api.send('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  if (r.status !== 201) fail(`setup: creating namespace ${ns} answered ${r.status}`);
  return ns;
}

/** Polls until probe holds; the time it was first seen, or undefined after ms. */
async function seenAt(ms: number, probe: () => Promise<boolean>): Promise<number | undefined> {
  return within(ms, async () => ((await probe()) ? Date.now() : undefined), 50);
}

const evictedAt = async (api: Http, ns: string, pod: string, ms: number) => (await eviction(api, ns, pod, ms)).seen;

/**
 * When the check first saw the pod being deleted (epoch ms, undefined: not within ms), and the deletionTimestamp
 * the server wrote (epoch ms of whole seconds, minus the pod's grace period, which is the same for every pod of
 * a check): the moment of the DELETE by the server's clock, a witness that a stall of this process cannot move.
 */
async function eviction(api: Http, ns: string, pod: string, ms: number): Promise<{ seen?: number; written?: number }> {
  let written: number | undefined;
  const seen = await seenAt(ms, async () => {
    const p = await api.get(`/api/v1/namespaces/${ns}/pods/${pod}`);
    if (p?.metadata.deletionTimestamp) {
      const grace = (p.metadata as { deletionGracePeriodSeconds?: number }).deletionGracePeriodSeconds ?? 0;
      written = Date.parse(p.metadata.deletionTimestamp) - grace * 1000;
    }
    return p === undefined || p.metadata.deletionTimestamp != null;
  });
  return { seen, written: Number.isFinite(written) ? written : undefined };
}

/**
 * Whether evictions happened at a rate: by the check's sightings (rate within [min, max] nodes/s over the span
 * from first to last) or by the deletionTimestamps the server wrote (whole seconds: a span of s seconds is
 * written as s-1 to s+1). Either witness will do: a stall of this process squeezes or stretches the sightings,
 * and a daemon that gets a fraction of a core may send a DELETE late and the next one on time, but a daemon that
 * evicts all at once (or at the default rate) shows that in both.
 */
function evictionRate(
  times: Array<{ seen?: number; written?: number }>,
  min: number,
  max: number,
): { ok: boolean; text: string } {
  const spanOf = (xs: Array<number | undefined>) =>
    xs.every((x) => x !== undefined) ? Math.max(...(xs as number[])) - Math.min(...(xs as number[])) : undefined;
  const gaps = times.length - 1;
  const seenSpan = spanOf(times.map((t) => t.seen));
  const writtenSpan = spanOf(times.map((t) => t.written));
  const seenRate = seenSpan === undefined ? undefined : gaps / (seenSpan / 1000);
  // A span s is written as s-1..s+1 whole seconds: a rate in [min, max] writes a span in [gaps/max - 1, gaps/min + 1].
  const writtenOk = writtenSpan !== undefined && writtenSpan / 1000 >= gaps / max - 1 && writtenSpan / 1000 <= gaps / min + 1;
  const seenOk = seenRate !== undefined && seenRate >= min && seenRate <= max;
  const text = `${seenRate === undefined ? 'not all seen' : `${seenRate.toFixed(2)} nodes/s as seen`}, deletionTimestamps ${writtenSpan === undefined ? 'not all seen' : `${writtenSpan / 1000} s apart`}`;
  return { ok: seenOk || writtenOk, text };
}

check(
  'daemon-controllers.node-lifecycle',
  {
    rows: [
      'controller.node',
      'option.node-monitor-period',
      'option.node-monitor-grace-period',
      'option.node-startup-grace-period',
      'option.pod-eviction-timeout',
    ],
    title:
      'node: a node without heartbeats goes Unknown after the grace period (one never heard of after the startup grace), its pods unready, then evicted after the eviction timeout; markings follow the monitor period',
    timeoutSeconds: 150,
    concurrent: true,
  },
  async (ctx) => {
    await withEnv(ctx, async (env) => {
      const { api } = env;
      const kubelets = env.kubelets();
      for (const n of ['nl-a', 'nl-b', 'nl-c']) await kubelets.add(n);
      const ns = await namespaceFor(api, 'nodelife');
      await runningPod(api, ns, 'p', 'nl-a');
      // A grace period of 16 heartbeats (a healthy node stays Ready through a stall of this process); the
      // eviction timeout beyond it, so that the eviction is not the marking's.
      const grace = 4_000;
      const startup = 2_000;
      const timeout = 6_000;
      const flags = [
        '--node-monitor-period=200ms',
        `--node-monitor-grace-period=${grace}ms`,
        `--node-startup-grace-period=${startup}ms`,
        `--pod-eviction-timeout=${timeout}ms`,
        // Evictions are rate-limited per zone, one node per token, a node without pods too: at the default 0.1 nodes
        // per second nl-silent (Unknown first, after the startup grace) took the token and the pod of nl-a waited
        // 10 s more for the next, 16-23 s after its last heartbeat. Here only the timeout is judged (the rate has
        // checks of its own).
        '--node-eviction-rate=10',
      ];
      await withControllers(env, 'node', flags, 'node lifecycle', async () => {
        const t0 = Date.now();
        kubelets.stop('nl-a');
        await kubelets.add('nl-silent', {}, false);
        // Upper bounds stretched on a busy machine (the daemon under test gets a fraction of a core), never as far as
        // the defaults (40 s, 1 min, 5 min).
        const late = {
          grace: grace + Math.min(30_000, busyScaled(15_000)),
          startup: startup + Math.min(45_000, busyScaled(15_000)),
          timeout: timeout + busyScaled(15_000),
        };
        const [unknown, never, evicted] = await Promise.all([
          seenAt(late.grace + 5_000, async () => readyOf(await api.get('/api/v1/nodes/nl-a'))?.status === 'Unknown'),
          seenAt(late.startup + 5_000, async () => readyOf(await api.get('/api/v1/nodes/nl-silent'))?.status === 'Unknown'),
          evictedAt(api, ns, 'p', late.timeout + 5_000),
        ]);
        // Measured from the last heartbeat with a new time that the check sent (the controller cannot have seen
        // one later), not from the stop: this process may have stalled before it. A node that never posted
        // status counts from its creation (after t0; creationTimestamp has whole seconds). The upper bounds allow
        // a loaded machine many seconds and still tell the values set from the defaults (40 s, 1 min, 5 min).
        const last = kubelets.lastChange('nl-a') ?? t0;
        const after = (at: number | undefined, from: number) => (at === undefined ? 'never' : `${at - from} ms`);
        expectTrue(
          unknown !== undefined && unknown - last >= grace - 300 && unknown - last <= late.grace,
          `with --node-monitor-grace-period=${grace}ms a node whose heartbeats stopped went Unknown ${after(unknown, last)} after its last new heartbeat`,
          ['option.node-monitor-grace-period', 'controller.node'],
        );
        expectTrue(
          never !== undefined && never - t0 >= startup - 1_200 && never - t0 <= late.startup,
          `with --node-startup-grace-period=${startup}ms a node that never posted status went Unknown ${after(never, t0)} after its creation`,
          ['option.node-startup-grace-period'],
        );
        const pod = await api.get(`/api/v1/namespaces/${ns}/pods/p`);
        const podReady = ((pod?.status as { conditions?: Array<{ type: string; status: string }> } | undefined)?.conditions ?? []).find(
          (c) => c.type === 'Ready',
        );
        expectTrue(pod === undefined || podReady?.status === 'False', `the failed node's pod is not Ready (Ready=${podReady?.status})`, ['controller.node']);
        expectTrue(
          evicted !== undefined && evicted - last >= timeout - 300 && evicted - last <= late.timeout,
          `with --pod-eviction-timeout=${timeout}ms the pod of the failed node was evicted ${after(evicted, last)} after the node's last new heartbeat`,
          ['option.pod-eviction-timeout'],
        );
        expectTrue(readyOf(await api.get('/api/v1/nodes/nl-b'))?.status === 'True', 'a node with heartbeats stays Ready', ['controller.node']);
        // Two failures 2.5 s apart are marked as far apart as their last heartbeats with a 200ms period (the
        // default 5 s would put them on the same pass or 5 s apart, 2.5 s off). Each marking is seen by a poll of
        // its own; on a loaded machine a stall of this process may delay one sighting, so the Ready conditions'
        // transition times the controller wrote (whole seconds) are a second witness of the same gap. A daemon
        // that gets a fraction of a core may still notice one of the two seconds late: then the check measures
        // again on two fresh nodes (up to 3 pairs within a time budget). A 5 s period is off on every pair.
        const gapOf = async (bName: string, cName: string) => {
          kubelets.stop(bName);
          const b = seenAt(grace + busyScaled(20_000), async () => readyOf(await api.get(`/api/v1/nodes/${bName}`))?.status === 'Unknown');
          await sleep(2_500);
          kubelets.stop(cName);
          const c = await seenAt(grace + busyScaled(20_000), async () => readyOf(await api.get(`/api/v1/nodes/${cName}`))?.status === 'Unknown');
          const bAt = await b;
          const expected = (kubelets.lastChange(cName) ?? 0) - (kubelets.lastChange(bName) ?? 0);
          const seenGap = bAt !== undefined && c !== undefined ? c - bAt : undefined;
          const transition = async (n: string) => Date.parse((readyOf(await api.get(`/api/v1/nodes/${n}`)) as { lastTransitionTime?: string } | undefined)?.lastTransitionTime ?? '');
          const writtenGap = (await transition(cName)) - (await transition(bName));
          // Seen: within 1.2 s; written (whole seconds, so up to 1 s off): less than 1 s off. A 5 s period marks
          // 0 or 5 s apart where the heartbeats were 2-3 s apart: at least 2 s off seen, more than 1 s written.
          const near = (gap: number | undefined, slack: number) => gap !== undefined && Number.isFinite(gap) && Math.abs(gap - expected) < slack;
          return {
            ok: near(seenGap, 1_200) || near(writtenGap, 1_000),
            text: `last heartbeats ${expected} ms apart, marked Unknown ${seenGap === undefined ? 'not both' : `${seenGap} ms apart`} (transition times ${writtenGap} ms apart)`,
          };
        };
        const attempts = [await gapOf('nl-b', 'nl-c')];
        const budgetEnds = Date.now() + busyScaled(40_000);
        for (let i = 1; i < 3 && !attempts.some((a) => a.ok) && Date.now() < budgetEnds; i++) {
          const [bName, cName] = [`nl-b${i}`, `nl-c${i}`];
          await kubelets.add(bName);
          await kubelets.add(cName);
          // Both seen Ready with heartbeats changing before they stop.
          await within(busyScaled(10_000), async () =>
            (await Promise.all([bName, cName].map(async (n) => readyOf(await api.get(`/api/v1/nodes/${n}`))?.status === 'True'))).every(Boolean) || undefined,
          );
          await sleep(1_500);
          attempts.push(await gapOf(bName, cName));
        }
        expectTrue(
          attempts.some((a) => a.ok),
          `with --node-monitor-period=200ms pairs of nodes whose heartbeats stopped 2.5 s apart were marked Unknown as far apart as their last heartbeats on none of ${attempts.length} tries: ${attempts.map((a) => a.text).join('; ')}`,
          ['option.node-monitor-period'],
        );
      });
    });
  },
);

/**
 * Has the kubelets of `failed` of the nodes (one pod each) report NotReady at once under a daemon with these flags;
 * eviction times after that (undefined: not within waitMs). NotReady rather than silence: all of them turn at the
 * moment the check chooses, where stopped heartbeats would be noticed up to a second apart (whole-second heartbeat
 * times) or more on a loaded machine, and a zone would be judged with some of them still Ready. A grace period of
 * 40 s (the default) keeps every node with heartbeats Ready through a stall of this process.
 */
async function evictionRun(
  env: Env,
  api: Http,
  kubelets: FakeKubelets,
  names: { all: string[]; failed: string[] },
  flags: string[],
  waitMs: number,
  what: string,
): Promise<Array<{ seen?: number; written?: number }>> {
  const ns = await namespaceFor(api, 'evict');
  for (const n of names.all) await runningPod(api, ns, `p-${n}`, n);
  // The nodes fail before the daemon starts: its first pass sees all of them NotReady at once, and the zone's
  // state is judged on all of them. Failed while it runs, a daemon on a loaded machine may see one failure
  // seconds before the others and, rightly, evict it with the zone still Normal: a race the check would lose.
  await Promise.all(names.failed.map((n) => kubelets.setReady(n, false)));
  return withControllers(env, 'node', ['--node-monitor-period=100ms', '--node-monitor-grace-period=40s', '--pod-eviction-timeout=2500ms', ...flags], what, async () => {
    const t0 = Date.now();
    const times = await Promise.all(names.failed.map((n) => eviction(api, ns, `p-${n}`, waitMs)));
    return times.map((t) => ({ seen: t.seen === undefined ? undefined : t.seen - t0, written: t.written === undefined ? undefined : t.written - t0 }));
  });
}

check(
  'daemon-controllers.node-eviction-rate',
  {
    rows: ['controller.node', 'option.node-eviction-rate'],
    title: 'node: 3 failed nodes of 8 are evicted at --node-eviction-rate nodes per second',
    timeoutSeconds: 150,
    concurrent: true,
  },
  async (ctx) => {
    await withEnv(ctx, async (env) => {
      const { api } = env;
      const kubelets = env.kubelets();
      const all = Array.from({ length: 8 }, (_, i) => `er-${i}`);
      for (const n of all) await kubelets.add(n);
      const times = await evictionRun(
        env,
        api,
        kubelets,
        { all, failed: ['er-1', 'er-3', 'er-5'] },
        ['--node-eviction-rate=0.5'],
        busyScaled(40_000),
        '--node-eviction-rate=0.5',
      );
      const seen = times.map((t) => t.seen);
      expectTrue(seen.every((t) => t !== undefined), `every failed node's pod was evicted (${seen.join(', ')} ms)`, ['controller.node']);
      // A loaded machine only ever spaces evictions further apart; the default (0.1) would be 0.1 at most.
      const rate = evictionRate(times, 0.2, 0.8);
      expectTrue(
        rate.ok,
        `with --node-eviction-rate=0.5, 3 nodes were evicted at ${rate.text} (seen ${seen.join(', ')} ms after the daemon was up)`,
        ['option.node-eviction-rate'],
      );
    });
  },
);

check(
  'daemon-controllers.node-zone-disruption',
  {
    rows: ['controller.node', 'option.unhealthy-zone-threshold', 'option.large-cluster-size-threshold', 'option.secondary-node-eviction-rate'],
    title:
      'node: a zone with 3 of 4 nodes failed evicts nothing at or below --large-cluster-size-threshold, at --secondary-node-eviction-rate above it, normally when --unhealthy-zone-threshold is not reached',
    timeoutSeconds: 180,
    concurrent: true,
  },
  async (ctx) => {
    await withEnv(ctx, async (env) => {
      const { api } = env;
      const zone = { 'failure-domain.beta.kubernetes.io/region': 'r', 'failure-domain.beta.kubernetes.io/zone': 'r-a' };
      // Each run gets fresh nodes (the earlier ones stay failed and are left out of the new zone by a new zone label).
      const run = async (tag: string, flags: string[], waitMs: number) => {
        const kubelets = env.kubelets();
        try {
          const all = [0, 1, 2, 3].map((i) => `zd-${tag}-${i}`);
          for (const n of all) await kubelets.add(n, { ...zone, 'failure-domain.beta.kubernetes.io/zone': `r-${tag}` });
          return await evictionRun(env, api, kubelets, { all, failed: all.slice(0, 3) }, flags, waitMs, flags.join(' '));
        } finally {
          kubelets.close(); // the next run's daemon sees no heartbeats of these
        }
      };
      // (The pod eviction timeout is 2.5 s: 9 s without an eviction is a zone judged disrupted, however busy.)
      const small = (await run('small', ['--node-eviction-rate=100'], 9_000)).map((t) => t.seen);
      expectTrue(
        small.every((t) => t === undefined),
        `3 of 4 nodes failed in a zone of 4 (<= --large-cluster-size-threshold 50): nothing evicted (got ${small.join(', ')})`,
        ['option.large-cluster-size-threshold', 'option.unhealthy-zone-threshold'],
      );
      const secondary = await run('large', ['--node-eviction-rate=100', '--large-cluster-size-threshold=3', '--secondary-node-eviction-rate=0.5'], busyScaled(20_000));
      const seen = secondary.map((t) => t.seen);
      // Slower on a loaded machine, never faster; the default secondary rate (0.01) evicts one in 100 s, the normal one (100) all at once.
      const rate = evictionRate(secondary, 0.15, 0.8);
      expectTrue(
        seen.every((t) => t !== undefined) && rate.ok,
        `--large-cluster-size-threshold=3 --secondary-node-eviction-rate=0.5: evicted at ${rate.text} (seen ${seen.join(', ')} ms after the daemon was up)`,
        ['option.large-cluster-size-threshold', 'option.secondary-node-eviction-rate'],
      );
      const normal = (await run('normal', ['--node-eviction-rate=100', '--unhealthy-zone-threshold=0.9'], busyScaled(12_000))).map((t) => t.seen);
      expectTrue(
        normal.every((t) => t !== undefined),
        `--unhealthy-zone-threshold=0.9 (3 of 4 is below it): evicted at the normal rate (${normal.join(', ')} ms)`,
        ['option.unhealthy-zone-threshold'],
      );
    });
  },
);

check(
  'daemon-controllers.node-ipam-and-ttl',
  {
    rows: [
      'controller.node',
      'controller.ttl',
      'option.allocate-node-cidrs',
      'option.cluster-cidr',
      'option.node-cidr-mask-size',
      'option.service-cluster-ip-range',
      'option.cidr-allocator-type',
    ],
    title:
      'node IPAM gives distinct /--node-cidr-mask-size blocks of --cluster-cidr outside --service-cluster-ip-range, CIDRNotAvailable when full; ttl annotates nodes',
    timeoutSeconds: 150,
    concurrent: true,
  },
  async (ctx) => {
    await withEnv(ctx, async (env) => {
      const { api } = env;
      // 10.123.4.0/24 in /26 blocks = 4; the service range 10.123.4.0/25 takes two: 2 blocks for 3 nodes.
      const flags = [
        '--allocate-node-cidrs',
        '--cluster-cidr=10.123.4.0/24',
        '--node-cidr-mask-size=26',
        '--service-cluster-ip-range=10.123.4.0/25',
        '--cidr-allocator-type=RangeAllocator',
      ];
      await withControllers(env, 'node,ttl', flags, 'node IPAM', async ({ p }) => {
        const kubelets = env.kubelets();
        for (const n of ['ip-0', 'ip-1', 'ip-2']) await kubelets.add(n);
        const cidrs = await within(busyScaled(30_000), async () => {
          const got = (await api.list('/api/v1/nodes')).map((n) => (n.spec as { podCIDR?: string } | undefined)?.podCIDR).filter(Boolean) as string[];
          return got.length >= 2 ? got.sort() : undefined;
        });
        expectTrue(
          JSON.stringify(cidrs) === JSON.stringify(['10.123.4.128/26', '10.123.4.192/26']),
          `the nodes got ${JSON.stringify(cidrs)}, expected the two /26 blocks of 10.123.4.0/24 outside 10.123.4.0/25${cidrs ? '' : ` (daemon output: ${tail(`${p.stdout}\n${p.stderr}`, 1200)})`}`,
          ['option.allocate-node-cidrs', 'option.cluster-cidr', 'option.node-cidr-mask-size', 'option.service-cluster-ip-range', 'option.cidr-allocator-type'],
        );
        const full = await within(
          30_000,
          async () =>
            ((await api.list('/api/v1/namespaces/default/events')) as Array<KubeObject & { reason?: string; involvedObject?: { kind?: string } }>).some(
              (e) => e.reason === 'CIDRNotAvailable' && e.involvedObject?.kind === 'Node',
            ) || undefined,
        );
        expectTrue(full === true, 'the third node got a CIDRNotAvailable event (no block left)', ['option.node-cidr-mask-size', 'controller.node']);
        const ttl = await within(busyScaled(30_000), async () =>
          (await api.list('/api/v1/nodes')).every((n) => n.metadata.annotations?.['node.alpha.kubernetes.io/ttl'] === '0') ? true : undefined,
        );
        expectTrue(ttl === true, 'ttl: every node of a 3-node cluster has node.alpha.kubernetes.io/ttl "0"', ['controller.ttl']);
      });
    });
  },
);

type LbEvent = KubeObject & { reason?: string; count?: number; firstTimestamp?: string; lastTimestamp?: string; involvedObject?: { name?: string } };

/** The Events of a namespace about its Services (the service controller's), each the latest state of one. */
async function serviceEvents(api: Http, ns: string): Promise<LbEvent[]> {
  return ((await api.list(`/api/v1/namespaces/${ns}/events`)) as LbEvent[]).filter((e) => (e as { involvedObject?: { kind?: string } }).involvedObject?.kind === 'Service');
}

check(
  'daemon-controllers.cloud',
  {
    rows: [
      'controller.service', 'controller.route', 'option.cloud-provider', 'option.cloud-config', 'option.service-sync-period', 'option.concurrent-service-syncs',
      'option.route-reconciliation-period', 'option.configure-cloud-routes', 'option.cloud-a-container-registry-config', 'option.cloud-b-json-key', 'auth.daemon.cloud-credentials',
    ],
    title: 'the simulated cloud: LoadBalancer ingress from the --cloud-config pool (synced each --service-sync-period, --concurrent-service-syncs at once), routes (NetworkUnavailable=False) only with --configure-cloud-routes, bad cloud files and unknown providers refused',
    timeoutSeconds: 180,
    concurrent: true,
  },
  async (ctx) => {
    await withEnv(ctx, async (env) => {
      const { api } = env;
      const json = join(env.dir, 'key.json');
      writeFileSync(json, '{"type": "service_account"}\n');
      const badJson = join(env.dir, 'bad.json');
      writeFileSync(badJson, '{not json\n');
      const badConfig = join(env.dir, 'bad-cloud.yaml');
      writeFileSync(badConfig, 'loadBalancerPool: 17\n');
      // Refusals first: unknown provider, malformed --cloud-config, malformed credential files.
      const refusals: Array<{ args: string[]; names: RegExp; row: string[] }> = [
        { args: ['--cloud-provider=no-such-cloud'], names: /unknown cloud provider/, row: ['option.cloud-provider'] },
        { args: ['--cloud-provider=simulated', `--cloud-config=${badConfig}`], names: /--cloud-config/, row: ['option.cloud-config'] },
        {
          args: [`--cloud-a-container-registry-config=${badJson}`],
          names: /--cloud-a-container-registry-config/,
          row: ['option.cloud-a-container-registry-config', 'auth.daemon.cloud-credentials'],
        },
        {
          args: [`--cloud-b-json-key=${join(env.dir, 'absent.json')}`],
          names: /--cloud-b-json-key/,
          row: ['option.cloud-b-json-key', 'auth.daemon.cloud-credentials'],
        },
      ];
      const pool = join(env.dir, 'cloud.yaml');
      writeFileSync(pool, 'loadBalancerPool: [203.0.113.50, 203.0.113.51, 203.0.113.52]\nloadBalancerProvisionSeconds: 1\n');
      // A daemon without the simulated cloud (a real one) cannot show its cloud loops here: skipped, saying so.
      // The probe and the refusals are separate processes, started side by side.
      const probing = (async () => {
        const probe = new DaemonProcess(
          env.command,
          [
            `--master=${env.masterUrl}`,
            '--leader-elect=false',
            '--address=127.0.0.1',
            `--port=${await freePort()}`,
            '--controllers=ttl',
            '--cloud-provider=simulated',
            `--cloud-config=${pool}`,
          ],
          env.cwd,
        );
        try {
          await within(START_TIMEOUT_MS, async () => (probe.exit !== undefined || /cloud provider/.test(`${probe.stdout}${probe.stderr}`) ? true : undefined));
          return /unknown cloud provider/.test(`${probe.stdout}\n${probe.stderr}`);
        } finally {
          await probe.stop();
        }
      })();
      const refused = await Promise.all(
        refusals.map((r) => runToExit(env.command, [`--master=${env.masterUrl}`, '--leader-elect=false', '--port=0', ...r.args], env.cwd, START_TIMEOUT_MS)),
      );
      const noCloud = await probing;
      refusals.forEach((r, i) => {
        const res = refused[i];
        expectTrue(
          res.code !== 0 && r.names.test(`${res.stdout}\n${res.stderr}`),
          `${r.args.join(' ')}: the daemon ${res.code === 0 ? 'exited 0' : `exited ${res.code ?? res.signal}`} ${r.names.test(`${res.stdout}\n${res.stderr}`) ? 'naming the problem' : `without naming ${r.names}: ${tail(res.stderr || res.stdout, 200)}`}`,
          r.row,
        );
      });
      if (noCloud) ctx.skip('the daemon under test has no "simulated" cloud provider, so its cloud loops cannot be observed here');
      const kubelets = env.kubelets();
      for (const n of ['cl-0', 'cl-1']) await kubelets.add(n);
      const flags = [
        '--cloud-provider=simulated',
        `--cloud-config=${pool}`,
        '--allocate-node-cidrs',
        '--cluster-cidr=10.124.0.0/16',
        '--route-reconciliation-period=300ms',
        '--service-sync-period=500ms',
        '--concurrent-service-syncs=3',
        `--cloud-a-container-registry-config=${json}`,
        `--cloud-b-json-key=${json}`,
      ];
      const ns = await namespaceFor(api, 'lb');
      const svc = (name: string) => ({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name },
        spec: { type: 'LoadBalancer', ports: [{ port: 80 }], selector: { app: name } },
      });
      const ingress = (s: KubeObject | undefined) =>
        (s?.status as { loadBalancer?: { ingress?: Array<{ ip?: string }> } } | undefined)?.loadBalancer?.ingress?.[0]?.ip;
      // The three Services exist before the daemon starts: its first list hands all of them to its workers at
      // once, so how many it provisions side by side does not depend on how fast this process could create them.
      for (const n of ['a', 'b', 'c']) await api.send('POST', `/api/v1/namespaces/${ns}/services`, svc(n));
      await withControllers(env, 'node,service,route', flags, 'the simulated cloud', async () => {
        const lbsReady = within(busyScaled(30_000), async () => {
          const ips = (await api.list(`/api/v1/namespaces/${ns}/services`)).map(ingress);
          return ips.length === 3 && ips.every(Boolean) ? (ips as string[]).sort() : undefined;
        });
        const routed = await within(busyScaled(30_000), async () =>
          (
            await Promise.all(
              ['cl-0', 'cl-1'].map(async (n) => conditionOfNode(await api.get(`/api/v1/nodes/${n}`), 'NetworkUnavailable')?.reason === 'RouteCreated'),
            )
          ).every(Boolean)
            ? true
            : undefined,
        );
        expectTrue(routed === true, 'route: both nodes got NetworkUnavailable=False (RouteCreated) once their pod ranges were routed', [
          'controller.route',
          'option.route-reconciliation-period',
          'option.configure-cloud-routes',
          'option.cloud-provider',
          'option.cloud-a-container-registry-config',
          'option.cloud-b-json-key',
          'auth.daemon.cloud-credentials',
        ]);
        const ips = await lbsReady;
        expectTrue(
          JSON.stringify(ips) === JSON.stringify(['203.0.113.50', '203.0.113.51', '203.0.113.52']),
          `LoadBalancer Services got the pool's addresses: ${JSON.stringify(ips ?? (await api.list(`/api/v1/namespaces/${ns}/services`)).map(ingress))}`,
          ['controller.service', 'option.cloud-config'],
        );
        // Side by side or one after the other, by the daemon's own clock: the service controller's events
        // CreatingLoadBalancer (when a worker starts a Service) and CreatedLoadBalancer (when its 1 s of
        // provisioning is over), whole seconds. Three workers start all three before the first is done: the last
        // start is stamped no later than the first end. One worker starts c 2 s after a, 1 s after a ended.
        const lbEvents = await serviceEvents(api, ns);
        const stamp = (reason: string) => lbEvents.filter((e) => e.reason === reason).map((e) => Date.parse(e.firstTimestamp ?? ''));
        const starts = stamp('CreatingLoadBalancer');
        const ends = stamp('CreatedLoadBalancer');
        expectTrue(
          starts.length === 3 && ends.length === 3 && [...starts, ...ends].every(Number.isFinite) && Math.max(...starts) <= Math.min(...ends),
          `--concurrent-service-syncs=3: 3 load balancers of 1 s each were started at ${starts.map((t) => new Date(t).toISOString().slice(11, 19)).join(', ')} and done at ${ends.map((t) => new Date(t).toISOString().slice(11, 19)).join(', ')} (events CreatingLoadBalancer / CreatedLoadBalancer; side by side: every start no later than the first end)`,
          ['option.concurrent-service-syncs'],
        );
        // The pool is empty: d waits, and the daemon tries it again every --service-sync-period (500 ms) after
        // each failed attempt (1 s of provisioning), not after a back-off of 5 s, then 10 s: its
        // CreatingLoadBalancerFailed event, by the daemon's clock, counts 3 attempts within a few seconds (the
        // back-off: 17 s). Then a goes and d gets the freed address.
        await api.send('POST', `/api/v1/namespaces/${ns}/services`, svc('d'));
        const failedOf = async () => (await serviceEvents(api, ns)).find((e) => e.involvedObject?.name === 'd' && e.reason === 'CreatingLoadBalancerFailed');
        const retried = await within(busyScaled(15_000), async () => ((((await failedOf())?.count ?? 0) >= 3 ? await failedOf() : undefined)));
        const retrySpan = retried ? (Date.parse(retried.lastTimestamp ?? '') - Date.parse(retried.firstTimestamp ?? '')) / 1000 : undefined;
        expectTrue(
          retried !== undefined && retrySpan !== undefined && retrySpan <= 10,
          `--service-sync-period=500ms: a Service waiting for a free address was tried ${retried ? `${retried.count} times within ${retrySpan} s` : `${(await failedOf())?.count ?? 0} times within ${busyScaled(15_000) / 1000} s`} (event CreatingLoadBalancerFailed; a back-off alone: 3 tries take 17 s)`,
          ['option.service-sync-period'],
        );
        const freed = ingress(await api.get(`/api/v1/namespaces/${ns}/services/a`));
        await api.send('DELETE', `/api/v1/namespaces/${ns}/services/a`);
        const got = await seenAt(busyScaled(10_000), async () => ingress(await api.get(`/api/v1/namespaces/${ns}/services/d`)) === freed);
        expectTrue(got !== undefined, `a waiting Service got the address freed by a deleted one (${freed}) within ${busyScaled(10_000) / 1000} s`, [
          'controller.service',
          'option.service-sync-period',
        ]);
      });
      // --configure-cloud-routes=false: new nodes get ranges but no route (no NetworkUnavailable condition).
      for (const n of ['cr-0']) await kubelets.add(n);
      // (The route controller may say it does not start: the 1.9 daemon skips it then.)
      const noRoutes = [
        '--cloud-provider=simulated',
        `--cloud-config=${pool}`,
        '--allocate-node-cidrs',
        '--cluster-cidr=10.125.0.0/16',
        '--route-reconciliation-period=300ms',
        '--configure-cloud-routes=false',
      ];
      await withControllers(env, 'node,route', noRoutes, '--configure-cloud-routes=false', async () => {
        const ranged = await within(busyScaled(30_000), async () => ((await api.get('/api/v1/nodes/cr-0'))?.spec as { podCIDR?: string } | undefined)?.podCIDR);
        await sleep(1_500);
        const cond = conditionOfNode(await api.get('/api/v1/nodes/cr-0'), 'NetworkUnavailable');
        expectTrue(
          ranged !== undefined && cond === undefined,
          `--configure-cloud-routes=false: the node got a range (${ranged}) and no route (NetworkUnavailable ${JSON.stringify(cond)})`,
          ['option.configure-cloud-routes'],
        );
      }, { mayNotStart: ['route'] });
    });
  },
);

check(
  'daemon-controllers.taint-manager',
  {
    rows: ['controller.node', 'option.enable-taint-manager', 'gate.TaintBasedEvictions', 'gate.TaintNodesByCondition'],
    title: 'node: --enable-taint-manager evicts pods not tolerating a NoExecute taint (not when off); TaintBasedEvictions taints a failed node unreachable; TaintNodesByCondition taints by conditions',
    timeoutSeconds: 150,
    concurrent: true,
  },
  async (ctx) => {
    await withEnv(ctx, async (env) => {
      const { api } = env;
      const kubelets = env.kubelets();
      const taintsOf = async (n: string) =>
        ((await api.get(`/api/v1/nodes/${n}`))?.spec as { taints?: Array<{ key: string; effect: string }> } | undefined)?.taints ?? [];
      const gone = async (ns: string, p: string) => {
        const pod = await api.get(`/api/v1/namespaces/${ns}/pods/${p}`);
        return pod === undefined || pod.metadata.deletionTimestamp != null;
      };
      const tolerateForever = { tolerations: [{ key: 'dedicated', operator: 'Exists', effect: 'NoExecute' }] };
      for (const n of ['tm-a', 'tm-d']) await kubelets.add(n);
      await kubelets.add('tm-c', {}, false);
      const ns = await namespaceFor(api, 'taints');
      await runningPod(api, ns, 'plain', 'tm-a');
      await runningPod(api, ns, 'tolerant', 'tm-a', tolerateForever);
      await runningPod(api, ns, 'on-d', 'tm-d');
      const flags = [
        '--enable-taint-manager=true',
        '--feature-gates=TaintBasedEvictions=true,TaintNodesByCondition=true',
        '--node-monitor-period=200ms',
        // Long enough that no node with heartbeats goes Unknown in a stall of this process (its taint would evict "tolerant").
        '--node-monitor-grace-period=8s',
        '--pod-eviction-timeout=1h',
      ];
      await withControllers(env, 'node', flags, 'taint manager on', async () => {
        await api.send(
          'PATCH',
          '/api/v1/nodes/tm-a',
          { spec: { taints: [{ key: 'dedicated', value: 'x', effect: 'NoExecute' }] } },
          'application/merge-patch+json',
        );
        const evicted = await within(busyScaled(30_000), async () => ((await gone(ns, 'plain')) ? true : undefined));
        expectTrue(evicted === true, '--enable-taint-manager=true: a pod not tolerating a NoExecute taint of its node was evicted', [
          'option.enable-taint-manager',
          'controller.node',
        ]);
        expectTrue(!(await gone(ns, 'tolerant')), 'a pod tolerating the taint (no tolerationSeconds) stays', ['option.enable-taint-manager']);
        const ts = nowText();
        await api.send(
          'PATCH',
          '/api/v1/nodes/tm-c/status',
          {
            status: {
              conditions: [
                { type: 'MemoryPressure', status: 'True', reason: 'Check', message: 'set by the check', lastHeartbeatTime: ts, lastTransitionTime: ts },
              ],
            },
          },
          'application/strategic-merge-patch+json',
        );
        const pressure = await within(busyScaled(30_000), async () =>
          (await taintsOf('tm-c')).some((t) => t.key === 'node.kubernetes.io/memory-pressure' && t.effect === 'NoSchedule') ? true : undefined,
        );
        expectTrue(pressure === true, 'TaintNodesByCondition: MemoryPressure=True gave the node the node.kubernetes.io/memory-pressure:NoSchedule taint', [
          'gate.TaintNodesByCondition',
        ]);
        kubelets.stop('tm-d');
        const unreachable = await within(busyScaled(30_000), async () =>
          (await taintsOf('tm-d')).some((t) => t.key === 'node.alpha.kubernetes.io/unreachable' && t.effect === 'NoExecute') ? true : undefined,
        );
        const dEvicted = await within(busyScaled(30_000), async () => ((await gone(ns, 'on-d')) ? true : undefined));
        expectTrue(
          unreachable === true && dEvicted === true,
          `TaintBasedEvictions: the failed node got the unreachable:NoExecute taint (${unreachable === true}) and its pod was evicted by it despite a 1 h eviction timeout (${dEvicted === true})`,
          ['gate.TaintBasedEvictions'],
        );
      });
      await kubelets.add('tm-e');
      await runningPod(api, ns, 'kept', 'tm-e');
      await withControllers(env, 'node', ['--enable-taint-manager=false', '--node-monitor-period=200ms'], 'taint manager off', async () => {
        await api.send(
          'PATCH',
          '/api/v1/nodes/tm-e',
          { spec: { taints: [{ key: 'dedicated', value: 'x', effect: 'NoExecute' }] } },
          'application/merge-patch+json',
        );
        await sleep(3_000);
        expectTrue(!(await gone(ns, 'kept')), '--enable-taint-manager=false: a pod not tolerating a NoExecute taint stays', ['option.enable-taint-manager']);
      });
    });
  },
);

// ---------------------------------------------------------------------------------------------------------
// Identities and certificates (spec 5, 8.2): service-account tokens, bootstrap tokens, certificate requests and
// role aggregation, observed through the API of the check's simulator. Keys and CAs are made by the check
// (daemon/pki.ts) and handed to the daemon as files, so that what the daemon issues can be verified with
// material only the check and the files know.

const b64url = (s: string) => Buffer.from(s, 'base64url');
const dataOf = (o: KubeObject | undefined, key: string) => {
  const v = (o as { data?: Record<string, string> } | undefined)?.data?.[key];
  return typeof v === 'string' ? v : undefined;
};

/** The problems of a service-account JWT against the key, account and Secret it should carry (1.9 legacy claims). */
export function serviceAccountTokenProblems(
  jwt: string,
  publicKey: KeyObject,
  account: { namespace: string; name: string; uid: string },
  secretName: string,
): string[] {
  const parts = jwt.split('.');
  if (parts.length !== 3) return [`the token is not a compact JWS (${parts.length} parts)`];
  let header: { alg?: string };
  let claims: Record<string, unknown>;
  try {
    header = JSON.parse(b64url(parts[0]).toString('utf8')) as { alg?: string };
    claims = JSON.parse(b64url(parts[1]).toString('utf8')) as Record<string, unknown>;
  } catch {
    return ['the token header or claims are not base64url JSON'];
  }
  const problems: string[] = [];
  const algs: Record<string, string> = { RS256: 'sha256', ES256: 'sha256', ES384: 'sha384', ES512: 'sha512' };
  const digest = algs[header.alg ?? ''];
  if (!digest) problems.push(`header alg ${JSON.stringify(header.alg)} is not one of ${Object.keys(algs).join(', ')}`);
  else {
    const ok = verify(
      digest,
      Buffer.from(`${parts[0]}.${parts[1]}`),
      header.alg!.startsWith('ES') ? { key: publicKey, dsaEncoding: 'ieee-p1363' } : publicKey,
      b64url(parts[2]),
    );
    if (!ok) problems.push(`the ${header.alg} signature does not verify with the public key of --service-account-private-key-file`);
  }
  const want: Record<string, string> = {
    iss: 'kubernetes/serviceaccount',
    sub: `system:serviceaccount:${account.namespace}:${account.name}`,
    'kubernetes.io/serviceaccount/namespace': account.namespace,
    'kubernetes.io/serviceaccount/secret.name': secretName,
    'kubernetes.io/serviceaccount/service-account.name': account.name,
    'kubernetes.io/serviceaccount/service-account.uid': account.uid,
  };
  for (const [k, v] of Object.entries(want)) if (claims[k] !== v) problems.push(`claim ${k} is ${JSON.stringify(claims[k])}, expected ${JSON.stringify(v)}`);
  return problems;
}

check(
  'daemon-controllers.serviceaccount-token',
  {
    rows: ['controller.serviceaccount-token', 'option.service-account-private-key-file', 'option.root-ca-file', 'option.concurrent-serviceaccount-token-syncs'],
    title: 'serviceaccount-token: every ServiceAccount gets a token Secret whose JWT verifies with the key file\'s public key and carries the 1.9 claims, ca.crt from --root-ca-file, listed in the account; gone with the account',
    timeoutSeconds: 150,
    concurrent: true,
  },
  async (ctx) => {
    await withEnv(ctx, async (env) => {
      const { api } = env;
      const pki = await writeDaemonPki(env.dir);
      const ns = await namespaceFor(api, 'sat');
      const flags = [
        `--service-account-private-key-file=${pki.serviceAccountKeyFile}`,
        `--root-ca-file=${pki.caCertFile}`,
        '--concurrent-serviceaccount-token-syncs=2',
      ];
      await withControllers(env, 'serviceaccount-token', flags, 'serviceaccount-token', async () => {
        const names = ['robot-a', 'robot-b'];
        for (const n of names) {
          const r = await api.send('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: n } });
          if (r.status !== 201) fail(`setup: creating ServiceAccount ${n} answered ${r.status}`);
        }
        for (const n of names) {
          const found = await within(busyScaled(40_000), async () => {
            const sa = await api.get(`/api/v1/namespaces/${ns}/serviceaccounts/${n}`);
            const listed = ((sa as { secrets?: Array<{ name?: string }> } | undefined)?.secrets ?? []).map((s) => s.name);
            for (const s of await api.list(`/api/v1/namespaces/${ns}/secrets`)) {
              const type = (s as { type?: string }).type;
              if (
                type === 'kubernetes.io/service-account-token' &&
                s.metadata.annotations?.['kubernetes.io/service-account.name'] === n &&
                dataOf(s, 'token') &&
                listed.includes(s.metadata.name)
              )
                return { sa: sa!, secret: s };
            }
            return undefined;
          });
          expectTrue(found, `ServiceAccount ${ns}/${n} got a kubernetes.io/service-account-token Secret with a token, listed in its secrets, within ${busyScaled(40_000) / 1000} s`, [
            'controller.serviceaccount-token',
          ]);
          const { sa, secret } = found;
          expectTrue(
            secret.metadata.annotations?.['kubernetes.io/service-account.uid'] === sa.metadata.uid,
            `the token Secret names the account's uid (${secret.metadata.annotations?.['kubernetes.io/service-account.uid']} vs ${sa.metadata.uid})`,
            ['controller.serviceaccount-token'],
          );
          const jwt = Buffer.from(dataOf(secret, 'token')!, 'base64').toString('utf8');
          const problems = serviceAccountTokenProblems(
            jwt,
            pki.serviceAccountPublicKey,
            { namespace: ns, name: n, uid: sa.metadata.uid ?? '' },
            secret.metadata.name ?? '',
          );
          expectTrue(problems.length === 0, `the token of ${ns}/${n}: ${problems.join('; ')}`, [
            'option.service-account-private-key-file',
            'controller.serviceaccount-token',
          ]);
          const ca = Buffer.from(dataOf(secret, 'ca.crt') ?? '', 'base64').toString('utf8');
          expectTrue(
            ca.trim() === pki.caCertPem.trim(),
            `ca.crt of the token Secret is the --root-ca-file bundle (got ${ca.length} bytes${ca ? `: ${ca.slice(0, 40)}...` : ''})`,
            ['option.root-ca-file'],
          );
          expectTrue(Buffer.from(dataOf(secret, 'namespace') ?? '', 'base64').toString('utf8') === ns, `the token Secret's namespace entry is ${ns}`, [
            'controller.serviceaccount-token',
          ]);
        }
        // The account goes: its token Secret goes with it.
        await api.send('DELETE', `/api/v1/namespaces/${ns}/serviceaccounts/robot-a`);
        const gone = await within(busyScaled(40_000), async () =>
          (await api.list(`/api/v1/namespaces/${ns}/secrets`)).some((s) => s.metadata.annotations?.['kubernetes.io/service-account.name'] === 'robot-a')
            ? undefined
            : true,
        );
        expectTrue(gone, `the token Secret of a deleted ServiceAccount was deleted within ${busyScaled(40_000) / 1000} s`, ['controller.serviceaccount-token']);
      });
    });
  },
);

const bootstrapToken = (id: string, secret: string, extra: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: `bootstrap-token-${id}`, namespace: 'kube-system' },
  type: 'bootstrap.kubernetes.io/token',
  data: Object.fromEntries(Object.entries({ 'token-id': id, 'token-secret': secret, ...extra }).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
});

/** A random bootstrap token id and secret ([a-z0-9]{6} and {16}). */
const tokenPair = () => {
  const pick = (n: number) => Array.from(randomBytes(n), (b) => 'abcdefghijklmnopqrstuvwxyz0123456789'[b % 36]).join('');
  return { id: pick(6), secret: pick(16) };
};

/** Whether a detached-payload JWS ("<header>..<signature>") is HS256 by token id over content with the token secret. */
export function detachedJwsProblem(jws: string, content: string, token: { id: string; secret: string }): string | undefined {
  const parts = jws.split('.');
  if (parts.length !== 3 || parts[1] !== '') return `not a compact JWS with a detached payload: ${JSON.stringify(jws.slice(0, 60))}`;
  let header: { alg?: string; kid?: string };
  try {
    header = JSON.parse(b64url(parts[0]).toString('utf8')) as { alg?: string; kid?: string };
  } catch {
    return 'the JWS header is not base64url JSON';
  }
  if (header.alg !== 'HS256') return `JWS alg ${JSON.stringify(header.alg)}, expected HS256`;
  if (header.kid !== token.id) return `JWS kid ${JSON.stringify(header.kid)}, expected the token id ${token.id}`;
  const mac = createHmac('sha256', token.secret).update(`${parts[0]}.${Buffer.from(content).toString('base64url')}`).digest('base64url');
  return mac === parts[2] ? undefined : 'the signature does not verify with the token secret over the kubeconfig';
}

check(
  'daemon-controllers.bootstrap-tokens',
  {
    rows: ['controller.bootstrapsigner', 'controller.tokencleaner'],
    title: 'bootstrapsigner: cluster-info in kube-public carries a verifying detached JWS per signing token (removed when the token goes); tokencleaner: an expired bootstrap token Secret is deleted, a current one stays',
    timeoutSeconds: 150,
    concurrent: true,
  },
  async (ctx) => {
    await withEnv(ctx, async (env) => {
      const { api } = env;
      const kubeconfig = `apiVersion: v1\nkind: Config\nclusters:\n- name: ""\n  cluster:\n    server: ${env.masterUrl}\n`;
      const cm = await api.send('POST', '/api/v1/namespaces/kube-public/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cluster-info' }, data: { kubeconfig } });
      if (cm.status !== 201) fail(`setup: creating kube-public/cluster-info answered ${cm.status}`);
      const signing = tokenPair();
      const expired = tokenPair();
      const current = tokenPair();
      const future = new Date(Date.now() + 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z');
      const past = new Date(Date.now() - 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z');
      await withControllers(env, 'bootstrapsigner,tokencleaner', [], 'bootstrapsigner and tokencleaner', async () => {
        for (const [t, extra] of [[signing, { 'usage-bootstrap-signing': 'true', expiration: future }], [expired, { expiration: past }], [current, { expiration: future }]] as const) {
          const r = await api.send('POST', '/api/v1/namespaces/kube-system/secrets', bootstrapToken(t.id, t.secret, extra));
          if (r.status !== 201) fail(`setup: creating bootstrap-token-${t.id} answered ${r.status}: ${JSON.stringify(r.body).slice(0, 200)}`);
        }
        const key = `jws-kubeconfig-${signing.id}`;
        const jws = await within(busyScaled(40_000), async () => dataOf(await api.get('/api/v1/namespaces/kube-public/configmaps/cluster-info'), key));
        expectTrue(jws !== undefined, `cluster-info got ${key} within ${busyScaled(40_000) / 1000} s`, ['controller.bootstrapsigner']);
        const problem = detachedJwsProblem(jws, kubeconfig, signing);
        expectTrue(problem === undefined, `${key}: ${problem}`, ['controller.bootstrapsigner']);
        const data = (await api.get('/api/v1/namespaces/kube-public/configmaps/cluster-info')) as { data?: Record<string, string> } | undefined;
        const others = Object.keys(data?.data ?? {}).filter((k) => k.startsWith('jws-kubeconfig-') && k !== key);
        expectTrue(others.length === 0, `only signing tokens sign cluster-info (also found ${others.join(', ')})`, ['controller.bootstrapsigner']);
        const cleaned = await within(busyScaled(40_000), async () => ((await api.get(`/api/v1/namespaces/kube-system/secrets/bootstrap-token-${expired.id}`)) ? undefined : true));
        expectTrue(cleaned, `the expired bootstrap token Secret bootstrap-token-${expired.id} was deleted within ${busyScaled(40_000) / 1000} s`, ['controller.tokencleaner']);
        expectTrue((await api.get(`/api/v1/namespaces/kube-system/secrets/bootstrap-token-${current.id}`)) !== undefined, 'a bootstrap token Secret that has not expired stays', ['controller.tokencleaner']);
        // The signing token goes: its signature goes.
        await api.send('DELETE', `/api/v1/namespaces/kube-system/secrets/bootstrap-token-${signing.id}`);
        const unsigned = await within(busyScaled(40_000), async () => (dataOf(await api.get('/api/v1/namespaces/kube-public/configmaps/cluster-info'), key) === undefined ? true : undefined));
        expectTrue(unsigned, `${key} was removed within ${busyScaled(40_000) / 1000} s of its token's deletion`, ['controller.bootstrapsigner']);
      });
    });
  },
);

check(
  'daemon-controllers.certificates',
  {
    rows: ['controller.csrapproving', 'controller.csrsigning', 'option.cluster-signing-cert-file', 'option.cluster-signing-key-file', 'option.experimental-cluster-signing-duration'],
    title: 'csrapproving approves a node client CSR (and not a server one); csrsigning issues a certificate that verifies against the --cluster-signing-cert-file CA, for the request\'s key and subject, within --experimental-cluster-signing-duration',
    timeoutSeconds: 150,
    concurrent: true,
  },
  async (ctx) => {
    await withEnv(ctx, async (env) => {
      const { api } = env;
      const pki = await writeDaemonPki(env.dir, 'daemon-suite-signer');
      const node = `csr-node-${ctx.fc.seed % 100_000}`;
      const client = await certificateRequest(`CN=system:node:${node}, O=system:nodes`);
      const other = await certificateRequest('CN=web.example.test, O=example', { dnsNames: ['web.example.test'] });
      const csr = (name: string, request: string, usages: string[]) => ({ apiVersion: 'certificates.k8s.io/v1beta1', kind: 'CertificateSigningRequest', metadata: { name }, spec: { request: Buffer.from(request).toString('base64'), usages } });
      const clientName = `${node}-client`;
      const otherName = `${node}-other`;
      const duration = 2 * 3_600_000;
      const flags = [`--cluster-signing-cert-file=${pki.caCertFile}`, `--cluster-signing-key-file=${pki.caKeyFile}`, '--experimental-cluster-signing-duration=2h'];
      await withControllers(env, 'csrapproving,csrsigning', flags, 'csrapproving and csrsigning', async () => {
        for (const [name, body] of [[clientName, csr(clientName, client.pem, ['digital signature', 'key encipherment', 'client auth'])], [otherName, csr(otherName, other.pem, ['digital signature', 'key encipherment', 'server auth'])]] as const) {
          const r = await api.send('POST', '/apis/certificates.k8s.io/v1beta1/certificatesigningrequests', body);
          if (r.status !== 201) fail(`setup: creating CSR ${name} answered ${r.status}: ${JSON.stringify(r.body).slice(0, 300)}`);
        }
        const path = (n: string) => `/apis/certificates.k8s.io/v1beta1/certificatesigningrequests/${n}`;
        type WithConditions = { conditions?: Array<{ type?: string; reason?: string }> };
        const conditions = (o: KubeObject | undefined) => ((o?.status as WithConditions | undefined)?.conditions ?? []);
        const approved = await within(busyScaled(40_000), async () => (conditions(await api.get(path(clientName))).some((c) => c.type === 'Approved') ? true : undefined));
        expectTrue(approved, `the node client CSR (CN=system:node:${node}, O=system:nodes, client auth) was approved within ${busyScaled(40_000) / 1000} s`, ['controller.csrapproving']);
        const certText = await within(
          busyScaled(40_000),
          async () => ((await api.get(path(clientName)))?.status as { certificate?: string } | undefined)?.certificate,
        );
        expectTrue(certText !== undefined, `the approved CSR got status.certificate within ${busyScaled(40_000) / 1000} s`, ['controller.csrsigning']);
        let cert: X509Certificate;
        try {
          cert = new X509Certificate(Buffer.from(certText, 'base64'));
        } catch (e) {
          fail(`status.certificate is not a PEM certificate: ${(e as Error).message}`, ['controller.csrsigning']);
        }
        const ca = new X509Certificate(pki.caCertPem);
        expectTrue(cert.verify(ca.publicKey) && cert.checkIssued(ca), `the issued certificate (issuer ${cert.issuer.replace(/\n/g, ', ')}) verifies against the CA of --cluster-signing-cert-file (${ca.subject})`, ['option.cluster-signing-cert-file', 'option.cluster-signing-key-file', 'controller.csrsigning']);
        expectTrue(/CN=system:node:/.test(cert.subject) && cert.subject.includes(node) && /O=system:nodes/.test(cert.subject), `the certificate's subject is the request's (${cert.subject.replace(/\n/g, ', ')})`, ['controller.csrsigning']);
        expectTrue(cert.publicKey.export({ type: 'spki', format: 'der' }).equals(client.publicKeySpki), 'the certificate carries the request\'s public key', ['controller.csrsigning']);
        const lifetime = Date.parse(cert.validTo) - Date.now();
        expectTrue(lifetime > 0 && lifetime <= duration + 120_000, `--experimental-cluster-signing-duration=2h: the certificate is valid until ${cert.validTo} (${Math.round(lifetime / 60_000)} min from now)`, ['option.experimental-cluster-signing-duration']);
        expectTrue(!conditions(await api.get(path(otherName))).some((c) => c.type === 'Approved'), 'a CSR that is not a node client request (server auth, another subject) is not approved by csrapproving', ['controller.csrapproving']);
      });
    });
  },
);

check(
  'daemon-controllers.clusterrole-aggregation',
  {
    rows: ['controller.clusterrole-aggregation'],
    title: 'clusterrole-aggregation: a ClusterRole with an aggregationRule gets the rules of the ClusterRoles its selectors match, and keeps them in step (a rule added, a label removed)',
    timeoutSeconds: 120,
    concurrent: true,
  },
  async (ctx) => {
    await withEnv(ctx, async (env) => {
      const { api } = env;
      const tag = `agg${ctx.fc.seed % 100_000}`;
      const label = `suite.example.com/aggregate-to-${tag}`;
      const base = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
      const role = (name: string, labels: Record<string, string>, rules: unknown[], aggregationRule?: unknown) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name, labels }, rules, ...(aggregationRule ? { aggregationRule } : {}) });
      const r1 = { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] };
      const r2 = { apiGroups: ['apps'], resources: ['deployments'], verbs: ['watch'] };
      const r3 = { apiGroups: [''], resources: ['secrets'], verbs: ['delete'] };
      const rulesOf = async (name: string) => (((await api.get(`${base}/${name}`)) as { rules?: Array<{ resources?: string[]; verbs?: string[] }> } | undefined)?.rules ?? []);
      const same = (a: string[] | undefined, b: string[]) => JSON.stringify(a) === JSON.stringify(b);
      const has = (rules: Array<{ resources?: string[]; verbs?: string[] }>, r: { resources: string[]; verbs: string[] }) =>
        rules.some((x) => same(x.resources, r.resources) && same(x.verbs, r.verbs));
      await withControllers(env, 'clusterrole-aggregation', [], 'clusterrole-aggregation', async () => {
        for (const body of [role(`${tag}-a`, { [label]: 'true' }, [r1]), role(`${tag}-b`, { [label]: 'true' }, [r2]), role(`${tag}-c`, {}, [r3]), role(`${tag}-all`, {}, [], { clusterRoleSelectors: [{ matchLabels: { [label]: 'true' } }] })]) {
          const r = await api.send('POST', base, body);
          if (r.status !== 201) fail(`setup: creating ClusterRole ${body.metadata.name} answered ${r.status}: ${JSON.stringify(r.body).slice(0, 200)}`);
        }
        const filled = await within(busyScaled(40_000), async () => {
          const rules = await rulesOf(`${tag}-all`);
          return has(rules, r1) && has(rules, r2) ? rules : undefined;
        });
        expectTrue(filled, `the aggregating ClusterRole got the rules of both matching roles within ${busyScaled(40_000) / 1000} s (has ${JSON.stringify(await rulesOf(`${tag}-all`))})`, ['controller.clusterrole-aggregation']);
        expectTrue(!has(filled, r3), 'the rules of a ClusterRole its selector does not match are not aggregated', ['controller.clusterrole-aggregation']);
        // In step: a rule added to a source, a source losing its label.
        await api.send('PATCH', `${base}/${tag}-a`, { rules: [r1, r3] }, 'application/merge-patch+json');
        await api.send('PATCH', `${base}/${tag}-b`, { metadata: { labels: { [label]: null } } }, 'application/merge-patch+json');
        const followed = await within(busyScaled(40_000), async () => {
          const rules = await rulesOf(`${tag}-all`);
          return has(rules, r1) && has(rules, r3) && !has(rules, r2) ? true : undefined;
        });
        expectTrue(followed, `after a rule was added to one source and the other lost its label, the aggregate follows within ${busyScaled(40_000) / 1000} s (has ${JSON.stringify(await rulesOf(`${tag}-all`))})`, ['controller.clusterrole-aggregation']);
      });
    });
  },
);

/** Marks a pod Running and Ready (or not) as its kubelet would. */
async function setPodReady(api: Http, ns: string, name: string, ready: boolean): Promise<void> {
  const ts = nowText();
  await api.send('PATCH', `/api/v1/namespaces/${ns}/pods/${name}/status`, { status: { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: ts }] } }, 'application/merge-patch+json');
}

const livePodNames = async (api: Http, ns: string, selector: string) =>
  (await api.list(`/api/v1/namespaces/${ns}/pods?labelSelector=${encodeURIComponent(selector)}`)).filter((p) => p.metadata.deletionTimestamp == null).map((p) => p.metadata.name ?? '').sort();

check(
  'daemon-controllers.statefulset',
  {
    rows: ['controller.statefulset'],
    title: 'statefulset: an OrderedReady set of 3 creates <set>-0, -1, -2 one at a time, each only once the one before is Running and Ready; scaling down removes the highest ordinal first',
    timeoutSeconds: 150,
    concurrent: true,
  },
  async (ctx) => {
    await withEnv(ctx, async (env) => {
      const { api } = env;
      const ns = await namespaceFor(api, 'sts');
      await withControllers(env, 'statefulset', [], 'statefulset', async () => {
        const labels = { app: 'web' };
        const r = await api.send('POST', `/apis/apps/v1/namespaces/${ns}/statefulsets`, {
          apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'web' },
          spec: { replicas: 3, serviceName: 'web', selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx:1.13' }] } } },
        });
        if (r.status !== 201) fail(`setup: creating StatefulSet web answered ${r.status}: ${JSON.stringify(r.body).slice(0, 200)}`);
        // The check is the kubelet: it makes each pod Ready in turn, after looking that the next one waits.
        for (let i = 0; i < 3; i++) {
          const seen = await within(busyScaled(40_000), async () => {
            const names = await livePodNames(api, ns, 'app=web');
            return names.includes(`web-${i}`) ? names : undefined;
          });
          expectTrue(seen, `web-${i} was created within ${busyScaled(40_000) / 1000} s (pods: ${JSON.stringify(await livePodNames(api, ns, 'app=web'))})`, ['controller.statefulset']);
          const want = Array.from({ length: i + 1 }, (_, k) => `web-${k}`);
          expectTrue(JSON.stringify(seen) === JSON.stringify(want), `while web-${i - 1} was not Ready, only ${JSON.stringify(want)} may exist; found ${JSON.stringify(seen)}`, ['controller.statefulset']);
          if (i < 2) {
            // Held unready for a while: the next ordinal must not appear.
            await sleep(1_500);
            const still = await livePodNames(api, ns, 'app=web');
            expectTrue(JSON.stringify(still) === JSON.stringify(want), `web-${i + 1} must wait for web-${i} to be Running and Ready; found ${JSON.stringify(still)}`, ['controller.statefulset']);
          }
          await setPodReady(api, ns, `web-${i}`, true);
        }
        await api.send('PATCH', `/apis/apps/v1/namespaces/${ns}/statefulsets/web/scale`, { spec: { replicas: 1 } }, 'application/merge-patch+json');
        const down = await within(busyScaled(40_000), async () => {
          const names = await livePodNames(api, ns, 'app=web');
          return names.includes('web-2') ? undefined : names;
        });
        expectTrue(down && down.includes('web-0'), `scaled to 1: web-2 went first and web-0 stays (pods: ${JSON.stringify(down)})`, ['controller.statefulset']);
      });
    });
  },
);

check(
  'daemon-controllers.disruption',
  {
    rows: ['controller.disruption'],
    title: 'disruption: a PodDisruptionBudget gets currentHealthy, desiredHealthy, disruptionsAllowed, expectedPods and observedGeneration from its pods; an eviction beyond the budget is refused with 429',
    timeoutSeconds: 150,
    concurrent: true,
  },
  async (ctx) => {
    await withEnv(ctx, async (env) => {
      const { api } = env;
      const ns = await namespaceFor(api, 'pdb');
      await withControllers(env, 'disruption', [], 'disruption', async () => {
        for (const n of ['p-0', 'p-1', 'p-2']) {
          const r = await api.send('POST', `/api/v1/namespaces/${ns}/pods`, { apiVersion: 'v1', kind: 'Pod', metadata: { name: n, labels: { app: 'db' } }, spec: { containers: [{ name: 'c', image: 'nginx:1.13' }] } });
          if (r.status !== 201) fail(`setup: creating pod ${n} answered ${r.status}`);
          await setPodReady(api, ns, n, true);
        }
        const r = await api.send('POST', `/apis/policy/v1beta1/namespaces/${ns}/poddisruptionbudgets`, { apiVersion: 'policy/v1beta1', kind: 'PodDisruptionBudget', metadata: { name: 'db' }, spec: { minAvailable: 2, selector: { matchLabels: { app: 'db' } } } });
        if (r.status !== 201) fail(`setup: creating the PodDisruptionBudget answered ${r.status}: ${JSON.stringify(r.body).slice(0, 200)}`);
        type PdbStatus = { currentHealthy?: number; desiredHealthy?: number; disruptionsAllowed?: number; expectedPods?: number; observedGeneration?: number };
        const pdb = async () => (await api.get(`/apis/policy/v1beta1/namespaces/${ns}/poddisruptionbudgets/db`)) as (KubeObject & { status?: PdbStatus }) | undefined;
        const want = (s: PdbStatus | undefined, healthy: number, allowed: number) =>
          s?.currentHealthy === healthy && s.desiredHealthy === 2 && s.disruptionsAllowed === allowed && s.expectedPods === 3;
        const first = await within(busyScaled(40_000), async () => {
          const p = await pdb();
          return want(p?.status, 3, 1) && p!.status!.observedGeneration === p!.metadata.generation ? p : undefined;
        });
        expectTrue(first, `minAvailable 2 over 3 ready pods: status currentHealthy 3, desiredHealthy 2, disruptionsAllowed 1, expectedPods 3, observedGeneration = generation within ${busyScaled(40_000) / 1000} s (got ${JSON.stringify((await pdb())?.status)})`, ['controller.disruption']);
        const evict = (pod: string) => api.send('POST', `/api/v1/namespaces/${ns}/pods/${pod}/eviction`, { apiVersion: 'policy/v1beta1', kind: 'Eviction', metadata: { name: pod, namespace: ns } });
        const e1 = await evict('p-0');
        expectTrue(e1.status === 201 || e1.status === 200, `the first eviction within the budget was allowed (got ${e1.status}: ${JSON.stringify(e1.body).slice(0, 200)})`, ['controller.disruption']);
        const second = await within(busyScaled(40_000), async () => ((await pdb())?.status?.disruptionsAllowed === 0 ? true : undefined));
        expectTrue(second, `after one eviction the budget shows disruptionsAllowed 0 within ${busyScaled(40_000) / 1000} s (got ${JSON.stringify((await pdb())?.status)})`, ['controller.disruption']);
        const e2 = await evict('p-1');
        expectTrue(e2.status === 429, `an eviction beyond the budget was refused with 429 (got ${e2.status}: ${JSON.stringify(e2.body).slice(0, 200)})`, ['controller.disruption']);
      });
    });
  },
);

check(
  'daemon-controllers.horizontalpodautoscaling',
  {
    rows: ['controller.horizontalpodautoscaling', 'option.horizontal-pod-autoscaler-sync-period'],
    title: 'horizontalpodautoscaling: an HPA gets its status written (currentReplicas of its target, read through /scale) and follows the target every --horizontal-pod-autoscaler-sync-period',
    timeoutSeconds: 150,
    concurrent: true,
  },
  async (ctx) => {
    await withEnv(ctx, async (env) => {
      const { api } = env;
      const ns = await namespaceFor(api, 'hpa');
      // The replicaset loop keeps the target's status.replicas (what the 1.9 autoscaler reads as current) true.
      await withControllers(env, 'horizontalpodautoscaling,replicaset', ['--horizontal-pod-autoscaler-sync-period=1s'], 'horizontalpodautoscaling', async () => {
        const labels = { app: 'front' };
        const rs = await api.send('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, {
          apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'front' },
          spec: { replicas: 2, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx:1.13', resources: { requests: { cpu: '100m' } } }] } } },
        });
        if (rs.status !== 201) fail(`setup: creating ReplicaSet front answered ${rs.status}`);
        const hpa = await api.send('POST', `/apis/autoscaling/v1/namespaces/${ns}/horizontalpodautoscalers`, {
          apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'front' },
          spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'front' }, minReplicas: 1, maxReplicas: 10, targetCPUUtilizationPercentage: 50 },
        });
        if (hpa.status !== 201) fail(`setup: creating the HorizontalPodAutoscaler answered ${hpa.status}: ${JSON.stringify(hpa.body).slice(0, 200)}`);
        const statusOf = async () => ((await api.get(`/apis/autoscaling/v1/namespaces/${ns}/horizontalpodautoscalers/front`))?.status as { currentReplicas?: number; desiredReplicas?: number } | undefined);
        const written = await within(busyScaled(40_000), async () => ((await statusOf())?.desiredReplicas !== undefined ? true : undefined));
        expectTrue(written, `the HPA's status was written within ${busyScaled(40_000) / 1000} s (got ${JSON.stringify(await statusOf())})`, ['controller.horizontalpodautoscaling']);
        // The target changes behind the HPA's back: the next sync (1 s) sees it.
        await api.send('PATCH', `/apis/apps/v1/namespaces/${ns}/replicasets/front/scale`, { spec: { replicas: 3 } }, 'application/merge-patch+json');
        const followed = await within(10_000, async () => ((await statusOf())?.currentReplicas === 3 ? true : undefined));
        expectTrue(followed, `--horizontal-pod-autoscaler-sync-period=1s: the HPA's currentReplicas followed its target to 3 within 10 s (got ${JSON.stringify(await statusOf())})`, ['option.horizontal-pod-autoscaler-sync-period', 'controller.horizontalpodautoscaling']);
      });
    });
  },
);

check(
  'daemon-controllers.resourcequota',
  {
    rows: ['controller.resourcequota', 'option.resource-quota-sync-period', 'option.concurrent-resource-quota-syncs'],
    title: 'resourcequota: status.hard and status.used follow the quota and the objects of its namespace (created, deleted), and a wrong status.used is recomputed by the next --resource-quota-sync-period',
    timeoutSeconds: 150,
    concurrent: true,
  },
  async (ctx) => {
    await withEnv(ctx, async (env) => {
      const { api } = env;
      const ns = await namespaceFor(api, 'quota');
      await withControllers(env, 'resourcequota', ['--resource-quota-sync-period=1s', '--concurrent-resource-quota-syncs=2'], 'resourcequota', async () => {
        const r = await api.send('POST', `/api/v1/namespaces/${ns}/resourcequotas`, { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q' }, spec: { hard: { configmaps: '5', pods: '4', 'requests.cpu': '2' } } });
        if (r.status !== 201) fail(`setup: creating the ResourceQuota answered ${r.status}: ${JSON.stringify(r.body).slice(0, 200)}`);
        type QuotaStatus = { hard?: Record<string, string>; used?: Record<string, string> };
        const status = async () => ((await api.get(`/api/v1/namespaces/${ns}/resourcequotas/q`))?.status as QuotaStatus | undefined);
        const cpuMilli = (q: string | undefined) => (q === undefined ? NaN : q.endsWith('m') ? Number(q.slice(0, -1)) : Number(q) * 1000);
        const usedIs = (s: QuotaStatus | undefined, cms: number, pods: number, cpu: number) =>
          s?.used !== undefined && Number(s.used.configmaps) === cms && Number(s.used.pods) === pods && cpuMilli(s.used['requests.cpu']) === cpu;
        const first = await within(busyScaled(40_000), async () => {
          const s = await status();
          return s?.hard?.configmaps === '5' && usedIs(s, 0, 0, 0) ? true : undefined;
        });
        expectTrue(first, `a new quota got status.hard = spec.hard and status.used zero within ${busyScaled(40_000) / 1000} s (got ${JSON.stringify(await status())})`, ['controller.resourcequota']);
        for (const n of ['a', 'b']) await api.send('POST', `/api/v1/namespaces/${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: n }, data: {} });
        const pod = await api.send('POST', `/api/v1/namespaces/${ns}/pods`, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx:1.13', resources: { requests: { cpu: '250m' }, limits: { cpu: '250m' } } }] } });
        expectTrue(pod.status === 201, `a pod within the quota was admitted (got ${pod.status}: ${JSON.stringify(pod.body).slice(0, 200)})`, ['controller.resourcequota']);
        const counted = await within(busyScaled(40_000), async () => (usedIs(await status(), 2, 1, 250) ? true : undefined));
        expectTrue(counted, `after 2 ConfigMaps and a pod requesting 250m, status.used shows configmaps 2, pods 1, requests.cpu 250m within ${busyScaled(40_000) / 1000} s (got ${JSON.stringify((await status())?.used)})`, ['controller.resourcequota']);
        await api.send('DELETE', `/api/v1/namespaces/${ns}/configmaps/a`);
        const released = await within(busyScaled(40_000), async () => (usedIs(await status(), 1, 1, 250) ? true : undefined));
        expectTrue(released, `a deleted ConfigMap is released from status.used within ${busyScaled(40_000) / 1000} s (got ${JSON.stringify((await status())?.used)})`, ['controller.resourcequota']);
        // A wrong status.used (written by the check) is put right by the next full sync.
        const q = (await api.get(`/api/v1/namespaces/${ns}/resourcequotas/q`)) as KubeObject & { status?: QuotaStatus };
        const w = await api.send('PUT', `/api/v1/namespaces/${ns}/resourcequotas/q/status`, { ...q, status: { hard: q.status?.hard, used: { ...q.status?.used, configmaps: '4' } } });
        expectTrue(w.status === 200, `setup: writing status.used answered ${w.status}`);
        const fixed = await within(busyScaled(30_000), async () => (Number((await status())?.used?.configmaps) === 1 ? true : undefined));
        expectTrue(fixed, `--resource-quota-sync-period=1s: a wrong status.used.configmaps was recomputed within ${busyScaled(30_000) / 1000} s (the default period: 5 min) (got ${JSON.stringify((await status())?.used)})`, ['option.resource-quota-sync-period']);
      });
    });
  },
);

// Volumes (spec 8.2): the persistentvolume-binder, pvc-protection loops of the daemon under test on the check's
// simulator; the check plays the kubelet (recycler pods are marked Succeeded by it).

const PV_PATH = '/api/v1/persistentvolumes';
const pvcPathIn = (ns: string) => `/api/v1/namespaces/${ns}/persistentvolumeclaims`;
const phaseOfObj = (o: KubeObject | undefined) => (o?.status as { phase?: string } | undefined)?.phase;
const specOfObj = (o: KubeObject | undefined) => (o?.spec ?? {}) as Record<string, unknown>;
const pvBody = (name: string, source: Record<string, unknown>, storage: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name },
  spec: { capacity: { storage }, accessModes: ['ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Retain', ...source, ...extra },
});
const pvcBody = (name: string, storage: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } }, storageClassName: '', ...extra },
});

async function created(api: Http, path: string, body: unknown, what: string): Promise<KubeObject> {
  const r = await api.send('POST', path, body);
  if (r.status !== 201) fail(`setup: creating ${what} answered ${r.status}: ${JSON.stringify(r.body).slice(0, 200)}`);
  return r.body as KubeObject;
}

check(
  'daemon-controllers.volume-binding',
  {
    rows: ['controller.persistentvolume-binder', 'option.pvclaimbinder-sync-period', 'option.enable-dynamic-provisioning', 'option.enable-hostpath-provisioner'],
    title: 'persistentvolume-binder: a claim is bound to the smallest fitting volume both ways, a claim made before its volume is bound on the next --pvclaimbinder-sync-period, and a claim of a kubernetes.io/host-path class is provisioned with --enable-hostpath-provisioner',
    timeoutSeconds: 150,
    concurrent: true,
  },
  async (ctx) => {
    await withEnv(ctx, async (env) => {
      const { api } = env;
      const ns = await namespaceFor(api, 'bind');
      const flags = ['--pvclaimbinder-sync-period=1s', '--enable-dynamic-provisioning=true', '--enable-hostpath-provisioner'];
      await withControllers(env, 'persistentvolume-binder', flags, 'persistentvolume-binder', async () => {
        await created(api, PV_PATH, pvBody(`${ns}-big`, { hostPath: { path: `/tmp/${ns}-big` } }, '10Gi'), 'a 10Gi volume');
        await created(api, PV_PATH, pvBody(`${ns}-fit`, { hostPath: { path: `/tmp/${ns}-fit` } }, '2Gi'), 'a 2Gi volume');
        await created(api, pvcPathIn(ns), pvcBody('first', '1500Mi'), 'a claim');
        const claim = async (n: string) => api.get(`${pvcPathIn(ns)}/${n}`);
        const bound = await within(busyScaled(40_000), async () => (phaseOfObj(await claim('first')) === 'Bound' ? true : undefined));
        expectTrue(bound, `a claim of 1500Mi became Bound within ${busyScaled(40_000) / 1000} s (got ${JSON.stringify((await claim('first'))?.status)})`, ['controller.persistentvolume-binder']);
        const c = await claim('first');
        const pv = await api.get(`${PV_PATH}/${ns}-fit`);
        expectTrue(specOfObj(c).volumeName === `${ns}-fit`, `the claim went to the smallest fitting volume ${ns}-fit (got ${String(specOfObj(c).volumeName)})`, ['controller.persistentvolume-binder']);
        const ref = specOfObj(pv).claimRef as { name?: string; uid?: string } | undefined;
        expectTrue(ref?.name === 'first' && ref.uid === c?.metadata.uid, `the volume's claimRef names the claim and its uid (got ${JSON.stringify(ref)})`, ['controller.persistentvolume-binder']);
        const pvBound = await within(busyScaled(30_000), async () => (phaseOfObj(await api.get(`${PV_PATH}/${ns}-fit`)) === 'Bound' ? true : undefined));
        expectTrue(pvBound, `the volume became Bound within ${busyScaled(30_000) / 1000} s`, ['controller.persistentvolume-binder']);

        // A claim first, its volume later: bound by a resync (1 s) — 1.9 does not look for waiting claims when a volume appears.
        await created(api, pvcPathIn(ns), pvcBody('early', '20Gi'), 'a claim no volume fits yet');
        await sleep(500);
        await created(api, PV_PATH, pvBody(`${ns}-late`, { hostPath: { path: `/tmp/${ns}-late` } }, '20Gi'), 'a late volume');
        const late = await within(12_000, async () => (specOfObj(await claim('early')).volumeName === `${ns}-late` && phaseOfObj(await claim('early')) === 'Bound' ? true : undefined));
        expectTrue(late, `--pvclaimbinder-sync-period=1s: a claim made before its volume was bound to it within 12 s (the default period: 15 s) (got ${JSON.stringify((await claim('early'))?.status)})`, ['option.pvclaimbinder-sync-period']);

        // Dynamic provisioning through the host-path provisioner.
        const cls = await api.send('POST', '/apis/storage.k8s.io/v1/storageclasses', { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: `${ns}-hp` }, provisioner: 'kubernetes.io/host-path' });
        if (cls.status !== 201) fail(`setup: creating a StorageClass answered ${cls.status}: ${JSON.stringify(cls.body).slice(0, 200)}`);
        const dyn = await created(api, pvcPathIn(ns), pvcBody('dynamic', '1Gi', { storageClassName: `${ns}-hp` }), 'a claim of the host-path class');
        const provisioned = await within(busyScaled(40_000), async () => (phaseOfObj(await claim('dynamic')) === 'Bound' ? true : undefined));
        expectTrue(provisioned, `with --enable-dynamic-provisioning and --enable-hostpath-provisioner a claim of a kubernetes.io/host-path class became Bound within ${busyScaled(40_000) / 1000} s (got ${JSON.stringify((await claim('dynamic'))?.status)})`, ['option.enable-hostpath-provisioner', 'option.enable-dynamic-provisioning']);
        const made = await api.get(`${PV_PATH}/${String(specOfObj(await claim('dynamic')).volumeName)}`);
        const path = String((specOfObj(made).hostPath as { path?: string } | undefined)?.path);
        expectTrue(made?.metadata.name === `pvc-${dyn.metadata.uid}` && specOfObj(made).storageClassName === `${ns}-hp` && specOfObj(made).persistentVolumeReclaimPolicy === 'Delete' && path.startsWith('/tmp/'),
          `the provisioned volume is pvc-<claim uid> of the class, reclaim policy Delete, a host path under /tmp (got ${JSON.stringify({ name: made?.metadata.name, spec: made?.spec })})`, ['option.enable-hostpath-provisioner']);
      });
    });
  },
);

check(
  'daemon-controllers.volume-recycling',
  {
    rows: ['option.pv-recycler-minimum-timeout-hostpath', 'option.pv-recycler-timeout-increment-hostpath', 'option.pv-recycler-minimum-timeout-nfs', 'option.pv-recycler-increment-timeout-nfs', 'controller.persistentvolume-binder'],
    title: 'persistentvolume-binder: a released Recycle volume gets a recycler pod whose activeDeadlineSeconds is max(minimum, increment per whole Gi) of its plugin\'s --pv-recycler-* options, and is Available again once the pod succeeds',
    timeoutSeconds: 180,
    concurrent: true,
  },
  async (ctx) => {
    await withEnv(ctx, async (env) => {
      const { api } = env;
      const ns = await namespaceFor(api, 'recycle');
      const flags = ['--pv-recycler-minimum-timeout-hostpath=10', '--pv-recycler-timeout-increment-hostpath=7', '--pv-recycler-minimum-timeout-nfs=20', '--pv-recycler-increment-timeout-nfs=3', '--pvclaimbinder-sync-period=1s'];
      await withControllers(env, 'persistentvolume-binder', flags, 'persistentvolume-binder', async () => {
        const cases = [
          { name: `${ns}-hp1`, source: { hostPath: { path: `/tmp/${ns}-1` } }, storage: '1Gi', deadline: 10, rows: ['option.pv-recycler-minimum-timeout-hostpath'] },
          { name: `${ns}-hp5`, source: { hostPath: { path: `/tmp/${ns}-5` } }, storage: '5Gi', deadline: 35, rows: ['option.pv-recycler-timeout-increment-hostpath'] },
          { name: `${ns}-nfs1`, source: { nfs: { server: 'nfs.example.com', path: `/exports/${ns}-1` } }, storage: '1Gi', deadline: 20, rows: ['option.pv-recycler-minimum-timeout-nfs'] },
          { name: `${ns}-nfs20`, source: { nfs: { server: 'nfs.example.com', path: `/exports/${ns}-20` } }, storage: '20Gi', deadline: 60, rows: ['option.pv-recycler-increment-timeout-nfs'] },
        ];
        for (const c of cases) {
          await created(api, PV_PATH, pvBody(c.name, c.source, c.storage, { persistentVolumeReclaimPolicy: 'Recycle', claimRef: { namespace: ns, name: c.name } }), `volume ${c.name}`);
          await created(api, pvcPathIn(ns), pvcBody(c.name, '1Gi'), `claim ${c.name}`);
        }
        for (const c of cases) {
          const bound = await within(busyScaled(40_000), async () => (phaseOfObj(await api.get(`${pvcPathIn(ns)}/${c.name}`)) === 'Bound' ? true : undefined));
          expectTrue(bound, `the claim pre-bound by ${c.name} became Bound within ${busyScaled(40_000) / 1000} s`, ['controller.persistentvolume-binder']);
          await api.send('DELETE', `${pvcPathIn(ns)}/${c.name}`);
        }
        for (const c of cases) {
          // The recycler pod (1.9: recycler-for-<volume>, in the template's namespace) is looked for anywhere.
          const pod = await within(busyScaled(40_000), async () => (await api.list('/api/v1/pods')).find((p) => p.metadata.name === `recycler-for-${c.name}`));
          expectTrue(pod !== undefined, `a recycler pod recycler-for-${c.name} appeared within ${busyScaled(40_000) / 1000} s of its claim's deletion`, ['controller.persistentvolume-binder']);
          const got = specOfObj(pod).activeDeadlineSeconds;
          expectTrue(got === c.deadline, `the recycler of a ${c.storage} ${Object.keys(c.source)[0]} volume has activeDeadlineSeconds ${c.deadline} (got ${String(got)})`, c.rows);
          // The check is the kubelet: the scrub succeeded.
          await api.send('PATCH', `/api/v1/namespaces/${pod!.metadata.namespace}/pods/${pod!.metadata.name}/status`, { status: { phase: 'Succeeded' } }, 'application/merge-patch+json');
        }
        for (const c of cases) {
          const available = await within(busyScaled(40_000), async () => (phaseOfObj(await api.get(`${PV_PATH}/${c.name}`)) === 'Available' ? true : undefined));
          expectTrue(available, `volume ${c.name} is Available again within ${busyScaled(40_000) / 1000} s of its recycler's success (got ${String(phaseOfObj(await api.get(`${PV_PATH}/${c.name}`)))})`, ['controller.persistentvolume-binder']);
        }
      });
    });
  },
);

check(
  'daemon-controllers.pvc-protection',
  {
    rows: ['controller.pvc-protection', 'gate.PVCProtection'],
    title: 'pvc-protection (gate PVCProtection): claims carry the kubernetes.io/pvc-protection finalizer; a deleted claim stays while a running pod uses it and goes once the pod is gone',
    timeoutSeconds: 150,
    concurrent: true,
  },
  async (ctx) => {
    await withEnv(ctx, async (env) => {
      const { api } = env;
      const ns = await namespaceFor(api, 'protect');
      const kubelets = env.kubelets();
      const node = `${ns}-node`;
      await kubelets.add(node);
      await withControllers(env, 'pvc-protection', ['--feature-gates=PVCProtection=true'], 'pvc-protection', async () => {
        await created(api, pvcPathIn(ns), pvcBody('kept', '1Gi'), 'a claim');
        const claim = () => api.get(`${pvcPathIn(ns)}/kept`);
        const finalized = await within(busyScaled(40_000), async () => ((await claim())?.metadata.finalizers?.includes('kubernetes.io/pvc-protection') ? true : undefined));
        expectTrue(finalized, `the claim got the kubernetes.io/pvc-protection finalizer within ${busyScaled(40_000) / 1000} s (got ${JSON.stringify((await claim())?.metadata.finalizers)})`, ['controller.pvc-protection', 'gate.PVCProtection']);
        await runningPod(api, ns, 'user', node, { volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'kept' } }] });
        await sleep(1_000);
        await api.send('DELETE', `${pvcPathIn(ns)}/kept`);
        await sleep(3_000);
        const held = await claim();
        expectTrue(held?.metadata.deletionTimestamp != null, `a claim used by a running pod is still there 3 s after its deletion, marked (got ${held ? JSON.stringify(held.metadata) : 'gone'})`, ['controller.pvc-protection']);
        await api.send('DELETE', `/api/v1/namespaces/${ns}/pods/user`, { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0 });
        const gone = await within(busyScaled(40_000), async () => ((await claim()) === undefined ? true : undefined));
        expectTrue(gone, `once its pod is gone the claim is deleted within ${busyScaled(40_000) / 1000} s`, ['controller.pvc-protection']);
      });
    });
  },
);
