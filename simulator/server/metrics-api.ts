// metrics.k8s.io/v1beta1 (what metrics-server serves; kubectl top and the HPA read it): PodMetrics and NodeMetrics
// computed on every read from the pods the simulated kubelets report Running (phase Running on a node), with
// the usage model of simulator/api/pod-usage.ts (per template annotation; 10m CPU / 16Mi memory per container by
// default). A node's usage is the sum over its running pods. Objects carry the pod's or node's name, namespace
// and labels, `timestamp` = now and `window` = 30s; list honours labelSelector and fieldSelector (metadata.name,
// metadata.namespace). get and list only (no watch), as metrics-server.

import type { KubeList, KubeObject } from '../api/meta.ts';
import { apiVersionOf } from '../api/meta.ts';
import { containerUsage, formatCpu, formatMemory, isRunning } from '../api/pod-usage.ts';
import { notFound } from './errors.ts';
import { type ApiResult, type ResourceRequest, type ServerContext } from './context.ts';
import { nowTimestamp, selfLinkOf } from './registry/system-meta.ts';
import { compileSelectors } from './handlers/read.ts';
import { listStored, STORAGE_REFS } from './registry/storage.ts';

const WINDOW = '30s';

function podMetrics(ctx: ServerContext, req: ResourceRequest, pod: KubeObject): KubeObject {
  const m = pod.metadata;
  return {
    kind: 'PodMetrics',
    apiVersion: apiVersionOf(req.def),
    metadata: {
      name: m.name,
      namespace: m.namespace,
      selfLink: selfLinkOf(req.def, m.namespace, m.name!),
      creationTimestamp: nowTimestamp(ctx),
      ...(m.labels ? { labels: m.labels } : {}),
    },
    timestamp: nowTimestamp(ctx),
    window: WINDOW,
    containers: containerUsage(pod, ctx.now().getTime(), ctx.settings.usageDefaults).map((c) => ({
      name: c.name,
      usage: { cpu: formatCpu(c.cpuMilli), memory: formatMemory(c.memoryMilli) },
    })),
  };
}

function nodeMetrics(ctx: ServerContext, req: ResourceRequest, node: KubeObject, pods: KubeObject[]): KubeObject {
  let cpu = 0;
  let memory = 0;
  for (const p of pods) {
    if ((p.spec as { nodeName?: string }).nodeName !== node.metadata.name) continue;
    for (const c of containerUsage(p, ctx.now().getTime(), ctx.settings.usageDefaults)) {
      cpu += c.cpuMilli;
      memory += c.memoryMilli;
    }
  }
  const m = node.metadata;
  return {
    kind: 'NodeMetrics',
    apiVersion: apiVersionOf(req.def),
    metadata: {
      name: m.name,
      selfLink: selfLinkOf(req.def, undefined, m.name!),
      creationTimestamp: nowTimestamp(ctx),
      ...(m.labels ? { labels: m.labels } : {}),
    },
    timestamp: nowTimestamp(ctx),
    window: WINDOW,
    usage: { cpu: formatCpu(cpu), memory: formatMemory(memory) },
  };
}

async function runningPods(ctx: ServerContext, namespace: string | undefined): Promise<KubeObject[]> {
  const { items } = await listStored(ctx, STORAGE_REFS.pods, namespace);
  return items.map((i) => i.value).filter(isRunning);
}

/** The metrics of each kind the group serves, computed on every read (the name filters, when given). */
const METRICS: Record<string, (ctx: ServerContext, req: ResourceRequest) => Promise<KubeObject[]>> = {
  PodMetrics: async (ctx, req) => {
    const pods = await runningPods(ctx, req.namespace);
    return pods.filter((p) => req.name === undefined || p.metadata.name === req.name).map((p) => podMetrics(ctx, req, p));
  },
  NodeMetrics: async (ctx, req) => {
    const { items } = await listStored(ctx, STORAGE_REFS.nodes, undefined);
    const pods = await runningPods(ctx, undefined);
    return items.map((i) => i.value).filter((n) => req.name === undefined || n.metadata.name === req.name).map((n) => nodeMetrics(ctx, req, n, pods));
  },
};

/** GET of one PodMetrics/NodeMetrics or a list of them. */
export async function readMetrics(ctx: ServerContext, req: ResourceRequest): Promise<ApiResult> {
  const def = req.def;
  const compute = Object.hasOwn(METRICS, def.kind) ? METRICS[def.kind] : undefined;
  if (!compute) throw notFound({ group: def.group, resource: def.resource }, req.name ?? '');
  const objects = await compute(ctx, req);
  if (req.name !== undefined) {
    if (!objects.length) throw notFound({ group: def.group, resource: def.resource }, req.name);
    return { code: 200, object: objects[0] };
  }
  const filter = compileSelectors(req);
  const items = objects.filter(filter).map(({ kind: _k, apiVersion: _a, ...rest }) => rest as KubeObject);
  const list: KubeList = { kind: `${def.kind}List`, apiVersion: apiVersionOf(def), metadata: { selfLink: req.path }, items };
  return { code: 200, object: list as unknown as KubeObject };
}
