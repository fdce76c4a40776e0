// The composition root: one simulated cluster = the API server (server/start.ts) + the controller daemon
// (controllers/daemon) + the simulated nodes (nodes/), the latter two as HTTP clients of the first, exactly
// as they would run against any other API server. Only the entry points and tests import this file.

import type { FastifyInstance } from 'fastify';
import type { ServerContext } from './server/context.ts';
import { startApiServer, type ApiServerOptions } from './server/start.ts';
import type { DaemonHandle } from './controllers/daemon/daemon.ts';
import type { NodesHandle, NodesOptions } from './nodes/index.ts';
import { startClients, type ClientsInit, type StartedClients } from './cluster-clients.ts';
import { clientsThreadAvailable, startClientsThread, type ClientsThread } from './cluster-clients-thread.ts';
import { buildSecureServing, newServiceAccountSigningKey, type Credentials, type SecureServing, type SecurityFlags } from './server/secure-serving.ts';
import { renderKubeconfig } from './client/kubeconfig.ts';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
   * Run the daemon and the nodes in a worker thread of their own (cluster-clients-thread.ts), so that the API server
   * keeps its thread and a second core does the clients' work, as `npx tsx simulator` and the package's
   * startSimulator do. Default false here (one thread: the suites' embedded run and the tests that reach into the
   * daemon's and nodes' handles); where this form of the code has no worker entry, one thread all the same.
   */
  clientsThread?: boolean;
  /**
   * The clients' thread failed after the start (an uncaught error in the daemon or a node, or the thread ended):
   * told once, with the error. Default: written to stderr.
   */
  onClientsError?: (error: Error) => void;
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
  /**
   * With `clientsThread`: the worker thread the daemon and the nodes run in (its id, the daemon's URL, the nodes'
   * names); `daemon` and `nodes` are then undefined, their objects living in that thread.
   */
  readonly clientsThread?: Omit<ClientsThread, 'close'>;
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
  let thread: ClientsThread | undefined;
  let inThread: StartedClients | undefined;
  // Files of the daemon's credentials (its client config, the CA bundle, the token-signing key), removed on close.
  let credentialDir: string | undefined;
  /** The daemon's options from the serving's credentials (files written here, read by the daemon wherever it runs). */
  const daemonArgs = (): string[] => {
    const extra: string[] = [];
    const given = (opts.controllerArgs ?? []).some((a) => a.startsWith('--service-account-private-key-file'));
    if (!serving?.enabled) {
      if (given) return extra;
      // Without authentication nothing verifies service-account tokens, but the token controller still makes them
      // (only with a signing key) and the ServiceAccount admission plugin refuses pods of accounts that have none:
      // the daemon gets a key of its own, so pods get their token volumes as on a real cluster. (EC: milliseconds.)
      credentialDir = mkdtempSync(join(tmpdir(), 'cluster-simulator-daemon-'));
      writeFileSync(join(credentialDir, 'sa.key'), newServiceAccountSigningKey(), { mode: 0o600 });
      extra.push(`--service-account-private-key-file=${join(credentialDir, 'sa.key')}`);
      return extra;
    }
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
    return extra;
  };
  // The simulated containers (exec, attach, port-forward) are served by the API server, in its thread.
  const startContainers = async () => {
    const [{ SimulatedContainers }, { loadContainerConfig }] = await Promise.all([import('./nodes/containers/runtime.ts'), import('./nodes/containers/config.ts')]);
    const c = opts.containers ?? {};
    const config = c.configFile ? loadContainerConfig(c.configFile) : undefined;
    server.ctx.containers = new SimulatedContainers({ config, localExecDir: c.localExecDir });
    if (config?.usage) server.ctx.settings.usageDefaults = config.usage;
  };
  // The daemon and the nodes are clients of the server over HTTP, independent of each other: they start side by
  // side (cluster-clients.ts), after the server listens, in this thread or in a worker thread of their own.
  const startClientsPart = async () => {
    const nodeOpts0 = typeof opts.nodes === 'number' ? { count: opts.nodes } : opts.nodes;
    const { log: nodesLog, ...nodeOpts1 } = nodeOpts0 ?? {};
    const nodeOpts =
      nodeOpts0 && serving?.enabled
        ? { ...nodeOpts1, clientConfig: { ca: serving.ca ? Buffer.from(serving.ca) : undefined, ...credentialBuffers(serving.nodes) } }
        : nodeOpts0 && nodeOpts1;
    const wantNodes = Boolean(nodeOpts && (nodeOpts.count ?? 3) > 0);
    if (!opts.controllers && !wantNodes) return;
    const init: ClientsInit = {
      url,
      vendor,
      controllers: opts.controllers,
      controllerArgs: opts.controllers ? [...daemonArgs(), ...(opts.controllerArgs ?? [])] : undefined,
      controllerClockSkewMs: opts.controllerClockSkewMs,
      cronJobCheckIntervalMs: opts.cronJobCheckIntervalMs,
      nodes: wantNodes ? nodeOpts : undefined,
    };
    const logs = { daemon: opts.controllerLog, nodes: nodesLog };
    const onError = opts.onClientsError ?? ((e: Error) => process.stderr.write(`simulator: the controller daemon and nodes' thread failed: ${e.stack ?? e.message}\n`));
    // The kubelets read ended containers' files through the containers (termination messages): made first.
    if (wantNodes) await startContainers();
    const containers = server.ctx.containers;
    if (opts.clientsThread && clientsThreadAvailable()) thread = await startClientsThread(init, logs, onError, containers);
    else inThread = await startClients(init, logs, containers);
    daemon = inThread?.daemon;
    nodes = inThread?.nodes;
    // componentstatuses/controller-manager: the daemon's own /healthz, as the 1.9 server probes it.
    const daemonUrl = daemon?.url ?? thread?.daemonUrl;
    if (daemonUrl) {
      const healthz = `${daemonUrl}/healthz`;
      (server.ctx.components ??= new Map()).set('controller-manager', async () => {
        const r = await fetch(healthz);
        const text = await r.text();
        return r.ok ? { healthy: true, message: text } : { healthy: false, message: text, error: `unhealthy http status code: ${r.status} (${r.statusText})` };
      });
    }
    // componentstatuses/scheduler: the simulated scheduler runs while the nodes do.
    if (nodes?.scheduler || thread?.scheduler) (server.ctx.components ??= new Map()).set('scheduler', async () => ({ healthy: true, message: 'ok' }));
  };
  const closeAll = async () => {
    // Clients first: their watches would otherwise hold the server open.
    server.ctx.components?.clear();
    await thread?.close();
    await inThread?.close();
    server.ctx.containers?.close?.();
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
    try {
      await startClientsPart();
    } catch (e) {
      await closeAll();
      throw e;
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
    get clientsThread() {
      if (!thread) return undefined;
      const { close: _close, ...info } = thread;
      return info;
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

export { startControllers } from './cluster-clients.ts';

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
