// The cluster's clients: the controller daemon (controllers/daemon) and the simulated nodes (nodes/), started side
// by side against an API server's URL, as they would run against any other API server. cluster.ts starts them in
// its own thread (singleThread) or through cluster-clients-thread.ts in a worker thread that runs this same code
// (cluster-clients-worker.ts), so that the API server and its clients each have a core, as a real cluster's API
// server, controller manager and kubelets are processes of their own.
//
// What is passed here must survive structured cloning (the worker thread gets it as workerData): no functions but
// the log sinks, which the worker replaces with messages to the main thread.

import type { DaemonHandle } from './controllers/daemon/daemon.ts';
import type { ControllerPlan } from './controllers/daemon/registry.ts';
import type { NodesHandle, NodesOptions } from './nodes/index.ts';
import type { ContainersAccess } from './nodes/termination-message.ts';

export interface ControllersOptions {
  /** true: every controller on by default; a list: the --controllers given to the daemon. */
  controllers?: boolean | string[];
  /** More daemon options (e.g. ["--concurrent-gc-syncs=5"]); they come last and so win. */
  controllerArgs?: string[];
  /** Where the daemon's log lines go (default: nowhere). */
  controllerLog?: (line: string) => void;
  /** The daemon's clock runs this many milliseconds ahead of the API server's (cluster.ts says why). */
  controllerClockSkewMs?: number;
  /** How often the CronJob controller looks at every CronJob (default 10 s, as the 1.9 daemon). */
  cronJobCheckIntervalMs?: number;
}

/** What the daemon and the nodes are started with (the nodes: none when absent or a count of 0). */
export interface ClientsInit extends Omit<ControllersOptions, 'controllerLog'> {
  url: string;
  vendor: string;
  nodes?: Omit<NodesOptions, 'log' | 'containers'>;
}

export interface ClientsLogs {
  daemon?: (line: string) => void;
  nodes?: (line: string) => void;
}

export interface StartedClients {
  daemon?: DaemonHandle;
  nodes?: NodesHandle;
  close(): Promise<void>;
}

/**
 * The daemon and the nodes side by side (each loads its own modules); when one fails, the other is closed too.
 * `containers`: what the kubelets read of an ended container (its termination-message file), when there are any.
 */
export async function startClients(init: ClientsInit, logs: ClientsLogs = {}, containers?: ContainersAccess): Promise<StartedClients> {
  const wantNodes = init.nodes && (init.nodes.count ?? 3) > 0;
  const [d, n] = await Promise.allSettled([
    init.controllers ? startControllers(init.url, init.vendor, { ...init, controllerLog: logs.daemon }) : undefined,
    wantNodes ? import('./nodes/index.ts').then(({ startNodes }) => startNodes(init.url, { ...init.nodes, containers, log: logs.nodes ?? (() => {}) })) : undefined,
  ]);
  const daemon = d.status === 'fulfilled' ? d.value : undefined;
  const nodes = n.status === 'fulfilled' ? n.value : undefined;
  const close = async () => {
    // The nodes first: their pods' status writes would otherwise wake controllers being closed.
    await nodes?.close();
    await daemon?.close();
  };
  const failed = [d, n].find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    await close();
    throw failed.reason;
  }
  return { daemon, nodes, close };
}

/** The controller daemon against this server, the way `npx tsx simulator/controllers --master URL` runs it. */
export async function startControllers(url: string, vendor: string, opts: ControllersOptions): Promise<DaemonHandle> {
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
