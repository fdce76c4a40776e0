// The public types of startSimulator, in a file that imports only the like of it (server/security-flags.ts): the
// package's declaration files (dist/*.d.ts, scripts/build-package.mjs) are made from these, the errors and the entry
// files alone, without the rest of the tree.

import type { SecurityOptions } from '../server/security-flags.ts';

/** startSimulator's options: the command line's flags by the same names in camelCase (security ones included). */
export interface SimulatorOptions extends SecurityOptions {
  /** The real --runtime-config: group versions served or not (api/runtime-config.ts; default a 1.9 cluster's). */
  runtimeConfig?: string | string[];
  /** The real --admission-control: admission plugins in order (server/admission/plugins.ts; default 1.9's recommended). */
  admissionControl?: string;
  /** Port to listen on; 0 (the default here; the CLI's is 6480) picks a free one. */
  port?: number;
  /** Address to listen on (default 127.0.0.1). */
  host?: string;
  /** The {vendor} word of media types (default kubernetes). */
  vendor?: string;
  /** Lifetime of continue tokens, Go duration (default 5m0s). */
  continueTtl?: string;
  /** Changes kept for resuming watches (default 1000). */
  watchHistoryEvents?: number;
  /** Age of changes kept for resuming watches, Go duration (default 5m0s). */
  watchHistoryAge?: string;
  /** Write the client config to this file and keep it after stop (default: a private temporary directory, removed on stop). */
  kubeconfigOut?: string;
  /**
   * Also add this cluster's context (simulator-PORT) to a kubeconfig and make it current, removed again on stop:
   * true for the user's (the first file of $KUBECONFIG, else ~/.kube/config), or a path.
   */
  kubeconfigMerge?: boolean | string;
  /** How long a request's headers and body may take to arrive, Go duration (default 1m0s). */
  receiveTimeout?: string;
  /** Where objects live (default memory). */
  storage?: 'memory' | 'etcd';
  /** etcd client URLs, comma-separated (storage etcd; default http://127.0.0.1:2379). */
  etcdServers?: string;
  /** etcd key prefix (storage etcd; default /registry). */
  etcdPrefix?: string;
  /** The API server alone, without the controller daemon (default false: the daemon runs, as with the CLI). */
  noControllers?: boolean;
  /** Simulated nodes (kubelets and a scheduler; default 3, as the CLI; 0: none). */
  nodes?: number;
  /** Spread the nodes over this many zones (default 0). */
  zones?: number;
  /** The simulated kubelets' heartbeat, Go duration (default 10s). */
  nodeStatusUpdateFrequency?: string;
  /**
   * The simulated scheduler's client limits toward the API, as kube-scheduler's --kube-api-qps/--kube-api-burst
   * (default 50 and 100, 1.9's; qps 0: client-go's default 5 and 10; a negative qps: no limit).
   */
  schedulerApiQps?: number;
  schedulerApiBurst?: number;
  /**
   * Each simulated kubelet's client limits toward the API, as the kubelet's --kube-api-qps/--kube-api-burst (default
   * 5 and 10, 1.9's; a negative qps: no limit, its events' client too). For scale tests raise both and the daemon's:
   * kubeletApiQps -1, schedulerApiQps -1, daemonArg ['--x-api-qps=100000', '--x-api-burst=100000'].
   */
  kubeletApiQps?: number;
  kubeletApiBurst?: number;
  /**
   * Run the controller daemon and the nodes in the API server's thread (default false: they run in a worker thread
   * of their own, so that the API server keeps its thread and a second core does their work).
   */
  singleThread?: boolean;
  /**
   * The daemon's and nodes' thread failed after the start (an uncaught error there, or it ended): told once. Default:
   * the error written to stderr. The API server keeps serving.
   */
  onError?: (error: Error) => void;
  /** Options for the in-process controller daemon, e.g. ['--concurrent-gc-syncs=5']. */
  daemonArg?: string[];
  /** --container-config: what the simulated containers do, cluster-wide (nodes/containers/config.ts). */
  containerConfig?: string;
  /** --local-exec: exec runs real processes on this host under this directory. Off unless given. */
  localExec?: string;
  /** Log verbosity (glog levels); at 3 or more every request is logged. Lines go to `log`. */
  v?: number;
  /** Manifests (YAML or JSON, several documents each) created at start, in dependency order: files or directories. */
  load?: string | string[];
  /** Start from this snapshot file (memory storage): every object and the revision counter. */
  snapshotLoad?: string;
  /** Save a snapshot of the memory store to this file on stop. */
  snapshotSave?: string;
  /** Where the daemon's, the nodes' and (with v >= 3) the request log's lines go (default: nowhere). */
  log?: (line: string) => void;
}

/** A running simulator. */
export interface Simulator {
  /** Base URL of the API server, e.g. http://127.0.0.1:41237. */
  url: string;
  port: number;
  /** The client config (kubeconfig YAML) with cluster, user and context named `context`. */
  kubeconfig: string;
  /** Where that client config was written (removed by stop() unless kubeconfigOut was given). */
  kubeconfigPath: string;
  /** The context, cluster and user name in the client config: simulator-PORT. */
  context: string;
  /** The kubeconfig it was merged into (kubeconfigMerge), else undefined. */
  mergedInto?: string;
  /** Names of the simulated nodes (none with nodes: 0). */
  nodeNames: string[];
  /** Base URL of the in-process controller daemon's HTTP service (/configz, /healthz, /metrics), unless noControllers. */
  daemonUrl?: string;
  /** The id of the worker thread the daemon and the nodes run in (node:worker_threads threadId); undefined with singleThread or when neither runs. */
  clientsThreadId?: number;
  /** How many objects --load created. */
  loaded: number;
  /** Stops everything, saves the snapshot (snapshotSave) and removes the client config; safe to call twice. */
  stop(): Promise<void>;
}
