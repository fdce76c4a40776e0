// The controller daemon: options -> HTTP service -> API client -> leader election -> controllers, in the
// order the 1.9 daemon uses. startDaemon() runs it in-process (the simulator and tests use it); index.ts is
// the command line wrapper. Leadership lost means the daemon stops (the real one exits so that its
// supervisor restarts it); `done` resolves with the reason.

import { setMaxListeners } from 'node:events';
import { loadSpecTables, type SpecTables } from '../../../spec-tables/index.ts';
import { UsageError, type DaemonOptions } from '../config/options.ts';
import { prepareOptions, PROGRAM, DAEMON_VERSION } from '../config/command-line.ts';
import { DaemonMetrics } from '../../client/metrics.ts';
import { startHttpService, type HttpService } from './http-service.ts';
import { loadClientConfig } from '../../client/kubeconfig.ts';
import { ownClient, serviceAccountClient } from './service-account-clients.ts';
import { ApiClient } from '../../client/api-client.ts';
import { LeaderElector, type LockType } from '../../client/leader-election.ts';
import { InformerFactory, resyncPeriodMs } from '../../client/informer.ts';
import { discoverResources } from '../../client/discovery.ts';
import { CONTROLLER_PLANS, decideStart, type ControllerPlan } from './registry.ts';
import type { ControllerContext } from '../kit/controller.ts';
import type { ProtobufObjectCodec } from '../../client/protobuf-codec.ts';
import { initCloud } from '../cloud/init-cloud.ts';
import { scanFlexPlugins } from '../config/volume-plugins.ts';
import { sleep } from '../../client/timers.ts';

export type ControllerState =
  | { state: 'pending' }
  | { state: 'running' }
  | { state: 'stopped' }
  | { state: 'not started'; reason: string }
  | { state: 'failed'; reason: string };

export interface StartDaemonOptions {
  /** Defaults to loadSpecTables({ vendor }). */
  tables?: SpecTables;
  vendor?: string;
  /** Log sink (default: glog-style lines on stderr). */
  log?: (line: string) => void;
  /** Replaces or adds controller plans (tests, the simulator's own loops). */
  plans?: Record<string, ControllerPlan>;
  /** Leader-election identity (default hostname_uuid). */
  identity?: string;
  /** Protobuf codec for the API client; null forces JSON. */
  codec?: ProtobufObjectCodec | null;
}

export interface DaemonHandle {
  /** Base URL of the daemon's HTTP service. */
  url: string;
  port: number;
  options: DaemonOptions;
  client: ApiClient;
  metrics: DaemonMetrics;
  http: HttpService;
  identity: string | undefined;
  isLeader(): boolean;
  controllerStates(): Record<string, ControllerState>;
  /** Resolves when the daemon has stopped, with why. */
  done: Promise<{ reason: 'closed' | 'leadership lost' }>;
  close(): Promise<void>;
}

function glogLine(line: string): string {
  const d = new Date();
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `I${p(d.getMonth() + 1)}${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}000 ${p(process.pid, 5)} daemon] ${line}`;
}

/** How long close() waits for the control loops to return after their signal aborts. */
const STOP_GRACE_MS = 5000;

const defaultLog = (line: string) => process.stderr.write(glogLine(line) + '\n');

export async function startDaemon(argv: readonly string[], opts: StartDaemonOptions = {}): Promise<DaemonHandle> {
  const tables = opts.tables ?? loadSpecTables({ vendor: opts.vendor });
  const log = opts.log ?? defaultLog;
  const v = prepareOptions(argv, tables);
  const o = v.options;
  const plans = { ...CONTROLLER_PLANS, ...opts.plans };
  for (const note of v.notes) log(`note: ${note}`);
  log(`enabled controllers: ${v.controllers.enabled.join(', ')}`);
  log(`disabled controllers: ${v.controllers.disabled.join(', ') || '(none)'}`);
  const onGates = Object.entries(v.gates.effective()).filter(([, on]) => on).map(([g]) => g);
  log(`feature gates on: ${onGates.join(', ')}`);
  // The cloud provider and its credentials are read before anything connects (bad files end the start).
  const cloudSetup = initCloud(o, log);
  const cloud = cloudSetup.cloud;

  // FlexVolume drivers: the folders of --flex-volume-plugin-dir, looked at again for each /configz (the real
  // prober watches the folder too).
  let flex = scanFlexPlugins(o.string('--flex-volume-plugin-dir'));
  if (flex.problem) log(`flexVolume: ${flex.dir}: ${flex.problem}`);
  for (const d of flex.drivers) log(`flexVolume: found driver ${d} in ${flex.dir}`);
  const rescanFlex = () => {
    const next = scanFlexPlugins(flex.dir);
    for (const d of next.drivers) if (!flex.drivers.includes(d)) log(`flexVolume: found driver ${d} in ${flex.dir}`);
    flex = next;
    return flex;
  };

  const states: Record<string, ControllerState> = {};
  for (const name of v.controllers.enabled) states[name] = { state: 'pending' };
  const metrics = new DaemonMetrics();
  for (const name of v.controllers.enabled) metrics.controllersRunning.set({ controller: name }, 0);

  const clientConfig = loadClientConfig({ xconfig: o.string('--xconfig'), master: o.string('--master') });
  const clientOptions = {
    qps: o.float('--x-api-qps'),
    burst: o.int('--x-api-burst'),
    contentType: o.string('--x-api-content-type'),
    metrics,
    codec: opts.codec,
    userAgent: `${PROGRAM}/${DAEMON_VERSION}`,
  };
  const client = await ApiClient.create(clientConfig, clientOptions);
  log(`API server ${clientConfig.server}, requests in ${client.wireContentType} (${o.float('--x-api-qps')} qps, burst ${o.int('--x-api-burst')})`);

  const lifetime = new AbortController();
  // Every informer, watch and worker listens on this one signal; dozens are expected, not a leak.
  setMaxListeners(0, lifetime.signal);
  let elector: LeaderElector | undefined;
  const configz = () => ({
    componentconfig: o.toConfig(),
    featureGates: v.gates.describe(),
    controllers: { enabled: v.controllers.enabled, disabled: v.controllers.disabled, status: { ...states } },
    cloud: cloudSetup.describe(),
    volumePlugins: { flexVolume: (({ dir, drivers, problem }) => ({ dir, drivers, ...(problem ? { problem } : {}) }))(rescanFlex()) },
    leaderElection: {
      enabled: o.bool('--leader-elect'),
      identity: elector?.identity ?? null,
      isLeader: elector ? elector.isLeader : !lifetime.signal.aborted,
      record: elector?.record ?? null,
    },
  });
  let http: HttpService;
  try {
    http = await startHttpService({
      address: o.string('--address'),
      port: o.int('--port'),
      profiling: o.bool('--profiling'),
      contentionProfiling: o.bool('--contention-profiling'),
      metrics,
      configz,
      documents: (path) => {
        const m = /^\/cloud\/(routes|loadbalancers|instances)\/?$/.exec(path);
        return m && cloud ? cloud.snapshot(m[1] as 'routes' | 'loadbalancers' | 'instances') : undefined;
      },
      log,
    });
  } catch (err) {
    await client.close();
    throw new Error(`cannot serve on ${o.string('--address')}:${o.int('--port')}: ${(err as Error).message}`);
  }
  log(`serving /healthz, /metrics, /configz${o.bool('--profiling') ? ', /debug/pprof' : ''} on ${http.url}`);

  const runControllers = async (signal: AbortSignal) => {
    // Every informer, queue and worker listens for this one signal: dozens of listeners are expected.
    setMaxListeners(0, signal);
    const informers = new InformerFactory(client, { resyncMs: resyncPeriodMs(o.durationMs('--min-resync-period')), log });
    // The API must answer discovery before anything starts (the real daemon waits for the server's health).
    let available: Set<string> | undefined;
    for (let delay = 200; !signal.aborted && !available; delay = Math.min(delay * 2, 10_000)) {
      try {
        available = await discoverResources(client, signal);
      } catch (err) {
        if (signal.aborted) return;
        log(`waiting for the API server: ${(err as Error).message}`);
        await sleep(delay, signal);
      }
    }
    if (!available) return;
    const ctx = (name: string, controllerClient: ApiClient = client): ControllerContext => ({
      client: controllerClient,
      informers,
      options: o,
      gates: v.gates,
      signal,
      metrics,
      cloud,
      log: (line) => log(`${name}: ${line}`),
    });
    const interval = o.durationMs('--controller-start-interval');
    for (const name of v.controllers.enabled) {
      if (signal.aborted) return;
      const decision = decideStart(name, { options: o, gates: v.gates, available }, plans);
      if (!decision.start) {
        states[name] = { state: 'not started', reason: decision.reason };
        log(`not starting "${name}": ${decision.reason}`);
        continue;
      }
      states[name] = { state: 'running' };
      metrics.controllersRunning.set({ controller: name }, 1);
      log(`started "${name}"`);
      // Each controller has a client of its own, with its own --x-api-qps/--x-api-burst, as in the real daemon
      // (a Job of a billion pods spends the Job controller's rate limit, not the others'); the informers share
      // one. --use-service-account-credentials: the controller's own service account (service-account-clients.ts);
      // waiting for its token does not hold up the start of the others.
      const perController = o.bool('--use-service-account-credentials')
        ? serviceAccountClient(client, clientConfig, clientOptions, name, signal, log)
        : Promise.resolve(ownClient(client, name, signal));
      const entry: { name: string; running: Promise<unknown> } = { name, running: Promise.resolve() };
      runs.add(entry);
      entry.running = perController
        .then((c) => (c ? decision.controller.run(ctx(name, c)) : undefined))
        .then(() => {
          states[name] = { state: 'stopped' };
        })
        .catch((err: unknown) => {
          states[name] = { state: 'failed', reason: (err as Error).message };
          log(`controller "${name}" failed: ${(err as Error).message}`);
        })
        .finally(() => {
          metrics.controllersRunning.set({ controller: name }, 0);
          runs.delete(entry);
        });
      // The real daemon sleeps a jittered interval (up to twice the option) between starts.
      if (interval > 0) await sleep(interval * (1 + Math.random()), signal);
    }
    informers.start(signal);
  };

  // The control loops running now, so that close() can wait for them to return (bounded: a loop that ignores
  // its signal is named in the log and left behind, not waited for).
  const runs = new Set<{ name: string; running: Promise<unknown> }>();
  const stopLoops = async () => {
    if (runs.size === 0) return;
    const waiting = [...runs];
    const t = new AbortController();
    const allReturned = Promise.allSettled(waiting.map((r) => r.running)).then(() => true);
    const returned = await Promise.race([allReturned, sleep(STOP_GRACE_MS, t.signal).then(() => false)]);
    t.abort();
    if (!returned) log(`closing: controllers still running after ${STOP_GRACE_MS} ms: ${waiting.filter((r) => runs.has(r)).map((r) => r.name).join(', ')}`);
  };

  let resolveDone!: (r: { reason: 'closed' | 'leadership lost' }) => void;
  const done = new Promise<{ reason: 'closed' | 'leadership lost' }>((r) => (resolveDone = r));
  let closing: Promise<void> | undefined;
  const shutdown = (reason: 'closed' | 'leadership lost') => {
    closing ??= (async () => {
      lifetime.abort();
      await stopLoops();
      await http.close();
      await client.close();
      resolveDone({ reason });
    })();
    return closing;
  };

  if (o.bool('--leader-elect')) {
    elector = new LeaderElector({
      client,
      lockType: o.string('--leader-elect-resource-lock') as LockType,
      identity: opts.identity,
      leaseDurationMs: o.durationMs('--leader-elect-lease-duration'),
      renewDeadlineMs: o.durationMs('--leader-elect-renew-deadline'),
      retryPeriodMs: o.durationMs('--leader-elect-retry-period'),
      metrics,
      log,
    });
    const el = elector;
    void el
      .run(lifetime.signal, {
        onStartedLeading: (signal) => {
          void runControllers(signal).catch((err: unknown) => log(`starting controllers failed: ${(err as Error).message}`));
        },
        onStoppedLeading: () => {
          for (const [name, s] of Object.entries(states)) if (s.state === 'running') states[name] = { state: 'stopped' };
        },
      })
      .then((result) => {
        if (result === 'lost') {
          log('leaderelection lost');
          void shutdown('leadership lost');
        }
      });
  } else {
    void runControllers(lifetime.signal).catch((err: unknown) => log(`starting controllers failed: ${(err as Error).message}`));
  }

  return {
    url: http.url,
    port: http.address.port,
    options: o,
    client,
    metrics,
    http,
    identity: elector?.identity,
    isLeader: () => (elector ? elector.isLeader : !lifetime.signal.aborted),
    controllerStates: () => ({ ...states }),
    done,
    close: () => shutdown('closed'),
  };
}

export { UsageError };
export { DAEMON_VERSION, PROGRAM, DaemonExit, prepareOptions } from '../config/command-line.ts';
