// The environment every daemon-controllers check runs in (a part of daemon-controllers.suite.ts): a simulator of
// the check's own with no controllers, the daemon named by --daemon-cmd started against it (slots bound how many
// run at once), its start log read for the controllers it started, plain HTTP to the simulator, and fake kubelets
// (Nodes whose heartbeats the check posts).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSpecTables, type ControllerRow, type FeatureGateRow } from '../../spec-tables/index.ts';
import type { CheckContext } from '../harness/check.ts';
import { fail } from '../harness/expect.ts';
import { daemonCommand } from '../cli/daemon-command.ts';
import { DaemonProcess, freePort, waitForConfigz } from '../daemon/daemon-process.ts';
import { componentConfig, configEntry } from '../daemon/option-values.ts';
import { sleep, within } from '../harness/progress.ts';
import type { KubeObject } from '../../simulator/api/meta.ts';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const TABLES = loadSpecTables();
/**
 * How long a daemon may take to serve /configz (or exit). A start takes about a second on idle cores; several
 * daemons starting side by side on a loaded machine took over 30 s. Generous, since only a broken daemon waits it out.
 */
export const START_TIMEOUT_MS = 60_000;
/** How long the start log may take to name every controller once /configz serves. */
export const LOG_MS = 10_000;

export interface Env {
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

export async function withEnv(ctx: CheckContext, fn: (env: Env) => Promise<void>): Promise<void> {
  return withSlot(() => withOwnEnv(ctx, fn));
}

async function withOwnEnv(ctx: CheckContext, fn: (env: Env) => Promise<void>): Promise<void> {
  const tables = loadSpecTables({ vendor: ctx.vendor });
  const { startSimulator } = await import('../../simulator/cluster.ts');
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

export const tail = (text: string, n = 400) => (text.length > n ? `...${text.slice(-n)}` : text).trim();

/**
 * Starts a daemon on a free port and runs `fn` while it serves /configz; stops it after. A port another check's
 * daemon took in between (this daemon then exits, unable to bind) means: again on another port, within the
 * time budget.
 */
export async function withDaemon<T>(
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
export async function withControllers<T>(
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

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export interface Http {
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

export const nowText = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');
export const readyOf = (n: KubeObject | undefined) =>
  ((n?.status as { conditions?: Array<{ type: string; status: string; reason?: string }> } | undefined)?.conditions ?? []).find((c) => c.type === 'Ready');
export const conditionOfNode = (n: KubeObject | undefined, type: string) =>
  ((n?.status as { conditions?: Array<{ type: string; status: string; reason?: string }> } | undefined)?.conditions ?? []).find((c) => c.type === type);

/**
 * Nodes whose "kubelet" is this check: heartbeats every 250 ms until stopped. Heartbeat times are whole seconds,
 * so a node controller sees a new one about once a second; `lastChange` is when the check sent the last heartbeat
 * carrying a new time (the controller cannot have seen it earlier), the reference for "no heartbeat since": on a
 * loaded machine this process may stall for seconds, so the moment a check stops a kubelet is not it.
 * `setReady(name, false)` has the kubelet report NotReady from now on (a transition at a moment the check
 * chooses, the same for several nodes at once, whatever the heartbeat timing).
 */
export class FakeKubelets {
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
export async function runningPod(api: Http, ns: string, name: string, node: string, extra: Record<string, unknown> = {}): Promise<void> {
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

export async function namespaceFor(api: Http, prefix: string): Promise<string> {
  const ns = `${prefix}-${Math.random().toString(36).slice(2, 7)}`;
  const r = await api.send('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  if (r.status !== 201) fail(`setup: creating namespace ${ns} answered ${r.status}`);
  return ns;
}

/** Polls until probe holds; the time it was first seen, or undefined after ms. */
export async function seenAt(ms: number, probe: () => Promise<boolean>): Promise<number | undefined> {
  return within(ms, async () => ((await probe()) ? Date.now() : undefined), 50);
}
