// Starts the API server alone: storage, registry, codecs, the Fastify app, and the namespaces every cluster
// has. The whole cluster (API server + controller daemon + simulated nodes) is composed in ../cluster.ts,
// which is the only caller that knows about the daemon and the nodes.

import type { AddressInfo, Socket } from 'node:net';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { Registry } from '../api/registry.ts';
import { parseRuntimeConfig, servedResources } from '../api/runtime-config.ts';
import { MemoryStore } from '../storage/memory.ts';
import { StoreError, type Store } from '../storage/store.ts';
import { buildAdmissionChain } from './admission/plugins.ts';
import { buildApp, type TlsOptions } from './app.ts';
import { routeUpgrades } from './streams/upgrade.ts';
import { alwaysAllow } from './authorization/authorizer.ts';
import type { SecurityContext } from './authorization/filter.ts';
import type { ServerContext, ServerSettings } from './context.ts';
import { WatchHub } from './watch-hub.ts';
import { ensureKubernetesService } from './kubernetes-service.ts';
import { WatchCaches } from './watch-cache.ts';
import { closeListers, startListers } from './object-cache.ts';
import { CustomResourceController } from './custom-resources.ts';
import { ApiServiceController } from './aggregator/api-services.ts';
import { ServiceAddressAllocator } from './allocators/service-addresses.ts';
import type { BinaryCodec } from './serializers.ts';
import '../api/kinds/index.ts';
import { decodeObject, encodeObject, encodeWatchEvent, hasProtobuf } from '../codec/protobuf.ts';
import { createStored, getStored, STORAGE_REFS } from './registry/storage.ts';

export interface ApiServerOptions {
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
  /** How long a request's headers and body may take to arrive before 408 (default 60 s). */
  requestReceiveTimeoutMs?: number;
  /** Per-client fairness of request handling: the budget of a pass in milliseconds (default 5; 0: off). */
  fairQueueBudgetMs?: number;
  /** Serve HTTPS with this certificate and key (and ask for client certificates signed by clientCa). */
  tls?: TlsOptions;
  /**
   * Authentication and authorization. Default: none, like the real insecure port (every request is
   * system:unsecured in system:masters; the access-review endpoints answer with AlwaysAllow).
   */
  security?: SecurityContext;
  /** The request log (the real server's httplog at --v=3): one line per answered request; default none. */
  requestLog?: (line: string) => void;
  /**
   * The real `--runtime-config`: which group versions (and resources) are served, e.g.
   * `batch/v2alpha1=true,storage.k8s.io/v1alpha1=true` (api/runtime-config.ts). Default: a default 1.9 cluster's.
   */
  runtimeConfig?: string | string[];
  /**
   * The real `--admission-control`: the admission plugins, in order (admission/plugins.ts). Default: 1.9's
   * recommended list (NamespaceLifecycle, LimitRanger, ServiceAccount, ..., MutatingAdmissionWebhook,
   * ValidatingAdmissionWebhook, ResourceQuota) when `daemonBehind`, else the same without ServiceAccount;
   * PodSecurityPolicy only when named, as in 1.9.
   */
  admissionControl?: string | string[];
  /**
   * A controller daemon that makes service accounts and their tokens runs against this server (startSimulator
   * with the serviceaccount and serviceaccount-token controllers): the default admission chain
   * then has ServiceAccount, whose accounts and tokens only the daemon makes.
   */
  daemonBehind?: boolean;
  /**
   * How often the aggregator checks again that each aggregated APIService's server answers (default 30 s; it is
   * also checked whenever the APIService, its Service or its Endpoints change).
   */
  apiServiceCheckIntervalMs?: number;
  /** Runs after the system namespaces exist and before the server is reported started (RBAC bootstrap policy). */
  postStart?: (ctx: ServerContext) => Promise<void>;
}

export interface RunningApiServer {
  url: string;
  port: number;
  app: FastifyInstance;
  ctx: ServerContext;
  close(): Promise<void>;
}

function protobufCodec(vendor: string): BinaryCodec {
  return { mediaType: `application/vnd.${vendor}.protobuf`, encodeObject, decodeObject, encodeWatchEvent, hasProtobuf };
}

const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public'];

export async function startApiServer(opts: ApiServerOptions = {}): Promise<RunningApiServer> {
  const vendor = opts.vendor ?? 'kubernetes';
  const host = opts.host ?? '127.0.0.1';
  const store = opts.store ?? new MemoryStore({ historyEvents: opts.watchHistoryEvents, historyAgeMs: opts.watchHistoryAgeMs });
  const settings: ServerSettings = {
    vendor,
    continueTtlMs: opts.continueTtlMs ?? 5 * 60 * 1000,
    serverAddress: `${host}:${opts.port ?? 0}`,
    bodyLimit: opts.bodyLimit ?? 3 * 1024 * 1024,
    futureRevisionWaitMs: 3000,
    requestReceiveTimeoutMs: opts.requestReceiveTimeoutMs ?? 60_000,
    requestLog: opts.requestLog,
    fairQueueBudgetMs: opts.fairQueueBudgetMs,
  };
  const ctx: ServerContext = {
    registry: new Registry(servedResources(parseRuntimeConfig(opts.runtimeConfig))),
    store,
    settings,
    protobuf: protobufCodec(vendor),
    hub: new WatchHub(),
    watchCache: new WatchCaches(store, opts.watchHistoryEvents ?? 1000),
    serviceAddresses: new ServiceAddressAllocator(store),
    now: () => new Date(),
    timers: new Set(),
    security: opts.security ?? { authorizer: alwaysAllow },
  };
  // The namespace and quota listers the write path reads, as the real admission plugins' informers.
  ctx.listers = startListers(store, () => ctx.now().getTime());
  // Admission plugins, in the order --admission-control gives (default: 1.9's recommended list, ResourceQuota last).
  const admission = buildAdmissionChain(ctx, opts.admissionControl, opts.daemonBehind);
  ctx.mutatingAdmission = admission.mutating;
  ctx.admission = admission.validating;
  ctx.serviceAddresses.start();
  const app = buildApp(ctx, opts.tls);
  const cutUpgraded = routeUpgrades(app.server);
  const unusedConnections = trackUnusedConnections(app, Boolean(opts.tls));
  await app.listen({ port: opts.port ?? 0, host });
  const port = (app.server.address() as AddressInfo).port;
  settings.serverAddress = `${host}:${port}`;
  await bootstrapNamespaces(ctx);
  await ensureKubernetesService(ctx, host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host, port);
  // CustomResourceDefinitions already stored (a restart on etcd) are served before the first request is.
  // The APIServices of the server's own group versions (custom resources' included, as they come and go), and
  // the aggregated ones' availability and routes.
  const apiServices = new ApiServiceController(ctx, { checkIntervalMs: opts.apiServiceCheckIntervalMs });
  const customResources = new CustomResourceController(ctx, () => apiServices.customResourcesChanged());
  await customResources.start();
  await apiServices.start();
  ctx.aggregator = apiServices;
  await opts.postStart?.(ctx);
  const displayHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  const url = `${opts.tls ? 'https' : 'http'}://${displayHost}:${port}`;
  return {
    url,
    port,
    app,
    ctx,
    async close() {
      for (const t of ctx.timers) clearTimeout(t);
      ctx.timers.clear();
      ctx.serviceAddresses.stop();
      // Open watches would hold app.close() until their clients go: they end cleanly first.
      ctx.hub.endAll();
      // exec, attach and port-forward sessions end with the server, as watches do.
      cutUpgraded();
      customResources.close();
      apiServices.close();
      admission.close();
      ctx.watchCache.close();
      closeListers(ctx.listers);
      await closeWithin(app, unusedConnections, CLOSE_GRACE_MS);
      await store.close();
    },
  };
}

/** How long close() lets requests still running finish before their connections are cut. */
const CLOSE_GRACE_MS = 2000;

/**
 * The connections that have not sent a request yet. Node counts such a connection as active (its headers timer
 * runs), not idle, so the server's close() waits for it the whole headersTimeout (60 s) although nothing is
 * being served: an undici client opens one when it reconnects for a queued request that was aborted meanwhile,
 * and keeps it open, unused. (Found as a 60 s stall in the after() hook of controllers/volumes.test.ts.)
 */
function trackUnusedConnections(app: FastifyInstance, tls: boolean): Set<Socket> {
  const unused = new Set<Socket>();
  app.server.on(tls ? 'secureConnection' : 'connection', (socket: Socket) => {
    unused.add(socket);
    socket.once('close', () => unused.delete(socket));
  });
  app.server.on('request', (req: IncomingMessage) => unused.delete(req.socket));
  return unused;
}

/**
 * app.close() with a bound: connections that never sent a request are cut at once (idle keep-alive ones are
 * closed by app.close() itself), and a request still running after graceMs is cut with its connection.
 */
async function closeWithin(app: FastifyInstance, unused: Set<Socket>, graceMs: number): Promise<void> {
  const closed = app.close();
  for (const socket of unused) socket.destroy();
  unused.clear();
  let timer: NodeJS.Timeout | undefined;
  const cut = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      app.server.closeAllConnections();
      resolve();
    }, graceMs);
  });
  await Promise.race([closed, cut]);
  clearTimeout(timer);
  await closed;
}

async function bootstrapNamespaces(ctx: ServerContext): Promise<void> {
  for (const name of SYSTEM_NAMESPACES) {
    if (await getStored(ctx, STORAGE_REFS.namespaces, undefined, name)) continue;
    const ts = ctx.now().toISOString().replace(/\.\d{3}Z$/, 'Z');
    await createStored(ctx, STORAGE_REFS.namespaces, undefined, name, {
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
