// startSimulator: the whole simulated cluster the way the command line starts it (API server, controller daemon,
// three nodes), from the command line's options by the same names, with its client config written, manifests of
// --load created and, on stop, a snapshot saved and the client config removed. The CLI (simulator/main.ts) is a
// thin shell over this; the package's entry (lib/index.ts) exports it. The composition itself is cluster.ts.

import { threadId } from 'node:worker_threads';
import { startSimulator as startCluster, type RunningSimulator } from '../cluster.ts';
import { renderKubeconfig } from '../client/kubeconfig.ts';
import { buildSecureServing, SecurityOptionsError, type SecureServing } from '../server/secure-serving.ts';
import { openStore, type StorageChoice } from '../storage/etcd-cli.ts';
import { MemoryStore } from '../storage/memory.ts';
import type { Store } from '../storage/store.ts';
import { mergeClientConfig, userKubeconfigPath, writeClientConfig, type WrittenClientConfig } from './client-config-file.ts';
import { SimulatorError, SimulatorOptionError, SimulatorStartError } from './errors.ts';
import { applyManifests, readManifests } from './manifests.ts';
import { planLaunch } from './options.ts';
import type { Simulator, SimulatorOptions } from './types.ts';
import { readSnapshot, saveSnapshot } from './snapshot.ts';

export { SimulatorError, SimulatorOptionError, SimulatorStartError, ManifestLoadError } from './errors.ts';
export { DEFAULT_CLI_PORT } from './options.ts';
export type { Simulator, SimulatorOptions } from './types.ts';
export { packageVersion, SIMULATED_API_VERSION, versionText } from './version.ts';

/** What the CLI needs besides: the parts themselves. */
export interface LaunchedSimulator extends Simulator {
  cluster: RunningSimulator;
  serving: SecureServing;
  storage: StorageChoice;
}

export interface LaunchDefaults {
  port: number;
  /** Start the daemon and nodes this many ms after the API server listens (cluster.ts clientsBehind). */
  clientsAfterMs?: number;
}

/**
 * Starts a simulated cluster: by default what `npx tsx simulator` starts (the API server, the controller daemon
 * and three nodes), on a free port. `noControllers: true, nodes: 0` is the API server alone. Throws
 * SimulatorOptionError for a bad option, SimulatorStartError (ManifestLoadError for --load) when it cannot start.
 */
export function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  return launchSimulator(options, { port: 0 });
}

export async function launchSimulator(o: SimulatorOptions, defaults: LaunchDefaults): Promise<LaunchedSimulator> {
  const plan = planLaunch(o, defaults);
  const log = o.log;
  let serving: SecureServing;
  try {
    serving = await buildSecureServing({
      secure: o.secure,
      tlsCertFile: o.tlsCertFile,
      tlsPrivateKeyFile: o.tlsPrivateKeyFile,
      clientCaFile: o.clientCaFile,
      tokenAuthFile: o.tokenAuthFile,
      serviceAccountKeyFile: o.serviceAccountKeyFile,
      serviceAccountLookup: o.serviceAccountLookup,
      anonymousAuth: o.anonymousAuth,
      enableBootstrapTokenAuth: o.enableBootstrapTokenAuth,
      authorizationMode: o.authorizationMode,
      host: plan.host,
    });
  } catch (e) {
    if (e instanceof SecurityOptionsError) throw new SimulatorOptionError(/--[a-z-]+/.exec(e.message)?.[0] ?? '--secure', e.message);
    throw new SimulatorStartError(`cannot start: ${(e as Error).message}`, { cause: e });
  }
  // Read before anything listens: a manifest that does not parse fails the start at once.
  const manifests = readManifests(plan.load);
  let store: Store | undefined;
  let memory: MemoryStore | undefined;
  try {
    if (plan.storage.storage === 'memory') {
      const initial = o.snapshotLoad !== undefined ? readSnapshot(o.snapshotLoad) : undefined;
      store = memory = new MemoryStore({ historyEvents: plan.historyEvents, historyAgeMs: plan.historyAgeMs, initial });
    } else store = await openStore(plan.storage, { historyEvents: plan.historyEvents, historyAgeMs: plan.historyAgeMs });
  } catch (e) {
    serving.stop();
    if (e instanceof SimulatorError) throw e;
    throw new SimulatorStartError(`cannot start: ${(e as Error).message}`, { cause: e });
  }
  const component = (name: string) => (log ? (line: string) => log(`${name}] ${line}`) : undefined);
  let cluster: RunningSimulator;
  try {
    cluster = await startCluster({
      store,
      port: plan.port,
      host: plan.host,
      vendor: plan.vendor,
      continueTtlMs: plan.continueTtlMs,
      requestReceiveTimeoutMs: plan.receiveTimeoutMs,
      runtimeConfig: o.runtimeConfig,
      admissionControl: o.admissionControl,
      watchHistoryEvents: plan.historyEvents,
      watchHistoryAgeMs: plan.historyAgeMs,
      controllers: plan.controllers,
      nodes: {
        count: plan.nodes,
        zones: plan.zones,
        heartbeatMs: plan.heartbeatMs,
        schedulerQps: plan.clientLimits.schedulerQps,
        schedulerBurst: plan.clientLimits.schedulerBurst,
        kubeletQps: plan.clientLimits.kubeletQps,
        kubeletBurst: plan.clientLimits.kubeletBurst,
        log: component('nodes'),
      },
      // The daemon and the nodes in a worker thread of their own (cluster-clients-thread.ts) unless --single-thread.
      clientsThread: !plan.singleThread,
      onClientsError: o.onError,
      // Node IPAM on, as kubeadm-made clusters have it (pod IPs from each node's range); daemonArg wins.
      containers: { configFile: o.containerConfig, localExecDir: o.localExec },
      controllerArgs: ['--allocate-node-cidrs', '--cluster-cidr=10.244.0.0/16', ...plan.daemonArgs],
      controllerLog: component('controller-daemon'),
      serving,
      // httplog's level in the real server.
      requestLog: plan.verbosity >= 3 ? component('httplog') : undefined,
      clientsBehind: defaults.clientsAfterMs,
    });
  } catch (e) {
    serving.stop();
    await store?.close();
    // The default port is taken most often by another simulator started earlier: say how to get another one.
    const busy = (e as NodeJS.ErrnoException).code === 'EADDRINUSE' ? ` (another process listens there; --port N, or --port 0 for a free one)` : '';
    throw new SimulatorStartError(`cannot start: ${(e as Error).message}${busy}`, { cause: e });
  }
  const context = `simulator-${cluster.port}`;
  const creds = serving.admin ? ('token' in serving.admin ? { token: serving.admin.token } : { cert: serving.admin.cert, key: serving.admin.key }) : {};
  const kubeconfig = renderKubeconfig({ server: cluster.url, ca: serving.ca, ...creds, namespace: 'default', name: context });
  let written: WrittenClientConfig | undefined;
  let unmerge: (() => void) | undefined;
  let mergedInto: string | undefined;
  const removeFiles = () => {
    unmerge?.();
    written?.remove();
  };
  process.on('exit', removeFiles);
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      try {
        if (o.snapshotSave !== undefined && memory) saveSnapshot(o.snapshotSave, memory);
      } finally {
        removeFiles();
        process.off('exit', removeFiles);
        await cluster.close();
      }
    })());
  let loaded = 0;
  try {
    await cluster.ready;
    const thread = cluster.clientsThread;
    if (thread) log?.(`simulator] the controller daemon and ${thread.nodeNames.length} nodes run in worker thread ${thread.threadId}, the API server in thread ${threadId}`);
    written = writeClientConfig(kubeconfig, o.kubeconfigOut);
    if (o.kubeconfigMerge) {
      mergedInto = typeof o.kubeconfigMerge === 'string' ? o.kubeconfigMerge : userKubeconfigPath();
      unmerge = mergeClientConfig(mergedInto, kubeconfig, context);
    }
    if (manifests.length > 0) {
      // The HTTP client (undici, about a hundred modules) and the kubeconfig parser (js-yaml) loaded only for --load.
      const [{ ApiClient }, { parseKubeconfig }] = await Promise.all([import('../client/api-client.ts'), import('../codec/kubeconfig.ts')]);
      const client = await ApiClient.create(parseKubeconfig(kubeconfig, '<simulator>', process.cwd()), {
        qps: 1000,
        burst: 1000,
        contentType: 'application/json',
        userAgent: 'cluster-simulator/load',
        codec: null,
      });
      try {
        loaded = await applyManifests(client, manifests);
      } finally {
        await client.close();
      }
    }
  } catch (e) {
    await stop().catch(() => {});
    if (e instanceof SimulatorError) throw e;
    throw new SimulatorStartError(`cannot start: ${(e as Error).message}`, { cause: e });
  }
  return {
    url: cluster.url,
    port: cluster.port,
    kubeconfig,
    kubeconfigPath: written.path,
    context,
    mergedInto,
    nodeNames: cluster.nodes?.nodeNames ?? cluster.clientsThread?.nodeNames ?? [],
    daemonUrl: cluster.daemon?.url ?? cluster.clientsThread?.daemonUrl,
    clientsThreadId: cluster.clientsThread?.threadId,
    loaded,
    stop,
    cluster,
    serving,
    storage: plan.storage,
  };
}
