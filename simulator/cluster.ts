// The composition root: one simulated cluster = the API server (server/start.ts) + the controller daemon
// (controllers/daemon) + the simulated nodes (nodes/), the latter two as HTTP clients of the first, exactly
// as they would run against any other API server. Only the entry points and tests import this file.

import type { FastifyInstance } from 'fastify';
import type { ServerContext } from './server/context.ts';
import { startApiServer, type ApiServerOptions } from './server/start.ts';
import type { DaemonHandle } from './controllers/daemon/daemon.ts';
import type { ControllerPlan } from './controllers/daemon/registry.ts';
import type { NodesHandle, NodesOptions } from './nodes/index.ts';
import { buildSecureServing, type Credentials, type SecureServing, type SecurityFlags } from './server/secure-serving.ts';
import { renderKubeconfig } from './client/kubeconfig.ts';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { generateKeyPairSync } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SimulatorOptions extends ApiServerOptions {
  /**
   * Also run the controller daemon in this process, as a client of this server over HTTP (leader election
   * off, its HTTP service on a free loopback port, 300 qps / burst 600 toward the API): true for every
   * controller on by default, or the list given to --controllers. Default: the API server alone.
   */
  controllers?: boolean | string[];
  /**
   * Simulated nodes (kubelets and a scheduler) that run the pods, as clients of this server over HTTP
   * (simulator/nodes): a count, or options. Default: none. `npx tsx simulator` starts 3.
   */
  nodes?: number | NodesOptions;
  /** More daemon options (e.g. ["--concurrent-gc-syncs=5"]); they come last and so win. */
  controllerArgs?: string[];
  /** Where the daemon's log lines go (default: nowhere). */
  controllerLog?: (line: string) => void;
  /**
   * Simulated clock skew: the controller daemon's clock runs this many milliseconds ahead of the API server's
   * (as between two hosts whose clocks disagree). Read by the CronJob controller, the one loop that acts on
   * wall-clock schedules: with 90 s, a CronJob of schedule "* * * * *" runs within one check interval of its
   * creation instead of at the next minute. The conformance suites' embedded run uses it. Default 0.
   */
  controllerClockSkewMs?: number;
  /** How often the CronJob controller looks at every CronJob (default 10 s, as the 1.9 daemon). */
  cronJobCheckIntervalMs?: number;
  /**
   * TLS, authentication and authorization (server/secure-serving.ts). The daemon then authenticates with a
   * client config of its own (--xconfig: system:kube-controller-manager), signs service-account tokens with
   * the serving's key and puts its CA in token secrets; the nodes authenticate as system:kube-scheduler in
   * system:nodes.
   */
  serving?: SecureServing;
  /** The same from the command-line flags (built here when `serving` is not given). */
  securityFlags?: Omit<SecurityFlags, 'host'>;
  /**
   * Return as soon as the API server listens, with the daemon and the nodes starting behind it: at once (true),
   * or once this promise settles (the conformance suites start them once their first check processes are
   * launched, so that the run's discovery reads an idle server). `ready` settles when they are up, or with their
   * start's error, everything then closed; a close before the promise settled starts neither. The suites' embedded
   * run uses it so that checks needing only the API server start at once. A number: that many milliseconds after
   * the server listens (`npx tsx simulator`: a client already waiting is answered before their start holds the
   * event loop). Default: return when all are up.
   */
  clientsBehind?: boolean | number | PromiseLike<unknown>;
  /**
   * The containers of the simulated pods (exec, attach, port-forward, proxy): the cluster-wide file of
   * `--container-config` (nodes/containers/config.ts) and, only when given, the directory under which exec runs
   * real processes on this host (`--local-exec DIR`). They are served whenever nodes run.
   */
  containers?: { configFile?: string; localExecDir?: string };
}

export interface RunningSimulator {
  url: string;
  port: number;
  app: FastifyInstance;
  ctx: ServerContext;
  /** The in-process controller daemon, when started with `controllers` (with `clientsBehind`: once `ready`). */
  readonly daemon?: DaemonHandle;
  /** The simulated nodes, when started with `nodes` (with `clientsBehind`: once `ready`). */
  readonly nodes?: NodesHandle;
  /** Settles when the daemon and the nodes are up (at once unless `clientsBehind`); rejects when they failed to start. */
  ready: Promise<void>;
  /** TLS material and the credentials of this process's own clients (admin, daemon, nodes), when secured. */
  serving?: SecureServing;
  close(): Promise<void>;
}

function credentialFields(c: Credentials | undefined): { cert?: string; key?: string; token?: string } {
  if (!c) return {};
  return 'token' in c ? { token: c.token } : { cert: c.cert, key: c.key };
}

/**
 * Whether the in-process daemon runs the controllers that make service accounts and their tokens (then the API
 * server's default admission chain has ServiceAccount, which refuses pods until they exist). The last
 * --controllers among the daemon options wins over `controllers`, as on the daemon's command line.
 */
function makesServiceAccounts(opts: SimulatorOptions): boolean {
  if (!opts.controllers) return false;
  const flag = [...(opts.controllerArgs ?? [])].reverse().find((a) => a.startsWith('--controllers='));
  const list = flag ? flag.slice('--controllers='.length).split(',') : opts.controllers === true ? ['*'] : opts.controllers;
  const on = (name: string) => list.includes(name) || (list.includes('*') && !list.includes(`-${name}`));
  return on('serviceaccount') && on('serviceaccount-token');
}

export async function startSimulator(opts: SimulatorOptions = {}): Promise<RunningSimulator> {
  const vendor = opts.vendor ?? 'kubernetes';
  const serving = opts.serving ?? (opts.securityFlags ? await buildSecureServing({ ...opts.securityFlags, host: opts.host ?? '127.0.0.1' }) : undefined);
  const apiOptions = { ...opts, daemonBehind: opts.daemonBehind ?? makesServiceAccounts(opts) };
  const server = await startApiServer(serving ? { ...apiOptions, tls: serving.tls, security: serving.security, postStart: serving.postStart } : apiOptions);
  const { url } = server;
  let daemon: DaemonHandle | undefined;
  let nodes: NodesHandle | undefined;
  // Files of the daemon's credentials (its client config, the CA bundle, the token-signing key), removed on close.
  let credentialDir: string | undefined;
  // The daemon and the nodes are clients of the server over HTTP, independent of each other: they start side by
  // side (each loads its own modules), after the server listens.
  const startDaemonPart = async () => {
    if (!opts.controllers) return;
    const extra: string[] = [];
    if (serving?.enabled) {
      extra.push(...serving.daemonArgs);
      credentialDir = mkdtempSync(join(tmpdir(), 'cluster-simulator-daemon-'));
      const xconfig = join(credentialDir, 'controller-manager.kubeconfig');
      writeFileSync(xconfig, renderKubeconfig({ server: url, ca: serving.ca, ...credentialFields(serving.controllerManager), name: 'controller-manager' }), {
        mode: 0o600,
      });
      extra.push(`--xconfig=${xconfig}`);
      if (serving.ca) {
        writeFileSync(join(credentialDir, 'ca.crt'), serving.ca);
        extra.push(`--root-ca-file=${join(credentialDir, 'ca.crt')}`);
      }
      if (serving.signingCa) {
        // CSR signing works out of the box with --secure: the daemon's signer uses the cluster CA (a
        // --daemon-arg=--cluster-signing-cert-file=... comes later and wins).
        writeFileSync(join(credentialDir, 'signing-ca.crt'), serving.signingCa.cert);
        writeFileSync(join(credentialDir, 'signing-ca.key'), serving.signingCa.key, { mode: 0o600 });
        extra.push(`--cluster-signing-cert-file=${join(credentialDir, 'signing-ca.crt')}`, `--cluster-signing-key-file=${join(credentialDir, 'signing-ca.key')}`);
      }
      if (serving.serviceAccountSigningKey) {
        writeFileSync(join(credentialDir, 'sa.key'), serving.serviceAccountSigningKey, { mode: 0o600 });
        extra.push(`--service-account-private-key-file=${join(credentialDir, 'sa.key')}`);
      }
    }
    const given = (opts.controllerArgs ?? []).some((a) => a.startsWith('--service-account-private-key-file'));
    if (!serving?.enabled && !given) {
      // Without authentication nothing verifies service-account tokens, but the token controller still makes them
      // (only with a signing key) and the ServiceAccount admission plugin refuses pods of accounts that have none:
      // the daemon gets a key of its own, so pods get their token volumes as on a real cluster. (EC: milliseconds.)
      credentialDir = mkdtempSync(join(tmpdir(), 'cluster-simulator-daemon-'));
      const pair = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
      writeFileSync(join(credentialDir, 'sa.key'), pair.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(), { mode: 0o600 });
      extra.push(`--service-account-private-key-file=${join(credentialDir, 'sa.key')}`);
    }
    daemon = await startControllers(url, vendor, { ...opts, controllerArgs: [...extra, ...(opts.controllerArgs ?? [])] });
    // componentstatuses/controller-manager: the daemon's own /healthz, as the 1.9 server probes it.
    const healthz = `${daemon.url}/healthz`;
    (server.ctx.components ??= new Map()).set('controller-manager', async () => {
      const r = await fetch(healthz);
      const text = await r.text();
      return r.ok ? { healthy: true, message: text } : { healthy: false, message: text, error: `unhealthy http status code: ${r.status} (${r.statusText})` };
    });
  };
  const startNodesPart = async () => {
    const nodeOpts0 = typeof opts.nodes === 'number' ? { count: opts.nodes } : opts.nodes;
    const nodeOpts =
      nodeOpts0 && serving?.enabled
        ? { ...nodeOpts0, clientConfig: { ca: serving.ca ? Buffer.from(serving.ca) : undefined, ...credentialBuffers(serving.nodes) } }
        : nodeOpts0;
    if (nodeOpts && (nodeOpts.count ?? 3) > 0) {
      // Loaded only when asked for, like the daemon.
      const [{ startNodes }, { SimulatedContainers }, { loadContainerConfig }] = await Promise.all([
        import('./nodes/index.ts'),
        import('./nodes/containers/runtime.ts'),
        import('./nodes/containers/config.ts'),
      ]);
      const c = opts.containers ?? {};
      const config = c.configFile ? loadContainerConfig(c.configFile) : undefined;
      server.ctx.containers = new SimulatedContainers({ config, localExecDir: c.localExecDir });
      if (config?.usage) server.ctx.settings.usageDefaults = config.usage;
      nodes = await startNodes(url, { log: () => {}, ...nodeOpts, containers: server.ctx.containers });
      // componentstatuses/scheduler: the simulated scheduler runs in this process while the nodes do.
      if (nodes.scheduler) (server.ctx.components ??= new Map()).set('scheduler', async () => ({ healthy: true, message: 'ok' }));
    }
  };
  const closeAll = async () => {
    // Clients first: their watches would otherwise hold the server open.
    server.ctx.components?.clear();
    await nodes?.close();
    server.ctx.containers?.close?.();
    await daemon?.close();
    await server.close();
    serving?.stop();
    if (credentialDir) rmSync(credentialDir, { recursive: true, force: true });
  };
  // A close before a clientsBehind promise settled: the daemon and nodes are not started at all.
  let closing = false;
  let cancel = () => {};
  const { clientsBehind } = opts;
  const behind = typeof clientsBehind === 'number' ? new Promise((r) => setTimeout(r, clientsBehind)) : clientsBehind;
  const gate =
    behind && behind !== true
      ? Promise.race([Promise.resolve(behind).catch(() => {}), new Promise<void>((r) => (cancel = r))])
      : Promise.resolve();
  const clients = gate.then(async () => {
    if (closing) return;
    const [d, n] = await Promise.allSettled([startDaemonPart(), startNodesPart()]);
    const failed = [d, n].find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) {
      await closeAll();
      throw failed.reason;
    }
  });
  if (!opts.clientsBehind) await clients;
  else clients.catch(() => {}); // the caller learns it through `ready`
  return {
    url,
    port: server.port,
    app: server.app,
    ctx: server.ctx,
    get daemon() {
      return daemon;
    },
    get nodes() {
      return nodes;
    },
    serving,
    ready: clients,
    async close() {
      closing = true;
      cancel();
      // A start still under way finishes first, so that what it starts is closed too (a failed one closed all).
      if (await clients.then(() => true, () => false)) await closeAll();
    },
  };
}

/** The controller daemon against this server, the way `npx tsx simulator/controllers --master URL` runs it. */
export async function startControllers(url: string, vendor: string, opts: SimulatorOptions): Promise<DaemonHandle> {
  // Loaded only when asked for, so that the API server alone does not pay for the daemon's modules.
  const { startDaemon } = await import('./controllers/daemon/daemon.ts');
  // A client on the same machine, often in the same process: the spec's 20 qps (meant for a remote API
  // server) would queue namespace deletions behind each other when a test run deletes dozens at once.
  const argv = ['--master', url, '--leader-elect=false', '--address=127.0.0.1', '--port=0', '--x-api-qps=300', '--x-api-burst=600'];
  if (Array.isArray(opts.controllers)) argv.push(`--controllers=${opts.controllers.join(',')}`);
  argv.push(...(opts.controllerArgs ?? []));
  let plans: Record<string, ControllerPlan> | undefined;
  if (opts.controllerClockSkewMs || opts.cronJobCheckIntervalMs) {
    const [{ CONTROLLER_PLANS }, { cronJobController }] = await Promise.all([import('./controllers/daemon/registry.ts'), import('./controllers/cronjob.ts')]);
    const skew = opts.controllerClockSkewMs ?? 0;
    const cronjob = { checkIntervalMs: opts.cronJobCheckIntervalMs, now: () => new Date(Date.now() + skew) };
    plans = { cronjob: { ...CONTROLLER_PLANS.cronjob, create: () => cronJobController(cronjob) } };
  }
  return startDaemon(argv, { vendor, log: opts.controllerLog ?? (() => {}), plans });
}

function credentialBuffers(c: Credentials | undefined): { cert?: Buffer; key?: Buffer; token?: string } {
  const f = credentialFields(c);
  return { ...(f.cert ? { cert: Buffer.from(f.cert), key: Buffer.from(f.key!) } : {}), ...(f.token ? { token: f.token } : {}) };
}

/**
 * The client config (kubeconfig) `npx tsx simulator` writes, usable unchanged by kubectl (current and 1.20), the
 * Python client and @kubernetes/client-node 1.x. `insecure-skip-tls-verify: true` is what lets client-node 1.x
 * talk plain HTTP at all (it refuses an http:// server otherwise: "HTTP protocol is not allowed when
 * skipTLSVerify is not set or false"); kubectl and the Python client accept it for http:// as a no-op.
 * The client-matrix tests (simulator/clients/) drive every client with exactly this file.
 */
export function clientConfigYaml(url: string, namespace = 'default'): string {
  const plainHttp = url.startsWith('http:');
  return `apiVersion: v1
kind: Config
clusters:
- name: simulator
  cluster:
    server: ${url}${plainHttp ? '\n    insecure-skip-tls-verify: true' : ''}
users:
- name: simulator
  user: {}
contexts:
- name: simulator
  context:
    cluster: simulator
    user: simulator
    namespace: ${namespace}
current-context: simulator
`;
}
