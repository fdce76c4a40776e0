// The endpoints controller (--concurrent-endpoint-syncs workers): for every Service with a selector, an
// Endpoints object of the same name whose subsets list the selected pods that have an IP — ready ones under
// addresses, others under notReadyAddresses (all under addresses when the Service carries
// service.alpha.kubernetes.io/tolerate-unready-endpoints: "true") — with each Service port resolved against
// the pod (targetPort by number, or by the name of a container port). Pods that are finished or being
// deleted are left out. Services without a selector are not touched; a deleted Service's Endpoints go too.

import type { KubeObject } from '../api/meta.ts';
import type { Controller, ControllerContext } from './kit/controller.ts';
import { keyOf, type Informer } from '../client/informer.ts';
import { WorkQueue, runWorkers } from '../client/work-queue.ts';
import { PodIndex } from './kit/pod-index.ts';
import { deleteObject, isConflict, isNotFound, isPodReady, isTerminated, selectorMatches, specOf, statusOf } from './kit/workload-util.ts';
import { RESOURCE } from '../client/resource-paths.ts';

export const TOLERATE_UNREADY = 'service.alpha.kubernetes.io/tolerate-unready-endpoints';

interface ServicePort {
  name?: string;
  port: number;
  protocol?: string;
  targetPort?: number | string;
}

interface ServiceSpec {
  selector?: Record<string, string>;
  ports?: ServicePort[];
}

interface EndpointAddress {
  ip: string;
  nodeName?: string;
  targetRef: { kind: 'Pod'; namespace: string; name: string; uid: string; resourceVersion: string };
}

interface Subset {
  addresses?: EndpointAddress[];
  notReadyAddresses?: EndpointAddress[];
  ports?: Array<{ name?: string; port: number; protocol: string }>;
}

/** The container port a Service port reaches on this pod, or undefined when the named port is missing. */
export function resolvePort(pod: KubeObject, sp: ServicePort): number | undefined {
  const target = sp.targetPort ?? sp.port;
  if (typeof target === 'number') return target;
  if (/^\d+$/.test(target)) return Number(target);
  const containers = specOf<{ containers?: Array<{ ports?: Array<{ name?: string; containerPort?: number; protocol?: string }> }> }>(pod).containers ?? [];
  for (const c of containers) for (const p of c.ports ?? []) if (p.name === target && (p.protocol ?? 'TCP') === (sp.protocol ?? 'TCP')) return p.containerPort;
  return undefined;
}

/** The subsets of a Service over the given pods: one per distinct port set, addresses sorted by IP. */
export function computeSubsets(svc: KubeObject, pods: KubeObject[]): Subset[] {
  const spec = specOf<ServiceSpec>(svc);
  const tolerate = svc.metadata.annotations?.[TOLERATE_UNREADY] === 'true';
  const groups = new Map<string, Required<Subset>>();
  for (const pod of pods) {
    const ip = statusOf(pod).podIP;
    if (!ip || isTerminated(pod) || pod.metadata.deletionTimestamp) continue;
    const ports: Array<{ name?: string; port: number; protocol: string }> = [];
    for (const sp of spec.ports ?? []) {
      const port = resolvePort(pod, sp);
      if (port !== undefined) ports.push({ ...(sp.name ? { name: sp.name } : {}), port, protocol: sp.protocol ?? 'TCP' });
    }
    const sig = JSON.stringify(ports);
    let g = groups.get(sig);
    if (!g) groups.set(sig, (g = { addresses: [], notReadyAddresses: [], ports }));
    const addr: EndpointAddress = {
      ip,
      ...(specOf<{ nodeName?: string }>(pod).nodeName ? { nodeName: specOf<{ nodeName?: string }>(pod).nodeName } : {}),
      targetRef: {
        kind: 'Pod',
        namespace: pod.metadata.namespace ?? '',
        name: pod.metadata.name ?? '',
        uid: pod.metadata.uid ?? '',
        resourceVersion: pod.metadata.resourceVersion ?? '',
      },
    };
    (tolerate || isPodReady(pod) ? g.addresses : g.notReadyAddresses).push(addr);
  }
  const byIP = (a: EndpointAddress, b: EndpointAddress) => a.ip.localeCompare(b.ip, undefined, { numeric: true });
  return [...groups.values()].map((g) => ({
    ...(g.addresses.length ? { addresses: g.addresses.sort(byIP) } : {}),
    ...(g.notReadyAddresses.length ? { notReadyAddresses: g.notReadyAddresses.sort(byIP) } : {}),
    ...(g.ports.length ? { ports: g.ports } : {}),
  }));
}

const endpointsPath = (ns: string, name?: string) => (name ? RESOURCE.endpoints.object(ns, name) : RESOURCE.endpoints.collection(ns));
/** The pod fields an endpoints entry depends on; other pod changes need no sync. */
const podSignature = (p: KubeObject) => JSON.stringify([p.metadata.labels, statusOf(p).podIP, isPodReady(p), isTerminated(p), !!p.metadata.deletionTimestamp]);

export class EndpointsController implements Controller {
  readonly name = 'endpoint';

  async run(ctx: ControllerContext): Promise<void> {
    const services = ctx.informers.informerFor(RESOURCE.services.collection());
    const endpoints = ctx.informers.informerFor(RESOURCE.endpoints.collection());
    const podInformer = ctx.informers.informerFor(RESOURCE.pods.collection());
    const pods = PodIndex.of(podInformer);
    const queue = new WorkQueue<string>({ name: 'endpoint', metrics: ctx.metrics });
    const servicesFor = (pod: KubeObject, also?: KubeObject) => {
      for (const svc of services.list()) {
        if (svc.metadata.namespace !== pod.metadata.namespace) continue;
        const sel = specOf<ServiceSpec>(svc).selector;
        if (!sel || Object.keys(sel).length === 0) continue;
        if (selectorMatches({ matchLabels: sel }, pod.metadata.labels) || (also && selectorMatches({ matchLabels: sel }, also.metadata.labels)))
          queue.add(keyOf(svc));
      }
    };
    services.addEventHandler({ onAdd: (s) => queue.add(keyOf(s)), onUpdate: (_o, s) => queue.add(keyOf(s)), onDelete: (s) => queue.add(keyOf(s)) });
    podInformer.addEventHandler({
      onAdd: (p) => servicesFor(p),
      onUpdate: (o, p) => podSignature(o) !== podSignature(p) && servicesFor(p, o),
      onDelete: (p) => servicesFor(p),
    });
    if (!(await services.waitForSync(ctx.signal)) || !(await endpoints.waitForSync(ctx.signal)) || !(await podInformer.waitForSync(ctx.signal))) return;
    await runWorkers(queue, ctx.options.int('--concurrent-endpoint-syncs'), (key) => this.sync(ctx, key, services, endpoints, pods), ctx.signal, {
      controller: this.name,
      metrics: ctx.metrics,
      log: ctx.log,
    });
  }

  async sync(ctx: ControllerContext, key: string, services: Informer, endpoints: Informer, pods: PodIndex): Promise<void> {
    const [ns, name] = key.split('/');
    const svc = services.get(key);
    if (!svc) {
      // The Service is gone: so are its Endpoints.
      if (endpoints.get(key)) await deleteObject(ctx.client, endpointsPath(ns, name), undefined, ctx.signal);
      return;
    }
    const sel = specOf<ServiceSpec>(svc).selector;
    if (!sel || Object.keys(sel).length === 0) return;
    const selected = pods.inNamespace(ns).filter((p) => selectorMatches({ matchLabels: sel }, p.metadata.labels));
    const subsets = computeSubsets(svc, selected);
    const current = endpoints.get(key);
    const labels = svc.metadata.labels;
    if (
      current &&
      JSON.stringify((current as { subsets?: unknown }).subsets ?? []) === JSON.stringify(subsets) &&
      JSON.stringify(current.metadata.labels ?? {}) === JSON.stringify(labels ?? {})
    )
      return;
    const body: KubeObject = {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: {
        name,
        namespace: ns,
        ...(labels ? { labels } : {}),
        ...(current ? { resourceVersion: current.metadata.resourceVersion, annotations: current.metadata.annotations } : {}),
      },
      subsets,
    };
    try {
      if (current) await ctx.client.update(endpointsPath(ns, name), body, ctx.signal);
      else await ctx.client.create(endpointsPath(ns), body, ctx.signal);
    } catch (err) {
      // A stale cache (409) or a race with a delete (404): the informer will bring the key back.
      if (isConflict(err) || isNotFound(err)) throw new Error(`endpoints ${key} changed meanwhile; retrying`);
      if ((err as { code?: number }).code === 403) return; // namespace terminating
      throw err;
    }
  }
}

export const endpointsController = (): Controller => new EndpointsController();
