// What every handler needs: the registry, the store, the codecs and the server's settings.

import type { Dispatcher } from 'undici';
import type { Registry, ResourceDef } from '../api/registry.ts';
import type { Store } from '../storage/store.ts';
import type { BinaryCodec } from './serializers.ts';
import type { WatchHub } from './watch-hub.ts';
import type { FairQueue } from './fair-queue.ts';
import type { WatchCaches } from './watch-cache.ts';
import type { Listers } from './object-cache.ts';
import type { ServiceAddressAllocator } from './allocators/service-addresses.ts';
import type { AdmissionHook } from './admission/attributes.ts';
import type { SecurityContext } from './authorization/filter.ts';
import type { UserInfo } from './authentication/user.ts';
import type { ContainerRuntime } from '../api/container-runtime.ts';
import type { UsageDefaults } from '../api/pod-usage.ts';

export interface ServerSettings {
  /** The word in media types and paths (spec {vendor}); default "kubernetes". */
  vendor: string;
  /** Continue-token lifetime (spec 8.1: 5 minutes by default). */
  continueTtlMs: number;
  /** Address clients should use, for /api serverAddressByClientCIDRs. */
  serverAddress: string;
  /** Largest request body accepted. */
  bodyLimit: number;
  /** How long the headers and body of a request may take to arrive before it is cut with 408 (default 60 s). */
  requestReceiveTimeoutMs?: number;
  /** How long a list with a future resourceVersion waits before 504 (the real server waits 3 s). */
  futureRevisionWaitMs: number;
  /**
   * Milliseconds of answering per pass of the event loop before requests wait in per-client queues served round
   * robin (fair-queue.ts; default 5). 0: answered in the order they were read, with no queues.
   */
  fairQueueBudgetMs?: number;
  /** Where the request log goes, one line per answered request (request-log.ts); none: no log. */
  requestLog?: (line: string) => void;
  /** Bounds on exec, attach and port-forward sessions (streams/limits.ts; defaults 256 in all, 64 streams each). */
  streamLimits?: { total?: number; perConnection?: number };
  /** Cluster-wide container usage when a pod says nothing (api/pod-usage.ts; the --container-config file). */
  usageDefaults?: UsageDefaults;
}

export interface ServerContext {
  registry: Registry;
  store: Store;
  settings: ServerSettings;
  protobuf?: BinaryCodec;
  hub: WatchHub;
  /** One store watch per resource type, fanned out to every HTTP watcher of that type. */
  watchCache: WatchCaches;
  /** Informer-style caches of namespaces and resource quotas that the write path reads (object-cache.ts). */
  listers?: Listers;
  /** Cluster IPs and node ports of Services. */
  serviceAddresses: ServiceAddressAllocator;
  now(): Date;
  /** Pending timers of graceful pod deletion, cleared on close. */
  timers: Set<NodeJS.Timeout>;
  /** Authentication and authorization (server/authentication, server/authorization). */
  security: SecurityContext;
  /** The per-client queues of request handling (fair-queue.ts), unless turned off; set by the app. */
  fairQueue?: FairQueue;
  /** Admission hooks run by the generic store before every create, update and delete (none by default). */
  admission?: AdmissionHook[];
  /** Mutating admission hooks, run before `admission` on creates and updates (admission/plugins.ts). */
  mutatingAdmission?: AdmissionHook[];
  /** Health probes of the control plane's parts this process runs, by component name (component-statuses.ts). */
  components?: Map<string, ComponentProbe>;
  /** The containers of simulated pods, for exec, attach and port-forward (streams/runtime.ts); none: refused. */
  containers?: ContainerRuntime;
  /** The APIServices that name a Service: discovery lists the available ones, requests under them are proxied (aggregator/). */
  aggregator?: AggregatedApis;
}

/** An aggregated API server as the aggregator reaches it (aggregator/api-services.ts keeps them). */
export interface AggregatedBackend {
  /** The APIService's name, <version>.<group>. */
  name: string;
  group: string;
  version: string;
  groupPriorityMinimum: number;
  versionPriority: number;
  service: { namespace: string; name: string };
  caBundle?: string;
  insecureSkipTLSVerify: boolean;
  /** The last availability check passed. */
  available: boolean;
  /** The HTTPS connections to it, with its TLS settings. */
  dispatcher: Dispatcher;
  /** Its address now (https://host:port), through the Service's Endpoints; undefined when it has none. */
  resolve(): Promise<string | undefined>;
}

export interface AggregatedApis {
  backendOf(group: string, version: string): AggregatedBackend | undefined;
  /** The backends whose last check passed (they are in discovery). */
  available(): AggregatedBackend[];
}

/** One health check of a control plane part (a ComponentStatus condition). */
export type ComponentProbe = () => Promise<{ healthy: boolean; message: string; error?: string }>;

/** A resolved request for a resource path. */
export interface ResourceRequest {
  def: ResourceDef;
  method: string;
  /** The request path without the query string. */
  path: string;
  namespace?: string;
  name?: string;
  subresource?: string;
  watchPath: boolean;
  query: Record<string, string | undefined>;
  headers: Record<string, string | string[] | undefined>;
  body?: Buffer;
  /** Warnings for the client, sent as `Warning: 299 - "..."` headers (fieldValidation=Warn). */
  warnings: string[];
  /** Who asks (authenticated, possibly impersonated); system:unsecured when authentication is off. */
  user?: UserInfo;
}

export interface ApiResult {
  code: number;
  object: object;
  /** The compact JSON of `object` when the store already made it (StoredObject.json): answered as is. */
  json?: string;
  /**
   * For a typed list: the objects its items were made from (kind and apiVersion still on them), so that its JSON can
   * reuse their cached encodings (serializers.ts listJsonOf).
   */
  listSources?: readonly object[];
}

export function header(req: ResourceRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}
