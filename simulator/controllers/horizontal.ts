// The horizontal pod autoscaler (1.9 pkg/controller/podautoscaler, autoscaling/v1 CPU targets). Every
// --horizontal-pod-autoscaler-sync-period (and when an HPA changes) each HPA is reconciled:
//   1. the target's Scale is read through /scale (Deployment, ReplicaSet, StatefulSet in apps or extensions,
//      ReplicationController in core); failing that: AbleToScale=False FailedGetScale;
//   2. CPU utilisation = summed usage / summed CPU requests of the running pods its selector picks, from
//      metrics.k8s.io (--horizontal-pod-autoscaler-use-rest-clients=true, the 1.9 default) or, with =false, from
//      Heapster through the API server's service proxy (kube-system/heapster, as 1.9's legacy client read it;
//      this simulator runs no Heapster, so such HPAs report ScalingActive=False FailedGetResourceMetric);
//   3. desired = ceil(current pods with metrics × utilisation / target), unchanged when the ratio is within
//      --horizontal-pod-autoscaler-tolerance of 1; clamped to [minReplicas, maxReplicas] and to
//      max(2 × current, 4) per step (ScalingLimited with the real reasons);
//   4. a rescale happens only when the last one is older than --horizontal-pod-autoscaler-upscale-delay (going up)
//      or -downscale-delay (going down); otherwise AbleToScale=True Backoff{Upscale,Downscale,Both}.
// Status: currentReplicas, desiredReplicas, currentCPUUtilizationPercentage, lastScaleTime; the v2 conditions
// (AbleToScale, ScalingActive, ScalingLimited) and current metrics go where autoscaling/v1 keeps them, the
// annotations autoscaling.alpha.kubernetes.io/conditions and .../current-metrics. Events SuccessfulRescale,
// FailedGetScale, FailedGetResourceMetric, FailedComputeMetricsReplicas as the real controller posts them.

import { parseApiVersion, type KubeObject } from '../api/meta.ts';
import type { Controller, ControllerContext } from './kit/controller.ts';
import { keyOf, type Informer } from '../client/informer.ts';
import { WorkQueue, runWorkers } from '../client/work-queue.ts';
import { EventRecorder, refOf } from '../client/event-recorder.ts';
import { milliOf } from '../api/quantity-sum.ts';
import { isNotFound, rfc3339, setCondition, type Condition, type Obj } from './kit/workload-util.ts';
import { every } from '../client/timers.ts';
import { RESOURCE, heapsterPodMetricsPath } from '../client/resource-paths.ts';
import { resourcePath } from '../client/api-client.ts';

export const CONDITIONS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/conditions';
export const METRICS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/current-metrics';
const DEFAULT_TARGET = 80;
const METRIC = 'cpu resource utilization (percentage of request)';

interface HpaSpec {
  scaleTargetRef?: { kind?: string; name?: string; apiVersion?: string };
  minReplicas?: number;
  maxReplicas?: number;
  targetCPUUtilizationPercentage?: number;
}

/** The kinds an HPA can scale: their resource, and the apiVersion a scaleTargetRef without one means. */
const SCALE_TARGETS: Record<string, { resource: string; defaultApiVersion: string }> = {
  Deployment: { resource: 'deployments', defaultApiVersion: 'extensions/v1beta1' },
  ReplicaSet: { resource: 'replicasets', defaultApiVersion: 'extensions/v1beta1' },
  StatefulSet: { resource: 'statefulsets', defaultApiVersion: 'extensions/v1beta1' },
  ReplicationController: { resource: 'replicationcontrollers', defaultApiVersion: 'v1' },
};

export function scalePath(ns: string, ref: HpaSpec['scaleTargetRef']): string | undefined {
  const target = Object.hasOwn(SCALE_TARGETS, ref?.kind ?? '') ? SCALE_TARGETS[ref?.kind ?? ''] : undefined;
  if (!target || !ref?.name) return undefined;
  // The reference's own apiVersion, served or not: a version the API lacks is its 404 to report, not ours to guess.
  const { group, version } = parseApiVersion(ref.apiVersion || target.defaultApiVersion);
  return resourcePath({ group, version, resource: target.resource, namespace: ns, name: ref.name, subresource: 'scale' });
}

/** The replica count the utilisation asks for (1.9 ReplicaCalculator.GetResourceReplicas, simplified to ready pods). */
export function desiredReplicas(current: number, podsWithMetrics: number, utilization: number, target: number, tolerance: number): number {
  const ratio = utilization / target;
  if (Math.abs(1 - ratio) <= tolerance) return current;
  return Math.ceil(ratio * podsWithMetrics);
}

function selectorString(scale: KubeObject): string | undefined {
  const sel = (scale.status as { selector?: unknown; targetSelector?: string } | undefined);
  if (typeof sel?.selector === 'string') return sel.selector;
  if (typeof sel?.targetSelector === 'string') return sel.targetSelector;
  if (sel?.selector && typeof sel.selector === 'object') return Object.entries(sel.selector as Record<string, string>).map(([k, v]) => `${k}=${v}`).join(',');
  return undefined;
}

export class HorizontalPodAutoscaler implements Controller {
  readonly name = 'horizontalpodautoscaling';
  private events: EventRecorder | undefined;

  async run(ctx: ControllerContext): Promise<void> {
    this.events = new EventRecorder(ctx.client, { component: 'horizontal-pod-autoscaler' }, { log: ctx.log, signal: ctx.signal });
    const hpas = ctx.informers.informerFor(RESOURCE.horizontalPodAutoscalers.collection());
    const queue = new WorkQueue<string>({ name: 'horizontalpodautoscaler', metrics: ctx.metrics });
    hpas.addEventHandler({
      onAdd: (h) => queue.add(keyOf(h)),
      onUpdate: (o, h) => {
        if (JSON.stringify(o.spec) !== JSON.stringify(h.spec)) queue.add(keyOf(h));
      },
      onDelete: () => {},
    });
    if (!(await hpas.waitForSync(ctx.signal))) return;
    const periodMs = Math.max(10, ctx.options.durationMs('--horizontal-pod-autoscaler-sync-period'));
    const stopResync = every(periodMs, ctx.signal, () => hpas.list().forEach((h) => queue.add(keyOf(h))));
    await runWorkers(queue, 1, (key) => this.sync(ctx, key, hpas), ctx.signal, { controller: this.name, metrics: ctx.metrics, log: ctx.log });
    stopResync();
  }

  /** Pods matching the selector with their CPU requests, and their usage by pod name (milli-CPU). */
  private async metrics(
    ctx: ControllerContext,
    ns: string,
    selector: string,
  ): Promise<{ requests: Map<string, number | undefined>; usage: Map<string, number> }> {
    const q = { labelSelector: selector };
    const pods = (await ctx.client.list(RESOURCE.pods.collection(ns), q, ctx.signal)).items.filter(
      (p) => !p.metadata.deletionTimestamp && (p.status as Obj | undefined)?.phase !== 'Failed' && (p.status as Obj | undefined)?.phase !== 'Succeeded',
    );
    const requests = new Map<string, number | undefined>();
    for (const p of pods) {
      const cs = ((p.spec as { containers?: Array<{ resources?: { requests?: Record<string, unknown> } }> }).containers ?? []);
      requests.set(
        p.metadata.name!,
        cs.every((c) => c.resources?.requests?.cpu !== undefined) ? cs.reduce((n, c) => n + milliOf(c.resources?.requests?.cpu), 0) : undefined,
      );
    }
    const restClients = ctx.options.bool('--horizontal-pod-autoscaler-use-rest-clients');
    const path = restClients
      ? RESOURCE.podMetrics.collection(ns)
      : heapsterPodMetricsPath(ns);
    let list;
    try {
      list = await ctx.client.list(path, q, ctx.signal);
    } catch (err) {
      const how = restClients ? 'unable to fetch metrics from resource metrics API' : 'failed to get pod resource metrics from heapster';
      throw new Error(`unable to get metrics for resource cpu: ${how}: ${(err as Error).message}`);
    }
    const usage = new Map<string, number>();
    for (const m of list.items) {
      const containers = ((m as Obj).containers as Array<{ usage?: { cpu?: string } }> | undefined) ?? [];
      usage.set(m.metadata.name!, containers.reduce((n, c) => n + milliOf(c.usage?.cpu ?? '0'), 0));
    }
    return { requests, usage };
  }

  async sync(ctx: ControllerContext, key: string, hpas: Informer): Promise<void> {
    const hpa = hpas.get(key);
    if (!hpa) return;
    const ns = hpa.metadata.namespace ?? 'default';
    const name = hpa.metadata.name ?? '';
    const spec = (hpa.spec ?? {}) as HpaSpec;
    const ref = refOf(hpa, 'autoscaling/v1', 'HorizontalPodAutoscaler');
    const old = (hpa.status ?? {}) as { lastScaleTime?: string; currentCPUUtilizationPercentage?: number };
    let conditions: Condition[] = [];
    try {
      conditions = JSON.parse(hpa.metadata.annotations?.[CONDITIONS_ANNOTATION] ?? '[]') as Condition[];
    } catch {
      conditions = [];
    }
    const path = scalePath(ns, spec.scaleTargetRef);
    let scale: KubeObject | undefined;
    try {
      if (!path) throw new Error(`unrecognized resource kind ${spec.scaleTargetRef?.kind ?? ''}`);
      scale = await ctx.client.get(path, undefined, ctx.signal);
    } catch (err) {
      const msg = `the HPA controller was unable to get the target's current scale: ${(err as Error).message}`;
      this.events?.event(ref, 'Warning', 'FailedGetScale', (err as Error).message);
      conditions = setCondition(conditions, { type: 'AbleToScale', status: 'False', reason: 'FailedGetScale', message: msg });
      await this.write(
        ctx,
        hpa,
        { currentReplicas: 0, desiredReplicas: 0, ...(old.lastScaleTime ? { lastScaleTime: old.lastScaleTime } : {}) },
        conditions,
        undefined,
      );
      if (isNotFound(err)) return;
      return;
    }
    const current = Number((scale.spec as Obj | undefined)?.replicas ?? 0);
    const min = spec.minReplicas ?? 1;
    const max = spec.maxReplicas ?? min;
    const target = spec.targetCPUUtilizationPercentage ?? DEFAULT_TARGET;
    const tolerance = ctx.options.float('--horizontal-pod-autoscaler-tolerance');
    let proposed = current;
    let utilization: number | undefined;
    let usageMilli = 0;
    if (current === 0) {
      conditions = setCondition(conditions, {
        type: 'ScalingActive',
        status: 'False',
        reason: 'ScalingDisabled',
        message: 'scaling is disabled since the replica count of the target is zero',
      });
    } else {
      try {
        const selector = selectorString(scale);
        if (!selector) throw new Error('selector is required');
        const { requests, usage } = await this.metrics(ctx, ns, selector);
        let req = 0;
        let used = 0;
        let n = 0;
        for (const [pod, r] of requests) {
          if (r === undefined) throw new Error(`missing request for cpu on container in pod ${ns}/${pod}`);
          const u = usage.get(pod);
          if (u === undefined) continue;
          req += r;
          used += u;
          n++;
        }
        if (n === 0 || req === 0) throw new Error('unable to get metrics for resource cpu: no metrics returned from resource metrics API');
        utilization = Math.round((used * 100) / req);
        usageMilli = Math.round(used / n);
        proposed = desiredReplicas(current, n, (used * 100) / req, target, tolerance);
        conditions = setCondition(conditions, {
          type: 'ScalingActive',
          status: 'True',
          reason: 'ValidMetricFound',
          message: `the HPA was able to successfully calculate a replica count from ${METRIC}`,
        });
      } catch (err) {
        const msg = (err as Error).message;
        this.events?.event(ref, 'Warning', 'FailedGetResourceMetric', msg);
        this.events?.event(ref, 'Warning', 'FailedComputeMetricsReplicas', `failed to get cpu utilization: ${msg}`);
        conditions = setCondition(conditions, {
          type: 'AbleToScale',
          status: 'True',
          reason: 'SucceededGetScale',
          message: "the HPA controller was able to get the target's current scale",
        });
        conditions = setCondition(conditions, {
          type: 'ScalingActive',
          status: 'False',
          reason: 'FailedGetResourceMetric',
          message: `the HPA was unable to compute the replica count: ${msg}`,
        });
        await this.write(
          ctx,
          hpa,
          { currentReplicas: current, desiredReplicas: current, ...(old.lastScaleTime ? { lastScaleTime: old.lastScaleTime } : {}) },
          conditions,
          undefined,
        );
        return;
      }
    }
    // Limits: min/max and the per-step scale-up limit.
    let desired = proposed;
    const scaleUpLimit = Math.max(2 * current, 4);
    if (current !== 0) {
      if (desired > scaleUpLimit && scaleUpLimit < max) {
        desired = scaleUpLimit;
        conditions = setCondition(conditions, {
          type: 'ScalingLimited',
          status: 'True',
          reason: 'ScaleUpLimit',
          message: 'the desired replica count is increasing faster than the maximum scale rate',
        });
      } else if (desired > max) {
        desired = max;
        conditions = setCondition(conditions, {
          type: 'ScalingLimited',
          status: 'True',
          reason: 'TooManyReplicas',
          message: 'the desired replica count is more than the maximum replica count',
        });
      } else if (desired < min) {
        desired = min;
        conditions = setCondition(conditions, {
          type: 'ScalingLimited',
          status: 'True',
          reason: 'TooFewReplicas',
          message: 'the desired replica count is less than the minimum replica count',
        });
      } else {
        conditions = setCondition(conditions, {
          type: 'ScalingLimited',
          status: 'False',
          reason: 'DesiredWithinRange',
          message: 'the desired count is within the acceptable range',
        });
      }
    }
    // Forbidden windows since the last scale.
    const now = Date.now();
    const last = old.lastScaleTime ? Date.parse(old.lastScaleTime) : undefined;
    const upOk = last === undefined || last + ctx.options.durationMs('--horizontal-pod-autoscaler-upscale-delay') < now;
    const downOk = last === undefined || last + ctx.options.durationMs('--horizontal-pod-autoscaler-downscale-delay') < now;
    let rescale = false;
    if (desired !== current && current !== 0) {
      rescale = desired > current ? upOk : downOk;
    }
    let lastScaleTime = old.lastScaleTime;
    // The status as it stands when called (replicas, last scale time and conditions are settled below).
    const writeStatus = (usage?: number) =>
      this.write(ctx, hpa, { currentReplicas: current, desiredReplicas: desired, ...(lastScaleTime ? { lastScaleTime } : {}) }, conditions, utilization, usage);
    if (rescale) {
      try {
        await ctx.client.patch(path!, { spec: { replicas: desired } }, 'application/merge-patch+json', ctx.signal);
      } catch (err) {
        this.events?.event(
          ref,
          'Warning',
          'FailedRescale',
          `New size: ${desired}; reason: ${METRIC} ${desired > current ? 'above' : 'below'} target; error: ${(err as Error).message}`,
        );
        conditions = setCondition(conditions, {
          type: 'AbleToScale',
          status: 'False',
          reason: 'FailedUpdateScale',
          message: `the HPA controller was unable to update the target scale: ${(err as Error).message}`,
        });
        await writeStatus();
        throw err;
      }
      lastScaleTime = rfc3339();
      this.events?.event(ref, 'Normal', 'SuccessfulRescale', `New size: ${desired}; reason: ${METRIC} ${desired > current ? 'above' : 'below'} target`);
      conditions = setCondition(conditions, {
        type: 'AbleToScale',
        status: 'True',
        reason: 'SucceededRescale',
        message: `the HPA controller was able to update the target scale to ${desired}`,
      });
    } else if (desired !== current && current !== 0) {
      const reason = !upOk && !downOk ? 'BackoffBoth' : !downOk ? 'BackoffDownscale' : 'BackoffUpscale';
      const what =
        reason === 'BackoffBoth'
          ? 'both the downscale and upscale forbidden windows'
          : reason === 'BackoffDownscale'
            ? 'the downscale forbidden window'
            : 'the upscale forbidden window';
      conditions = setCondition(conditions, {
        type: 'AbleToScale',
        status: 'True',
        reason,
        message: `the time since the previous scale is still within ${what}`,
      });
      desired = current;
    } else {
      conditions = setCondition(conditions, {
        type: 'AbleToScale',
        status: 'True',
        reason: 'ReadyForNewScale',
        message: 'the last scale time was sufficiently old as to warrant a new scale',
      });
    }
    await writeStatus(usageMilli);
    void name;
  }

  private async write(
    ctx: ControllerContext,
    hpa: KubeObject,
    status: Obj,
    conditions: Condition[],
    utilization: number | undefined,
    usageMilli = 0,
  ): Promise<void> {
    const path = RESOURCE.horizontalPodAutoscalers.object(hpa.metadata.namespace ?? 'default', hpa.metadata.name ?? '');
    const statusPath = RESOURCE.horizontalPodAutoscalers.object(hpa.metadata.namespace ?? 'default', hpa.metadata.name ?? '', 'status');
    const next: Obj = { ...status, ...(utilization !== undefined ? { currentCPUUtilizationPercentage: utilization } : {}) };
    const old = (hpa.status ?? {}) as Obj;
    const patch: Obj = { ...next };
    for (const k of Object.keys(old)) if (!(k in next)) patch[k] = null;
    if (JSON.stringify(Object.entries(old).sort()) !== JSON.stringify(Object.entries(next).sort())) {
      await ctx.client.patch(statusPath, { status: patch }, 'application/merge-patch+json', ctx.signal).catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
    }
    const conditionsText = JSON.stringify(conditions);
    const metricsText =
      utilization !== undefined
        ? JSON.stringify([{ type: 'Resource', resource: { name: 'cpu', currentAverageUtilization: utilization, currentAverageValue: `${usageMilli}m` } }])
        : undefined;
    const a = hpa.metadata.annotations ?? {};
    if (a[CONDITIONS_ANNOTATION] !== conditionsText || (metricsText !== undefined && a[METRICS_ANNOTATION] !== metricsText)) {
      await ctx.client.patch(path, { metadata: { annotations: { [CONDITIONS_ANNOTATION]: conditionsText, ...(metricsText ? { [METRICS_ANNOTATION]: metricsText } : {}) } } }, 'application/merge-patch+json', ctx.signal).catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
    }
  }
}

export const horizontalPodAutoscalerController = (): Controller => new HorizontalPodAutoscaler();
