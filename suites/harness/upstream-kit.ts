// Pieces the upstream-* suite files share (checks of the upstream conformance registry's entries against the
// target): pod templates that keep running or never become ready, readiness and ownership readers, the nodes a
// daemon may use, and the bounds of the cluster profile. In that profile a controller that never acts is a
// failure (the check declares the controllers it needs), not a skip: the profile's promise is a whole cluster.
import type { KubeObject } from '../../simulator/api/meta.ts';
import type { CheckContext } from './check.ts';
import { describeResponse, fail } from './expect.ts';
import { listItems } from './progress.ts';
import { targetScaled } from './observe.ts';


/** Annotations the simulated nodes read (simulator/nodes/README.md); other targets ignore them. */
const NEVER_READY = { 'simulator.cluster.local/never-ready': 'true' };

/**
 * A pod template whose pods run until deleted and become Ready at once (no probe), or never become Ready
 * (`neverReady`: a readiness probe that always fails on a real kubelet, the simulated nodes' annotation).
 */
export function runningTemplate(labels: Record<string, string>, opts: { image?: string; neverReady?: boolean; ports?: Array<Record<string,
  unknown>>; extraSpec?: Record<string, unknown> } = {}) {
  return {
    metadata: { labels, ...(opts.neverReady ? { annotations: NEVER_READY } : {}) },
    spec: {
      terminationGracePeriodSeconds: 0,
      containers: [
        {
          name: 'main',
          image: opts.image ?? 'busybox:1.28',
          command: ['sh', '-c', 'sleep 3600'],
          ...(opts.ports ? { ports: opts.ports } : {}),
          ...(opts.neverReady ? { readinessProbe: { exec: { command: ['false'] }, periodSeconds: 1 } } : {}),
        },
      ],
      ...opts.extraSpec,
    },
  };
}

/** A batch pod template (restartPolicy Never) whose pod keeps running for `seconds`. */
export function longBatchTemplate(labels: Record<string, string>, seconds = 600) {
  return {
    metadata: { labels, annotations: { 'simulator.cluster.local/run-seconds': String(seconds) } },
    spec: { restartPolicy: 'Never', terminationGracePeriodSeconds: 0, containers: [{ name: 'main', image: 'busybox:1.28', command: ['sh', '-c', `sleep ${seconds}`] }] },
  };
}

export const isReady = (p: KubeObject) =>
  ((p.status as { conditions?: Array<{ type: string; status: string }> } | undefined)?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
export const phase = (p: KubeObject) => (p.status as { phase?: string } | undefined)?.phase;
export const live = (list: KubeObject[]) => list.filter((p) => !p.metadata.deletionTimestamp);
export const nodeOf = (p: KubeObject) => (p.spec as { nodeName?: string } | undefined)?.nodeName;
export const controllerOf = (o: KubeObject) => (o.metadata.ownerReferences ?? []).find((r) => r.controller);
export const ownedBy = (o: KubeObject, owner: KubeObject) => (o.metadata.ownerReferences ?? []).some((r) => r.uid === owner.metadata.uid);
export const label = (o: KubeObject, key: string) => o.metadata.labels?.[key];
export const specReplicas = (o: KubeObject | undefined) => (o?.spec as { replicas?: number } | undefined)?.replicas ?? 0;
export const statusOf = <T = Record<string, unknown>>(o: KubeObject | undefined) => (o?.status ?? {}) as T;

/** One line per pod: name, phase, ready, node, owner, template hash: the evidence of a failed pod check. */
export function describePods(pods: KubeObject[]): string {
  if (pods.length === 0) return '(no pods)';
  return pods
    .map((p) => {
      const owner = controllerOf(p);
      const hash = label(p, 'pod-template-hash') ?? label(p, 'controller-revision-hash');
      return `${p.metadata.name} ${phase(p) ?? '-'}${isReady(p) ? ' ready' : ''}${p.metadata.deletionTimestamp ? ' deleting' : ''} node=${nodeOf(p) ?? '-'} owner=${owner ? `${owner.kind}/${owner.name}` : '-'}${hash ? ` hash=${hash}` : ''}`;
    })
    .join('; ');
}

/** How long the target may take to show that a controller acts at all (stretched with load and the target's pace). */
export const moveBound = (ctx: CheckContext) => targetScaled(ctx, 20_000);
/** How long a started rollout, scale or collection may take to finish. */
export const finishBound = (ctx: CheckContext) => targetScaled(ctx, 45_000);

export async function mustCreate(ctx: CheckContext, path: string, body: unknown, what: string): Promise<KubeObject> {
  const res = await ctx.client.create(path, body);
  if (![200, 201, 202].includes(res.status) || !res.object) fail(`setup: creating ${what} failed: ${describeResponse(res)}`);
  return res.object;
}

export async function mustPatch(ctx: CheckContext, path: string, patch: unknown, what: string, type: 'merge' | 'strategic' | 'json' = 'merge'): Promise<KubeObject> {
  const res = await ctx.client.patch(path, patch, type);
  if (res.status !== 200 || !res.object) fail(`${what}: PATCH ${path} answered ${describeResponse(res)}`);
  return res.object;
}

export async function mustDelete(ctx: CheckContext, path: string, what: string, propagationPolicy?: 'Background' | 'Foreground' | 'Orphan'): Promise<void> {
  const res = await ctx.client.delete(path, propagationPolicy ? { body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy } } : undefined);
  if (![200, 202].includes(res.status)) fail(`${what}: DELETE ${path} answered ${describeResponse(res)}`);
}

/** Nodes a pod without tolerations or selectors can run on: Ready, schedulable, no NoSchedule/NoExecute taint. */
export async function usableNodes(ctx: CheckContext): Promise<KubeObject[]> {
  const nodes = await listItems(ctx, '/api/v1/nodes');
  return nodes.filter((n) => {
    const spec = (n.spec ?? {}) as { unschedulable?: boolean; taints?: Array<{ effect: string }> };
    const ready = ((n.status as { conditions?: Array<{ type: string; status: string }> } | undefined)?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
    return ready && !spec.unschedulable && !(spec.taints ?? []).some((t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute');
  });
}

/** Sets (value) or removes (null) a label of the check's own on a node; returns the node's answer. */
export async function labelNode(ctx: CheckContext, node: string, key: string, value: string | null): Promise<void> {
  const res = await ctx.client.patch(`/api/v1/nodes/${node}`, { metadata: { labels: { [key]: value } } }, 'merge');
  if (res.status !== 200) fail(`labelling node ${node} with ${key}=${value}: ${describeResponse(res)}`);
}

/** Replaces a workload's whole pod template (a JSON patch: a merge patch would keep annotations and probes of the old one). */
export async function setTemplate(ctx: CheckContext, path: string, template: unknown, what: string): Promise<KubeObject> {
  return mustPatch(ctx, path, [{ op: 'replace', path: '/spec/template', value: template }], what, 'json');
}

/** A namespace of the check's own where pods can be made, on a target with a usable node (else the check is skipped). */
export async function podNamespace(ctx: CheckContext): Promise<string> {
  if ((await usableNodes(ctx)).length === 0) ctx.skip('the target has no Ready, schedulable node: no pod can run (needs 1 node)');
  return ctx.namespace();
}
