// Test helpers (`cluster-api-conformance/testing`) for node:test, Vitest and Jest: one simulator per test file (or
// describe block), a fresh namespace per test, a small client, and waitFor(condition) on a watch. The framework's
// own hooks are passed in, so one module fits all three:
//   node:test  useSimulator({ before, after, beforeEach, afterEach })            (import them from 'node:test')
//   Vitest     useSimulator({ beforeAll, afterAll, beforeEach, afterEach })      (import them from 'vitest')
//   Jest       useSimulator({ beforeAll, afterAll, beforeEach, afterEach })      (the globals)
// The simulator stops in the after hook, which every framework runs also when a test failed; should the process end
// without it, the client config is removed on exit all the same (launch/index.ts).

import { randomBytes } from 'node:crypto';
import { startSimulator as start } from '../simulator/launch/index.ts';
import { SimulatorError } from '../simulator/launch/errors.ts';
import { ApiClient, ApiError } from '../simulator/client/api-client.ts';
import { parseKubeconfig } from '../simulator/codec/kubeconfig.ts';
import type { KubeObject as InternalObject } from '../simulator/api/meta.ts';
import type { Simulator, SimulatorOptions } from '../simulator/launch/types.ts';

export { SimulatorError, SimulatorOptionError, SimulatorStartError, ManifestLoadError } from '../simulator/launch/errors.ts';
export type { Simulator, SimulatorOptions } from '../simulator/launch/types.ts';

/** An API object as the client hands it out: apiVersion, kind, metadata and whatever else the kind has. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name?: string;
    namespace?: string;
    resourceVersion?: string;
    uid?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    [field: string]: unknown;
  };
  [field: string]: unknown;
}

/** A non-2xx answer of the API server: `code` is the HTTP status, `reason` the Status reason (NotFound, ...). */
export class KubeApiError extends SimulatorError {
  override name = 'KubeApiError';
  constructor(
    readonly code: number,
    readonly reason: string | undefined,
    message: string,
  ) {
    super(message);
  }
}

/** waitFor gave up: the condition did not hold in time. `last` is the last object seen, if any. */
export class WaitTimeoutError extends SimulatorError {
  override name = 'WaitTimeoutError';
  constructor(
    message: string,
    readonly last: KubeObject | undefined,
  ) {
    super(message);
  }
}

/** A list as the API server answers it. */
export interface KubeList<T extends KubeObject = KubeObject> {
  metadata: { resourceVersion?: string; continue?: string };
  items: T[];
}

/** A small JSON client of the simulator, with the client config's credentials. Paths are API paths. */
export interface KubeClient {
  get<T extends KubeObject = KubeObject>(path: string): Promise<T>;
  list<T extends KubeObject = KubeObject>(path: string, query?: Record<string, string | number | boolean>): Promise<KubeList<T>>;
  create<T extends KubeObject = KubeObject>(collectionPath: string, object: T): Promise<T>;
  update<T extends KubeObject = KubeObject>(path: string, object: T): Promise<T>;
  /** A merge patch (RFC 7386) unless another patch content type is given. */
  patch<T extends KubeObject = KubeObject>(path: string, patch: unknown, contentType?: string): Promise<T>;
  delete(path: string): Promise<unknown>;
  close(): Promise<void>;
}

export interface WaitForOptions {
  /** Give up after this many milliseconds with a WaitTimeoutError (default 30000). */
  timeoutMs?: number;
}

/**
 * Resolves with the first state of the object at `path` (an object path such as
 * /apis/apps/v1/namespaces/NS/deployments/web; it need not exist yet) that satisfies `condition`, or with the first
 * object of a collection path that does; reads once, then follows a watch from that read's resourceVersion, so no
 * change is missed and none is polled for.
 */
export type WaitFor = <T extends KubeObject = KubeObject>(path: string, condition: (object: T) => boolean, options?: WaitForOptions) => Promise<T>;

export interface SimulatorFixture {
  /** The running simulator (after the before hook). */
  readonly simulator: Simulator;
  readonly url: string;
  readonly kubeconfig: string;
  readonly kubeconfigPath: string;
  /** A namespace made for the current test, deleted after it (in the beforeEach/afterEach hooks). */
  readonly namespace: string;
  readonly client: KubeClient;
  readonly waitFor: WaitFor;
}

/** The hooks of node:test (before/after) or Vitest and Jest (beforeAll/afterAll), and beforeEach/afterEach. */
export interface TestHooks {
  before?: (fn: () => Promise<void>, options?: { timeout?: number }) => unknown;
  after?: (fn: () => Promise<void>, options?: { timeout?: number }) => unknown;
  beforeAll?: (fn: () => Promise<void>, timeout?: number) => unknown;
  afterAll?: (fn: () => Promise<void>, timeout?: number) => unknown;
  beforeEach?: ((fn: () => Promise<void>, options?: { timeout?: number }) => unknown) | ((fn: () => Promise<void>, timeout?: number) => unknown);
  afterEach?: ((fn: () => Promise<void>, options?: { timeout?: number }) => unknown) | ((fn: () => Promise<void>, timeout?: number) => unknown);
}

export interface UseSimulatorOptions extends SimulatorOptions {
  /** Prefix of the per-test namespaces (default "test"). */
  namespacePrefix?: string;
  /** Time allowed to each hook (start, stop, namespace); default 60000, above Jest's and Vitest's defaults. */
  hookTimeoutMs?: number;
}

/** A client of `sim` with its client config's credentials. */
export async function clientFor(sim: Simulator): Promise<KubeClient> {
  const api = await ApiClient.create(parseKubeconfig(sim.kubeconfig, sim.kubeconfigPath, process.cwd()), {
    qps: 1000,
    burst: 1000,
    contentType: 'application/json',
    userAgent: 'cluster-api-conformance/testing',
    codec: null,
    maxRetries: 0,
  });
  const call = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (e) {
      if (e instanceof ApiError) throw new KubeApiError(e.code, e.reason, e.message);
      throw e;
    }
  };
  const asInternal = (o: KubeObject) => o as unknown as InternalObject;
  return {
    get: <T extends KubeObject>(path: string) => call(() => api.get(path) as unknown as Promise<T>),
    list: <T extends KubeObject>(path: string, query?: Record<string, string | number | boolean>) =>
      call(() => api.list(path, query) as unknown as Promise<KubeList<T>>),
    create: <T extends KubeObject>(path: string, object: T) => call(() => api.create(path, asInternal(object)) as unknown as Promise<T>),
    update: <T extends KubeObject>(path: string, object: T) => call(() => api.update(path, asInternal(object)) as unknown as Promise<T>),
    patch: <T extends KubeObject>(path: string, patch: unknown, contentType?: string) =>
      call(() => api.patch(path, patch, contentType) as unknown as Promise<T>),
    delete: (path: string) => call(() => api.delete(path)),
    close: () => api.close(),
  };
}

/** waitFor against `sim` (see WaitFor). */
export function waitForOn(sim: Simulator, client: KubeClient): WaitFor {
  return async <T extends KubeObject>(path: string, condition: (object: T) => boolean, options: WaitForOptions = {}): Promise<T> => {
    const timeoutMs = options.timeoutMs ?? 30_000;
    const signal = AbortSignal.timeout(timeoutMs);
    let last: T | undefined;
    const slash = path.lastIndexOf('/');
    const byName = `metadata.name=${decodeURIComponent(path.slice(slash + 1))}`;
    // An object path of an object not there yet answers 404: then the collection, selected by the name, is read.
    const first = await client.get<KubeObject & { items?: T[] }>(path).catch(async (e: unknown) => {
      if (!(e instanceof KubeApiError) || e.code !== 404) throw e;
      const none = await client.list<T>(path.slice(0, slash), { fieldSelector: byName });
      return { metadata: none.metadata, items: none.items, missing: true };
    });
    const isObject = !Array.isArray(first.items) || 'missing' in first;
    const items = Array.isArray(first.items) ? first.items : [first as unknown as T];
    for (const o of items) {
      last = o;
      if (condition(o)) return o;
    }
    const collection = isObject ? path.slice(0, slash) : path;
    const query: Record<string, string> = { resourceVersion: first.metadata.resourceVersion ?? '0' };
    if (isObject) query.fieldSelector = byName;
    const api = await ApiClient.create(parseKubeconfig(sim.kubeconfig, sim.kubeconfigPath, process.cwd()), {
      qps: 1000,
      burst: 1000,
      contentType: 'application/json',
      codec: null,
      userAgent: 'cluster-api-conformance/testing',
    });
    try {
      for await (const ev of api.watch(collection, query, signal)) {
        if (ev.type === 'ERROR') {
          const status = ev.object as { code?: number; reason?: string };
          throw new KubeApiError(status.code ?? 500, status.reason, `watch of ${collection} ended: ${JSON.stringify(ev.object)}`);
        }
        if (ev.type !== 'ADDED' && ev.type !== 'MODIFIED') continue;
        last = ev.object as unknown as T;
        if (condition(last)) return last;
      }
      throw new WaitTimeoutError(`waitFor ${path}: the watch ended before the condition held`, last);
    } catch (e) {
      if (signal.aborted) throw new WaitTimeoutError(`waitFor ${path}: the condition did not hold within ${timeoutMs} ms`, last);
      throw e;
    } finally {
      await api.close();
    }
  };
}

/**
 * A simulator for the tests of one file or describe block: started in the before(All) hook, stopped in the
 * after(All) hook; a namespace of its own for each test. Read the fixture's fields inside tests and hooks.
 */
export function useSimulator(hooks: TestHooks, options: UseSimulatorOptions = {}): SimulatorFixture {
  const { namespacePrefix = 'test', hookTimeoutMs = 60_000, ...simulatorOptions } = options;
  const nodeStyle = typeof hooks.before === 'function';
  const register = (hook: ((fn: () => Promise<void>, t?: never) => unknown) | undefined, name: string, fn: () => Promise<void>) => {
    if (typeof hook !== 'function') throw new SimulatorError(`useSimulator: the hooks have no ${name} (pass node:test's before/after/beforeEach/afterEach, or beforeAll/afterAll/...)`);
    // node:test takes { timeout }, Vitest and Jest a number.
    (hook as (fn: () => Promise<void>, t: unknown) => unknown)(fn, nodeStyle ? { timeout: hookTimeoutMs } : hookTimeoutMs);
  };
  let simulator: Simulator | undefined;
  let client: KubeClient | undefined;
  let waitFor: WaitFor | undefined;
  let namespace: string | undefined;
  let counter = 0;
  const need = <T>(v: T | undefined, what: string): T => {
    if (v === undefined) throw new SimulatorError(`useSimulator: ${what} is there only inside tests and hooks (after the before hook ran)`);
    return v;
  };
  register(nodeStyle ? hooks.before : hooks.beforeAll, 'before/beforeAll', async () => {
    simulator = await start(simulatorOptions);
    client = await clientFor(simulator);
    waitFor = waitForOn(simulator, client);
  });
  register(nodeStyle ? hooks.after : hooks.afterAll, 'after/afterAll', async () => {
    await client?.close();
    await simulator?.stop();
  });
  register(hooks.beforeEach as never, 'beforeEach', async () => {
    const name = `${namespacePrefix}-${++counter}-${randomBytes(3).toString('hex')}`;
    await need(client, 'client').create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    namespace = name;
  });
  register(hooks.afterEach as never, 'afterEach', async () => {
    const name = namespace;
    namespace = undefined;
    // Deleted without waiting for the namespace controller to empty it: the next test has its own.
    if (name && client) await client.delete(`/api/v1/namespaces/${name}`).catch(() => {});
  });
  return {
    get simulator() {
      return need(simulator, 'simulator');
    },
    get url() {
      return need(simulator, 'simulator').url;
    },
    get kubeconfig() {
      return need(simulator, 'simulator').kubeconfig;
    },
    get kubeconfigPath() {
      return need(simulator, 'simulator').kubeconfigPath;
    },
    get namespace() {
      return need(namespace, 'namespace');
    },
    get client() {
      return need(client, 'client');
    },
    get waitFor() {
      return need(waitFor, 'waitFor');
    },
  };
}

/** True when a Deployment's Available condition is True and every replica is updated and available. */
export function deploymentAvailable(d: KubeObject): boolean {
  const spec = d.spec as { replicas?: number } | undefined;
  const status = d.status as { availableReplicas?: number; updatedReplicas?: number; conditions?: { type: string; status: string }[] } | undefined;
  const want = spec?.replicas ?? 1;
  return (
    (status?.conditions ?? []).some((c) => c.type === 'Available' && c.status === 'True') &&
    (status?.availableReplicas ?? 0) >= want &&
    (status?.updatedReplicas ?? 0) >= want
  );
}
