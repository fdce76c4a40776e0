// The options of startSimulator: the command line's flags by the same names (camelCase: --kubeconfig-out is
// kubeconfigOut), checked here once for both, so that the CLI (main.ts) only turns argv into this object.

import { parseGoDuration, toMilliseconds } from '../util/go-duration.ts';
import { parseStorageArgs, type StorageChoice } from '../storage/etcd-cli.ts';
import { SimulatorOptionError } from './errors.ts';
import type { SimulatorOptions } from './types.ts';

export type { SimulatorOptions } from './types.ts';

/**
 * The CLI's default port. Not 8080: that is where kubectl (and client-go based tools) silently send requests
 * when they find no client config, so a simulator there answered commands meant for no cluster at all. Not 6443
 * or 8443 either (the secure ports of kubeadm, k3s, Docker Desktop and minikube), so that it does not collide
 * with a real local cluster.
 */
export const DEFAULT_CLI_PORT = 6480;

/** The options checked and turned into what the parts take. */
export interface LaunchPlan {
  port: number;
  host: string;
  vendor: string;
  continueTtlMs: number;
  historyEvents: number;
  historyAgeMs: number;
  receiveTimeoutMs: number;
  storage: StorageChoice;
  controllers: boolean;
  nodes: number;
  zones: number;
  heartbeatMs: number;
  daemonArgs: string[];
  /** The scheduler's and each kubelet's client limits (nodes/index.ts NodesOptions). */
  clientLimits: { schedulerQps: number; schedulerBurst: number; kubeletQps: number; kubeletBurst: number };
  singleThread: boolean;
  verbosity: number;
  load: string[];
}

function duration(option: string, text: string | undefined, dflt: string): number {
  try {
    return toMilliseconds(parseGoDuration(text ?? dflt));
  } catch (e) {
    throw new SimulatorOptionError(option, `invalid ${option} ${JSON.stringify(text)}: ${(e as Error).message}`);
  }
}

/** A client's qps as client-go takes it (float32; 0: its default; negative: no limit). */
function qps(option: string, v: number | undefined, dflt: number): number {
  const n = v ?? dflt;
  if (typeof n !== 'number' || !Number.isFinite(n) || Math.abs(n) > 3.4e38) throw new SimulatorOptionError(option, `invalid ${option} ${JSON.stringify(v)}: expected a number (negative: no limit)`);
  return n;
}

function integer(option: string, v: number | undefined, dflt: number, min: number, max: number): number {
  const n = v ?? dflt;
  if (!Number.isInteger(n) || n < min || n > max) throw new SimulatorOptionError(option, `invalid ${option} ${JSON.stringify(v)}: expected an integer ${min}-${max}`);
  return n;
}

export function planLaunch(o: SimulatorOptions, defaults: { port: number }): LaunchPlan {
  const host = o.host ?? '127.0.0.1';
  const vendor = o.vendor ?? 'kubernetes';
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(vendor)) throw new SimulatorOptionError('--vendor', `invalid --vendor ${JSON.stringify(vendor)}: expected a lower-case word`);
  const receiveTimeoutMs = duration('--receive-timeout', o.receiveTimeout, '1m0s');
  if (!(receiveTimeoutMs > 0)) throw new SimulatorOptionError('--receive-timeout', 'invalid --receive-timeout: must be positive');
  let storage: StorageChoice;
  try {
    storage = parseStorageArgs({ storage: o.storage, 'etcd-servers': o.etcdServers, 'etcd-prefix': o.etcdPrefix });
  } catch (e) {
    throw new SimulatorOptionError('--storage', (e as Error).message);
  }
  if (storage.storage !== 'memory') {
    if (o.snapshotLoad !== undefined) throw new SimulatorOptionError('--snapshot-load', '--snapshot-load needs --storage memory (etcd keeps its own data)');
    if (o.snapshotSave !== undefined) throw new SimulatorOptionError('--snapshot-save', '--snapshot-save needs --storage memory (etcd keeps its own data)');
  }
  const daemonArgs = o.daemonArg ?? [];
  let heartbeatMs: number;
  try {
    heartbeatMs = kubeletHeartbeatMs(o.nodeStatusUpdateFrequency, daemonArgs);
  } catch (e) {
    throw new SimulatorOptionError('--node-status-update-frequency', (e as Error).message);
  }
  const load = o.load === undefined ? [] : Array.isArray(o.load) ? o.load : [o.load];
  return {
    port: integer('--port', o.port, defaults.port, 0, 65535),
    host,
    vendor,
    continueTtlMs: duration('--continue-ttl', o.continueTtl, '5m0s'),
    historyEvents: integer('--watch-history-events', o.watchHistoryEvents, 1000, 1, Number.MAX_SAFE_INTEGER),
    historyAgeMs: duration('--watch-history-age', o.watchHistoryAge, '5m0s'),
    receiveTimeoutMs,
    storage,
    controllers: !o.noControllers,
    nodes: integer('--nodes', o.nodes, 3, 0, 10000),
    zones: integer('--zones', o.zones, 0, 0, 26),
    heartbeatMs,
    daemonArgs,
    clientLimits: {
      schedulerQps: qps('--scheduler-api-qps', o.schedulerApiQps, 50),
      schedulerBurst: integer('--scheduler-api-burst', o.schedulerApiBurst, 100, 0, 2 ** 31 - 1),
      kubeletQps: qps('--kubelet-api-qps', o.kubeletApiQps, 5),
      kubeletBurst: integer('--kubelet-api-burst', o.kubeletApiBurst, 10, 0, 2 ** 31 - 1),
    },
    singleThread: o.singleThread === true,
    verbosity: integer('--v', o.v, 0, 0, 100),
    load,
  };
}

/**
 * The kubelets' heartbeat: --node-status-update-frequency, else 10 s or a fifth of a shorter
 * --node-monitor-grace-period among the daemon's options (heartbeat times have whole seconds, so the grace
 * period must also exceed a second plus the heartbeat).
 */
function kubeletHeartbeatMs(explicit: string | undefined, daemonArgs: readonly string[]): number {
  if (explicit !== undefined) {
    const ms = toMilliseconds(parseGoDuration(explicit));
    if (!(ms >= 10)) throw new Error(`invalid --node-status-update-frequency ${JSON.stringify(explicit)}: expected at least 10ms`);
    return ms;
  }
  let grace: number | undefined;
  for (let i = 0; i < daemonArgs.length; i++) {
    const m = /^--node[-_]monitor[-_]grace[-_]period(?:=(.*))?$/.exec(daemonArgs[i]);
    if (!m) continue;
    const text = m[1] ?? daemonArgs[i + 1];
    try {
      grace = toMilliseconds(parseGoDuration(text ?? ''));
    } catch {
      // The daemon reports a bad value itself.
    }
  }
  return grace !== undefined && grace / 5 < 10_000 ? Math.max(100, Math.floor(grace / 5)) : 10_000;
}
