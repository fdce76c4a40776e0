// Starts the API server: storage, registry, codecs, the Fastify app, and the namespaces every cluster has.

import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { Registry } from '../api/registry.ts';
import { MemoryStore } from '../storage/memory.ts';
import { StoreError, type Store } from '../storage/store.ts';
import { buildApp } from './app.ts';
import type { ServerContext, ServerSettings } from './context.ts';
import { WatchHub } from './watch-hub.ts';
import { ServiceAddressAllocator } from './allocators/service-addresses.ts';
import type { BinaryCodec } from './serializers.ts';
import { loadKindRules } from '../api/kinds/index.ts';
import { decodeObject, encodeObject, encodeWatchEvent, hasProtobuf } from '../codec/protobuf.ts';
import type { DaemonHandle } from '../controllers/daemon.ts';
import type { NodesHandle, NodesOptions } from '../nodes/index.ts';

export interface SimulatorOptions {
  port?: number;
  host?: string;
  vendor?: string;
  /** Continue-token lifetime in milliseconds (default 5 minutes). */
  continueTtlMs?: number;
  /** Watch history window (spec 8.1): by count (default 1000) and by age (default 5 minutes). */
  watchHistoryEvents?: number;
  watchHistoryAgeMs?: number;
  store?: Store;
  bodyLimit?: number;
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
}

export interface RunningSimulator {
  url: string;
  port: number;
  app: FastifyInstance;
  ctx: ServerContext;
  /** The in-process controller daemon, when started with `controllers`. */
  daemon?: DaemonHandle;
  /** The simulated nodes, when started with `nodes`. */
  nodes?: NodesHandle;
  close(): Promise<void>;
}

function protobufCodec(vendor: string): BinaryCodec {
  return { mediaType: `application/vnd.${vendor}.protobuf`, encodeObject, decodeObject, encodeWatchEvent, hasProtobuf };
}

const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public'];

export async function startSimulator(opts: SimulatorOptions = {}): Promise<RunningSimulator> {
  const vendor = opts.vendor ?? 'kubernetes';
  const host = opts.host ?? '127.0.0.1';
  const store = opts.store ?? new MemoryStore({ historyEvents: opts.watchHistoryEvents, historyAgeMs: opts.watchHistoryAgeMs });
  const settings: ServerSettings = {
    vendor,
    continueTtlMs: opts.continueTtlMs ?? 5 * 60 * 1000,
    serverAddress: `${host}:${opts.port ?? 0}`,
    bodyLimit: opts.bodyLimit ?? 3 * 1024 * 1024,
    futureRevisionWaitMs: 3000,
  };
  loadKindRules();
  const ctx: ServerContext = {
    registry: new Registry(),
    store,
    settings,
    protobuf: protobufCodec(vendor),
    hub: new WatchHub(),
    serviceAddresses: new ServiceAddressAllocator(store),
    now: () => new Date(),
    timers: new Set(),
  };
  ctx.serviceAddresses.start();
  const app = buildApp(ctx);
  await app.listen({ port: opts.port ?? 0, host });
  const port = (app.server.address() as AddressInfo).port;
  settings.serverAddress = `${host}:${port}`;
  await bootstrapNamespaces(ctx);
  const displayHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  const url = `http://${displayHost}:${port}`;
  let daemon: DaemonHandle | undefined;
  let nodes: NodesHandle | undefined;
  try {
    if (opts.controllers) daemon = await startControllers(url, vendor, opts);
    const nodeOpts = typeof opts.nodes === 'number' ? { count: opts.nodes } : opts.nodes;
    if (nodeOpts && (nodeOpts.count ?? 3) > 0) {
      // Loaded only when asked for, like the daemon.
      const { startNodes } = await import('../nodes/index.ts');
      nodes = await startNodes(url, { log: () => {}, ...nodeOpts });
    }
  } catch (err) {
    await daemon?.close();
    await app.close();
    await store.close();
    throw err;
  }
  return {
    url,
    port,
    app,
    ctx,
    daemon,
    nodes,
    async close() {
      // Clients first: their watches would otherwise hold the server open.
      await nodes?.close();
      await daemon?.close();
      for (const t of ctx.timers) clearTimeout(t);
      ctx.timers.clear();
      ctx.serviceAddresses.stop();
      await app.close();
      await store.close();
    },
  };
}

async function bootstrapNamespaces(ctx: ServerContext): Promise<void> {
  for (const name of SYSTEM_NAMESPACES) {
    const key = `/registry/namespaces/${name}`;
    if (await ctx.store.get(key)) continue;
    const ts = ctx.now().toISOString().replace(/\.\d{3}Z$/, 'Z');
    await ctx.store
      .create(key, {
        kind: 'Namespace',
        apiVersion: 'v1',
        metadata: { name, selfLink: `/api/v1/namespaces/${name}`, uid: crypto.randomUUID(), creationTimestamp: ts },
        spec: { finalizers: ['kubernetes'] },
        status: { phase: 'Active' },
      })
      .catch((e: unknown) => {
        // Another API server on the same etcd made it between our get and create: it exists, which is the point.
        if (!(e instanceof StoreError && e.code === 'KeyExists')) throw e;
      });
  }
}

/** The controller daemon against this server, the way `npx tsx simulator/controllers --master URL` runs it. */
async function startControllers(url: string, vendor: string, opts: SimulatorOptions): Promise<DaemonHandle> {
  // Loaded only when asked for, so that the API server alone does not pay for the daemon's modules.
  const { startDaemon } = await import('../controllers/daemon.ts');
  // A client on the same machine, often in the same process: the spec's 20 qps (meant for a remote API
  // server) would queue namespace deletions behind each other when a test run deletes dozens at once.
  const argv = ['--master', url, '--leader-elect=false', '--address=127.0.0.1', '--port=0', '--x-api-qps=300', '--x-api-burst=600'];
  if (Array.isArray(opts.controllers)) argv.push(`--controllers=${opts.controllers.join(',')}`);
  argv.push(...(opts.controllerArgs ?? []));
  return startDaemon(argv, { vendor, log: opts.controllerLog ?? (() => {}) });
}
