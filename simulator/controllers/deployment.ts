// The Deployment controller (--concurrent-deployment-syncs workers, --deployment-controller-sync-period
// resync), after the 1.9 one:
// - the ReplicaSet for the current template is `<deployment>-<pod-template-hash>` (FNV-32a of the template
//   and collisionCount, printed in decimal), labelled, selected and templated with pod-template-hash; it
//   carries deployment.kubernetes.io/revision (max old revision + 1), desired-replicas and max-replicas;
// - RollingUpdate: scale the new ReplicaSet up while all replicas stay within replicas + maxSurge (rounded
//   up), scale old ones down while available pods stay at least replicas - maxUnavailable (rounded down; both
//   0 means maxUnavailable 1), unhealthy old pods first; Recreate: old ReplicaSets to 0, wait for their pods
//   to go, then the new one to replicas;
// - a replicas change while several ReplicaSets are active is spread over them in proportion (scaling event);
// - paused: only scaling, Progressing Unknown/DeploymentPaused, no deadline;
// - old ReplicaSets at 0 beyond revisionHistoryLimit are deleted once the rollout is complete;
// - status: replicas, updatedReplicas, readyReplicas, availableReplicas, unavailableReplicas,
//   observedGeneration, collisionCount, conditions Available (MinimumReplicasAvailable /
//   MinimumReplicasUnavailable) and Progressing (NewReplicaSetCreated, FoundNewReplicaSet, ReplicaSetUpdated,
//   NewReplicaSetAvailable, ProgressDeadlineExceeded after progressDeadlineSeconds without progress);
// - rollback (extensions/v1beta1 spec.rollbackTo, kept in apps/v1 as the annotation ROLLBACK_TO, see
//   simulator/api/conversion.ts): unless paused, the template of the ReplicaSet with that revision (0 = the
//   previous one) is copied into the Deployment with its annotations and the request cleared, in one PUT;
//   the rollout then runs as usual. An unknown revision or an unchanged template only clears the request
//   (Warning events DeploymentRollbackRevisionNotFound / DeploymentRollbackTemplateUnchanged).

import { isDeepStrictEqual } from 'node:util';
import type { KubeObject } from '../api/meta.ts';
import type { LabelSelector } from '../api/labels.ts';
import { scaledValue } from '../api/kinds/int-or-percent.ts';
import { ApiError } from '../client/api-client.ts';
import type { Controller, ControllerContext } from './kit/controller.ts';
import { keyOf, type Informer } from '../client/informer.ts';
import { WorkQueue } from '../client/work-queue.ts';
import { EventRecorder, refOf } from '../client/event-recorder.ts';
import { claimPods } from './kit/claim.ts';
import type { PodIndex } from './kit/pod-index.ts';
import { LoopKit } from './kit/loop.ts';
import { controllerKeyResolver, controllerNameOf } from './kit/owner.ts';
import { DEPLOYMENT_ROLLBACK_TO } from '../api/kinds/deployment.ts';
import type { DeploymentSpec as DeploymentSpecType, DeploymentStatus, PodTemplate, ReplicaSetSpec, ReplicaSetStatus } from '../api/types/index.ts';
import {
  controllerRefOf,
  deleteObject,
  isConflict,
  omitEmpty,
  ownerRef,
  rfc3339,
  selectorMatches,
  specOf,
  templateHash,
  writeStatus,
  type Condition,
  type Obj,
} from './kit/workload-util.ts';
import { every } from '../client/timers.ts';
import { copyJson } from '../util/json-value.ts';
import { RESOURCE } from '../client/resource-paths.ts';

export const REVISION = 'deployment.kubernetes.io/revision';
export const DESIRED_REPLICAS = 'deployment.kubernetes.io/desired-replicas';
export const MAX_REPLICAS = 'deployment.kubernetes.io/max-replicas';
export const HASH_LABEL = 'pod-template-hash';
export const ROLLBACK_TO = DEPLOYMENT_ROLLBACK_TO;
/** Annotations of a Deployment not copied to its ReplicaSets, nor back from a ReplicaSet on rollback (annotationsToSkip). */
const NOT_COPIED = new Set([
  REVISION,
  DESIRED_REPLICAS,
  MAX_REPLICAS,
  'kubectl.kubernetes.io/last-applied-configuration',
  'deployment.kubernetes.io/revision-history',
  ROLLBACK_TO,
]);

type DeploymentSpec = DeploymentSpecType;
type Template = PodTemplate;
type RSSpec = ReplicaSetSpec;
type RSStatus = ReplicaSetStatus;
export type { DeploymentSpecType as DeploymentSpec };

const rsPathOf = (rs: KubeObject) =>
  RESOURCE.replicaSets.object(rs.metadata.namespace ?? '', rs.metadata.name ?? '');
const rsSpec = (rs: KubeObject) => specOf<RSSpec>(rs);
const rsStatus = (rs: KubeObject) => (rs.status ?? {}) as RSStatus;
const replicasOf = (rs: KubeObject) => rsSpec(rs).replicas ?? 0;
const revisionOf = (rs: KubeObject) => Number(rs.metadata.annotations?.[REVISION] ?? '0') || 0;
const created = (o: KubeObject) => Date.parse(o.metadata.creationTimestamp ?? '') || 0;
const byCreation = (a: KubeObject, b: KubeObject) => created(a) - created(b) || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? '');
const sum = (rss: KubeObject[], f: (rs: KubeObject) => number) => rss.reduce((n, rs) => n + f(rs), 0);

/** maxSurge and maxUnavailable against replicas (deploymentutil.ResolveFenceposts). */
export function resolveFenceposts(spec: DeploymentSpec): { maxSurge: number; maxUnavailable: number } {
  const replicas = spec.replicas ?? 1;
  if (spec.strategy?.type === 'Recreate') return { maxSurge: 0, maxUnavailable: replicas };
  const ru = spec.strategy?.rollingUpdate ?? {};
  const maxSurge = scaledValue(ru.maxSurge ?? '25%', replicas, 'up');
  let maxUnavailable = scaledValue(ru.maxUnavailable ?? '25%', replicas, 'down');
  if (maxSurge === 0 && maxUnavailable === 0) maxUnavailable = 1;
  return { maxSurge, maxUnavailable };
}

/** The template without the pod-template-hash label, to compare a ReplicaSet's with the Deployment's. */
function withoutHash(t: Template | undefined): Template {
  const c = copyJson(t ?? {});
  if (c.metadata?.labels) {
    delete c.metadata.labels[HASH_LABEL];
    if (Object.keys(c.metadata.labels).length === 0) delete c.metadata.labels;
  }
  return c;
}

/** The second highest revision among the ReplicaSets: the one before the current (deploymentutil.LastRevision). */
export function lastRevision(rss: KubeObject[]): number {
  let max = 0;
  let second = 0;
  for (const rs of rss) {
    const v = revisionOf(rs);
    if (v >= max) {
      second = max;
      max = v;
    } else if (v > second) second = v;
  }
  return second;
}

export const templatesEqual = (rsTemplate: Template | undefined, dTemplate: Template | undefined) =>
  isDeepStrictEqual(withoutHash(rsTemplate), withoutHash(dTemplate));

export class DeploymentController implements Controller {
  readonly name = 'deployment';
  /** ReplicaSets as this controller last wrote them; newer than the cache until the watch catches up. */
  private readonly written = new Map<string, KubeObject>();
  private events: EventRecorder | undefined;

  async run(ctx: ControllerContext): Promise<void> {
    const loop = new LoopKit(ctx, this.name, 'deployment-controller');
    this.events = loop.events;
    const queue = loop.queue;
    const deployments = loop.informer(RESOURCE.deployments.collection());
    const replicaSets = loop.informer(RESOURCE.replicaSets.collection());
    const { informer: podInformer, index: pods } = loop.pods(RESOURCE.pods.collection());
    const ownerOf = controllerKeyResolver('Deployment', deployments);
    const onRS = (rs: KubeObject) => {
      const key = ownerOf(rs);
      if (key) return queue.add(key);
      if (controllerRefOf(rs)) return;
      for (const d of deployments.listIn(rs.metadata.namespace ?? '')) {
        if (selectorMatches(specOf<DeploymentSpec>(d).selector, rs.metadata.labels)) queue.add(keyOf(d));
      }
    };
    deployments.addEventHandler({ onAdd: (d) => queue.add(keyOf(d)), onUpdate: (_o, d) => queue.add(keyOf(d)) });
    replicaSets.addEventHandler({
      onAdd: onRS,
      onUpdate: (_o, rs) => onRS(rs),
      onDelete: (rs) => {
        this.written.delete(rs.metadata.uid ?? '');
        onRS(rs);
      },
    });
    // Recreate waits for old pods to be gone: their deletion must wake the deployment.
    podInformer.addEventHandler({
      onDelete: (pod) => {
        const rsName = controllerNameOf(pod, 'ReplicaSet');
        const rs = rsName === undefined ? undefined : replicaSets.get(`${pod.metadata.namespace}/${rsName}`);
        if (rs) onRS(rs);
      },
    });
    const period = ctx.options.durationMs('--deployment-controller-sync-period');
    const stopResync = every(period, ctx.signal, () => deployments.list().forEach((d) => queue.add(keyOf(d))));
    try {
      if (!(await loop.synced())) return;
      await loop.work(ctx.options.int('--concurrent-deployment-syncs'), (key) => this.sync(ctx, key, deployments, replicaSets, pods, queue));
    } finally {
      stopResync();
    }
  }

  /** An event about a Deployment. */
  protected event(_ctx: ControllerContext, d: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string): void {
    this.events?.event(refOf(d, 'apps/v1', 'Deployment'), type, reason, message);
  }

  /** dc.rollback: copies the template of the requested revision's ReplicaSet into the Deployment and clears the request. */
  private async rollback(ctx: ControllerContext, d: KubeObject, rsList: KubeObject[]): Promise<void> {
    const next: KubeObject = { ...copyJson(d), apiVersion: 'apps/v1', kind: 'Deployment' };
    const annotations = { ...(next.metadata.annotations ?? {}) };
    let revision = Number(annotations[ROLLBACK_TO]) || 0;
    delete annotations[ROLLBACK_TO];
    next.metadata.annotations = annotations;
    const name = d.metadata.name ?? '';
    let performed = false;
    if (revision === 0) revision = lastRevision(rsList);
    const target = revision === 0 ? undefined : rsList.find((rs) => revisionOf(rs) === revision);
    if (!target) {
      this.event(
        ctx,
        d,
        'Warning',
        'DeploymentRollbackRevisionNotFound',
        revision === 0 ? 'Unable to find last revision.' : 'Unable to find the revision to rollback to.',
      );
    } else if (templatesEqual(rsSpec(target).template, specOf<DeploymentSpec>(d).template)) {
      this.event(ctx, d, 'Warning', 'DeploymentRollbackTemplateUnchanged', `The rollback revision contains the same template as current deployment "${name}"`);
    } else {
      // SetFromReplicaSetTemplate + SetDeploymentAnnotationsTo.
      (next.spec as DeploymentSpec).template = withoutHash(rsSpec(target).template);
      const kept: Record<string, string> = {};
      for (const [k, v] of Object.entries(annotations)) if (NOT_COPIED.has(k)) kept[k] = v;
      for (const [k, v] of Object.entries(target.metadata.annotations ?? {})) if (!NOT_COPIED.has(k)) kept[k] = v;
      next.metadata.annotations = kept;
      performed = true;
    }
    if (Object.keys(next.metadata.annotations ?? {}).length === 0) delete next.metadata.annotations;
    const path = RESOURCE.deployments.object(d.metadata.namespace ?? '', name);
    try {
      await ctx.client.update(path, next, ctx.signal);
    } catch (err) {
      if (err instanceof ApiError && err.code === 404) return;
      throw err;
    }
    if (performed) this.event(ctx, d, 'Normal', 'DeploymentRollback', `Rolled back deployment "${name}" to revision ${revision}`);
  }

  /** The cached ReplicaSet, or the one this controller wrote if that is newer. */
  private fresh(rs: KubeObject): KubeObject {
    const w = this.written.get(rs.metadata.uid ?? '');
    if (!w) return rs;
    if (Number(w.metadata.resourceVersion) > Number(rs.metadata.resourceVersion)) return w;
    this.written.delete(rs.metadata.uid ?? '');
    return rs;
  }

  private remember(rs: KubeObject): KubeObject {
    this.written.set(rs.metadata.uid ?? '', rs);
    return rs;
  }

  async sync(ctx: ControllerContext, key: string, deployments: Informer, replicaSets: Informer, pods: PodIndex, queue: WorkQueue<string>): Promise<void> {
    const cached = deployments.get(key);
    if (!cached) return;
    const d = cached;
    const spec = specOf<DeploymentSpec>(d);
    const ns = d.metadata.namespace ?? 'default';
    if (!spec.selector || (Object.keys(spec.selector.matchLabels ?? {}).length === 0 && (spec.selector.matchExpressions ?? []).length === 0)) {
      ctx.log(`deployment ${key}: empty selector, not selecting anything`);
      return;
    }
    const inNs = replicaSets.listIn(ns);
    // Adopt matching orphan ReplicaSets, release owned ones that stopped matching (the pods' claim logic).
    const rsList = (await claimPods(ctx.client, d, spec.selector, inNs, 'apps/v1', 'Deployment', ctx.signal, rsPathOf)).map((rs) => this.fresh(rs));
    const run = new DeploymentSync(ctx, d, rsList, pods, (rs) => this.remember(rs), (type, reason, message) => this.event(ctx, d, type, reason, message));
    if (d.metadata.deletionTimestamp) return run.syncStatusOnly();
    // Rollback is not re-entrant: nothing else happens until the request is cleared (the PUT wakes us again).
    if (!spec.paused && d.metadata.annotations?.[ROLLBACK_TO] !== undefined) return this.rollback(ctx, d, rsList);
    let requeueMs: number | undefined;
    if (spec.paused) requeueMs = await run.syncScaleOnly(true);
    else if (run.isScalingEvent()) requeueMs = await run.syncScaleOnly(false);
    else if (spec.strategy?.type === 'Recreate') requeueMs = await run.rolloutRecreate();
    else requeueMs = await run.rolloutRolling();
    if (requeueMs !== undefined) queue.addAfter(key, requeueMs);
  }
}

/** One sync of one Deployment over its ReplicaSets. */
class DeploymentSync {
  private readonly spec: DeploymentSpec;
  private readonly path: string;
  private readonly statusPath: string;
  private readonly ns: string;
  private newRSCreated = false;

  constructor(
    private readonly ctx: ControllerContext,
    private d: KubeObject,
    private rsList: KubeObject[],
    private readonly pods: PodIndex,
    private readonly remember: (rs: KubeObject) => KubeObject,
    private readonly event: (type: 'Normal' | 'Warning', reason: string, message: string) => void = () => {},
  ) {
    this.spec = specOf<DeploymentSpec>(d);
    this.ns = d.metadata.namespace ?? 'default';
    this.path = RESOURCE.deployments.object(this.ns, d.metadata.name ?? '');
    this.statusPath = RESOURCE.deployments.object(this.ns, d.metadata.name ?? '', 'status');
  }

  private get replicas(): number {
    return this.spec.replicas ?? 1;
  }

  private rsPath(name: string): string {
    return RESOURCE.replicaSets.object(this.ns, name);
  }

  private split(): { newRS: KubeObject | undefined; oldRSs: KubeObject[] } {
    const matching = this.rsList.filter((rs) => templatesEqual(rsSpec(rs).template, this.spec.template)).sort(byCreation);
    const newRS = matching[0];
    return { newRS, oldRSs: this.rsList.filter((rs) => rs !== newRS) };
  }

  /** A replicas change to apply to the active ReplicaSets (their desired-replicas annotation differs). */
  isScalingEvent(): boolean {
    const active = this.rsList.filter((rs) => replicasOf(rs) > 0);
    return active.some((rs) => {
      const desired = rs.metadata.annotations?.[DESIRED_REPLICAS];
      return desired !== undefined && Number(desired) !== this.replicas;
    });
  }

  private annotationsFor(rs: KubeObject, revision?: number): Record<string, string> {
    const { maxSurge } = resolveFenceposts(this.spec);
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(this.d.metadata.annotations ?? {})) if (!NOT_COPIED.has(k)) out[k] = v;
    out[DESIRED_REPLICAS] = String(this.replicas);
    out[MAX_REPLICAS] = String(this.replicas + maxSurge);
    out[REVISION] = String(revision ?? revisionOf(rs));
    return out;
  }

  /** Sets a ReplicaSet's replicas (and the Deployment's annotations on it). */
  private async scaleRS(rs: KubeObject, replicas: number): Promise<KubeObject> {
    const annotations = this.annotationsFor(rs);
    const same = replicasOf(rs) === replicas && Object.entries(annotations).every(([k, v]) => rs.metadata.annotations?.[k] === v);
    if (same) return rs;
    const updated = await this.ctx.client.patch(
      this.rsPath(rs.metadata.name ?? ''),
      { metadata: { annotations }, spec: { replicas } },
      'application/merge-patch+json',
      this.ctx.signal,
    );
    const before = replicasOf(rs);
    if (before !== replicas)
      this.event('Normal', 'ScalingReplicaSet', `Scaled ${replicas > before ? 'up' : 'down'} replica set ${rs.metadata.name} to ${replicas}`);
    this.remember(updated);
    this.rsList = this.rsList.map((x) => (x.metadata.uid === updated.metadata.uid ? updated : x));
    return updated;
  }

  /** The ReplicaSet of the current template, with its revision synced; created when asked and missing. */
  private async getNewRS(oldRSs: KubeObject[], existing: KubeObject | undefined, create: boolean): Promise<KubeObject | undefined> {
    const maxOld = oldRSs.reduce((m, rs) => Math.max(m, revisionOf(rs)), 0);
    const newRevision = maxOld + 1;
    let rs = existing;
    if (rs) {
      if (revisionOf(rs) < newRevision || rs.metadata.annotations?.[DESIRED_REPLICAS] === undefined) {
        const updated = await this.ctx.client.patch(
          this.rsPath(rs.metadata.name ?? ''),
          { metadata: { annotations: this.annotationsFor(rs, Math.max(revisionOf(rs), newRevision)) } },
          'application/merge-patch+json',
          this.ctx.signal,
        );
        rs = this.remember(updated);
        this.rsList = this.rsList.map((x) => (x.metadata.uid === updated.metadata.uid ? updated : x));
      }
    } else if (create) {
      rs = await this.createNewRS(oldRSs, newRevision);
      if (!rs) return undefined;
    } else return undefined;
    await this.setDeploymentRevision(String(revisionOf(rs)));
    return rs;
  }

  private async createNewRS(oldRSs: KubeObject[], revision: number): Promise<KubeObject | undefined> {
    const status = (this.d.status ?? {}) as DeploymentStatus;
    const hash = templateHash(this.spec.template, status.collisionCount);
    const template = copyJson(this.spec.template ?? {});
    template.metadata = { ...template.metadata, labels: { ...template.metadata?.labels, [HASH_LABEL]: hash } };
    const selector: LabelSelector = { ...copyJson(this.spec.selector), matchLabels: { ...this.spec.selector?.matchLabels, [HASH_LABEL]: hash } };
    const name = `${this.d.metadata.name}-${hash}`;
    const draft: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name,
        namespace: this.ns,
        labels: template.metadata.labels,
        annotations: {},
        ownerReferences: [ownerRef(this.d, 'apps/v1', 'Deployment')],
      },
      spec: { replicas: 0, minReadySeconds: this.spec.minReadySeconds ?? 0, selector, template },
    };
    draft.metadata.annotations = this.annotationsFor(draft, revision);
    // Born at the size the rollout allows right now (NewRSNewReplicas), not at 0.
    (draft.spec as RSSpec).replicas = this.newRSReplicas(draft, oldRSs);
    try {
      const rs = this.remember(await this.ctx.client.create(RESOURCE.replicaSets.collection(this.ns), draft, this.ctx.signal));
      if (replicasOf(rs) > 0) this.event('Normal', 'ScalingReplicaSet', `Scaled up replica set ${rs.metadata.name} to ${replicasOf(rs)}`);
      this.rsList.push(rs);
      this.newRSCreated = true;
      return rs;
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 409)) throw err;
      // The name exists: ours with this template (the cache lagged) is the new one; anything else is a collision.
      const other = await this.ctx.client.get(this.rsPath(name), undefined, this.ctx.signal);
      if (controllerRefOf(other)?.uid === this.d.metadata.uid && templatesEqual(rsSpec(other).template, this.spec.template)) {
        this.rsList.push(this.remember(other));
        return other;
      }
      const next = { ...(this.d.status as Obj | undefined), collisionCount: (status.collisionCount ?? 0) + 1 };
      await writeStatus(this.ctx.client, this.statusPath, this.d.status as Obj | undefined, next, this.ctx.signal, this.d.metadata.resourceVersion);
      throw new Error(`hash collision on ReplicaSet ${name}; collisionCount raised to ${next.collisionCount}`);
    }
  }

  private async setDeploymentRevision(revision: string): Promise<void> {
    if (this.d.metadata.annotations?.[REVISION] === revision) return;
    try {
      this.d = await this.ctx.client.patch(this.path, { metadata: { annotations: { [REVISION]: revision } } }, 'application/merge-patch+json', this.ctx.signal);
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 404)) throw err;
    }
  }

  /** NewRSNewReplicas. */
  private newRSReplicas(newRS: KubeObject, oldRSs: KubeObject[]): number {
    if (this.spec.strategy?.type === 'Recreate') return this.replicas;
    const { maxSurge } = resolveFenceposts(this.spec);
    const current = sum([...oldRSs, newRS], replicasOf);
    const maxTotal = this.replicas + maxSurge;
    if (current >= maxTotal) return replicasOf(newRS);
    const up = Math.min(maxTotal - current, this.replicas - replicasOf(newRS));
    return replicasOf(newRS) + Math.max(0, up);
  }

  async rolloutRolling(): Promise<number | undefined> {
    const split = this.split();
    const oldRSs = split.oldRSs;
    let newRS = split.newRS;
    newRS = await this.getNewRS(oldRSs, newRS, true);
    if (!newRS) return this.syncRolloutStatus(undefined, oldRSs);
    // Scale up the new ReplicaSet.
    const current = replicasOf(newRS);
    const target = current > this.replicas ? this.replicas : this.newRSReplicas(newRS, oldRSs);
    if (target !== current) {
      newRS = await this.scaleRS(newRS, target);
      return this.syncRolloutStatus(newRS, oldRSs);
    }
    if (await this.reconcileOld(newRS, oldRSs)) return this.syncRolloutStatus(newRS, this.split().oldRSs);
    return this.syncRolloutStatus(newRS, oldRSs, true);
  }

  /** Scales old ReplicaSets down as far as availability allows; true when something was scaled. */
  private async reconcileOld(newRS: KubeObject, oldRSs: KubeObject[]): Promise<boolean> {
    const oldPods = sum(oldRSs, replicasOf);
    if (oldPods === 0) return false;
    const all = [newRS, ...oldRSs];
    const allPods = sum(all, replicasOf);
    const { maxUnavailable } = resolveFenceposts(this.spec);
    const minAvailable = this.replicas - maxUnavailable;
    const newUnavailable = replicasOf(newRS) - (rsStatus(newRS).availableReplicas ?? 0);
    const maxScaledDown = allPods - minAvailable - newUnavailable;
    if (maxScaledDown <= 0) return false;
    let scaled = 0;
    // First the unhealthy pods of old ReplicaSets: they do not count toward availability anyway.
    const sorted = [...oldRSs].sort(byCreation);
    for (const rs of sorted) {
      if (scaled >= maxScaledDown) break;
      const unhealthy = replicasOf(rs) - (rsStatus(rs).availableReplicas ?? 0);
      if (unhealthy <= 0) continue;
      const n = Math.min(maxScaledDown - scaled, unhealthy);
      await this.scaleRS(rs, replicasOf(rs) - n);
      scaled += n;
    }
    // Then healthy ones, while the available count stays at or above minAvailable.
    const fresh = (rs: KubeObject) => this.rsList.find((x) => x.metadata.uid === rs.metadata.uid) ?? rs;
    // A ReplicaSet just scaled down still reports the pods it is deleting as available until its controller
    // catches up: count at most its replicas, or a second pass would take more than maxUnavailable allows.
    const available = sum(all.map(fresh), (rs) => Math.min(replicasOf(rs), rsStatus(rs).availableReplicas ?? 0));
    if (available > minAvailable) {
      const total = available - minAvailable;
      let done = 0;
      for (const rs0 of sorted) {
        const rs = fresh(rs0);
        if (done >= total) break;
        if (replicasOf(rs) === 0) continue;
        const n = Math.min(replicasOf(rs), total - done);
        await this.scaleRS(rs, replicasOf(rs) - n);
        done += n;
      }
      scaled += done;
    }
    return scaled > 0;
  }

  async rolloutRecreate(): Promise<number | undefined> {
    const split = this.split();
    const oldRSs = split.oldRSs;
    let newRS = split.newRS;
    newRS = await this.getNewRS(oldRSs, newRS, false);
    let scaledDown = false;
    for (const rs of oldRSs) {
      if (replicasOf(rs) === 0) continue;
      await this.scaleRS(rs, 0);
      scaledDown = true;
    }
    if (scaledDown) return this.syncRolloutStatus(newRS, this.split().oldRSs);
    // Wait until no pod of an old ReplicaSet runs any more.
    const oldUids = new Set(oldRSs.map((rs) => rs.metadata.uid));
    const oldRunning = this.pods.inNamespace(this.ns).some((p) => {
      const phase = (p.status as { phase?: string } | undefined)?.phase;
      return oldUids.has(controllerRefOf(p)?.uid) && phase !== 'Succeeded' && phase !== 'Failed';
    });
    if (oldRunning) return this.syncRolloutStatus(newRS, oldRSs);
    newRS ??= await this.getNewRS(oldRSs, undefined, true);
    if (newRS && replicasOf(newRS) !== this.replicas) newRS = await this.scaleRS(newRS, this.replicas);
    return this.syncRolloutStatus(newRS, this.split().oldRSs, true);
  }

  /** Paused deployments and scaling events: set sizes, no rollout. */
  async syncScaleOnly(paused: boolean): Promise<number | undefined> {
    let { newRS, oldRSs } = this.split();
    newRS = await this.getNewRS(oldRSs, newRS, false);
    await this.scale(newRS, oldRSs);
    ({ newRS, oldRSs } = this.split());
    if (paused) return this.syncStatusOnly(true);
    return this.syncRolloutStatus(newRS, oldRSs);
  }

  /** Spreads a replicas change over the active ReplicaSets (proportional scaling). */
  private async scale(newRS: KubeObject | undefined, oldRSs: KubeObject[]): Promise<void> {
    const all = [...(newRS ? [newRS] : []), ...oldRSs];
    const active = all.filter((rs) => replicasOf(rs) > 0);
    if (active.length <= 1) {
      // One active ReplicaSet (or none): it takes the whole size; with none, the new one does.
      const target = active[0] ?? newRS;
      if (target) await this.scaleRS(target, this.replicas);
      return;
    }
    if (newRS && replicasOf(newRS) === this.replicas && active.length === 1) return;
    const { maxSurge } = resolveFenceposts(this.spec);
    const allowed = this.spec.strategy?.type === 'RollingUpdate' || !this.spec.strategy?.type ? this.replicas + maxSurge : this.replicas;
    const current = sum(active, replicasOf);
    const toAdd = allowed - current;
    if (toAdd === 0) return;
    // Larger (then newer) ReplicaSets first when growing, smaller first when shrinking.
    const ordered = [...active].sort((a, b) =>
      toAdd > 0 ? replicasOf(b) - replicasOf(a) || byCreation(b, a) : replicasOf(a) - replicasOf(b) || byCreation(a, b),
    );
    let added = 0;
    const sizes = new Map<KubeObject, number>();
    for (const rs of ordered) {
      const share = Math.trunc((replicasOf(rs) * toAdd) / current);
      const capped = toAdd > 0 ? Math.min(share, toAdd - added) : Math.max(share, toAdd - added);
      sizes.set(rs, replicasOf(rs) + capped);
      added += capped;
    }
    // The rest goes to the first (largest) one.
    if (added !== toAdd) sizes.set(ordered[0], Math.max(0, (sizes.get(ordered[0]) ?? 0) + toAdd - added));
    for (const [rs, n] of sizes) await this.scaleRS(rs, Math.max(0, n));
  }

  private calculateStatus(newRS: KubeObject | undefined, all: KubeObject[]): Obj {
    const available = sum(all, (rs) => rsStatus(rs).availableReplicas ?? 0);
    const total = sum(all, (rs) => rsStatus(rs).replicas ?? 0);
    const old = (this.d.status ?? {}) as DeploymentStatus;
    const { maxUnavailable } = resolveFenceposts(this.spec);
    let conditions = [...(old.conditions ?? [])];
    const availableNow = available >= this.replicas - maxUnavailable;
    conditions = setDeploymentCondition(conditions, availableNow
      ? { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' }
      : { type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable', message: 'Deployment does not have minimum availability.' });
    return {
      ...omitEmpty({
        observedGeneration: this.d.metadata.generation,
        replicas: total,
        updatedReplicas: newRS ? (rsStatus(newRS).replicas ?? 0) : 0,
        readyReplicas: sum(all, (rs) => rsStatus(rs).readyReplicas ?? 0),
        availableReplicas: available,
        unavailableReplicas: Math.max(0, this.replicas - available),
        collisionCount: old.collisionCount,
      }),
      conditions,
    };
  }

  async syncStatusOnly(paused = false): Promise<undefined> {
    const { newRS } = this.split();
    const status = this.calculateStatus(newRS, this.rsList);
    if (paused) {
      status.conditions = setDeploymentCondition(status.conditions as Condition[], {
        type: 'Progressing',
        status: 'Unknown',
        reason: 'DeploymentPaused',
        message: 'Deployment is paused',
      });
    }
    await writeStatus(this.ctx.client, this.statusPath, this.d.status as Obj | undefined, status, this.ctx.signal, this.d.metadata.resourceVersion);
    return undefined;
  }

  /**
   * Status with the Progressing condition; cleans up old ReplicaSets once complete. Returns when to look
   * again: at the progress deadline while the rollout is still under way.
   */
  private async syncRolloutStatus(newRS: KubeObject | undefined, oldRSs: KubeObject[], mayCleanUp = false): Promise<number | undefined> {
    const all = [...(newRS ? [newRS] : []), ...oldRSs];
    const status = this.calculateStatus(newRS, all);
    const old = (this.d.status ?? {}) as DeploymentStatus & Obj;
    let conditions = status.conditions as Condition[];
    const deadline = this.spec.progressDeadlineSeconds;
    const rsName = newRS?.metadata.name ?? '';
    const complete =
      (status.updatedReplicas ?? 0) === this.replicas &&
      ((status.replicas as number | undefined) ?? 0) === this.replicas &&
      ((status.availableReplicas as number | undefined) ?? 0) === this.replicas &&
      (this.d.metadata.generation ?? 0) <= ((status.observedGeneration as number | undefined) ?? 0);
    let requeueMs: number | undefined;
    if (deadline !== undefined && deadline !== null) {
      const cur = conditions.find((c) => c.type === 'Progressing');
      const wasPaused = cur?.reason === 'DeploymentPaused';
      const progressed =
        ((status.updatedReplicas as number) ?? 0) > (old.updatedReplicas ?? 0) ||
        ((status.readyReplicas as number | undefined) ?? 0) > ((old.readyReplicas as number | undefined) ?? 0) ||
        ((status.availableReplicas as number | undefined) ?? 0) > ((old.availableReplicas as number | undefined) ?? 0) ||
        sum(oldRSs, (rs) => rsStatus(rs).replicas ?? 0) < ((old.replicas as number | undefined) ?? 0) - ((old.updatedReplicas as number | undefined) ?? 0);
      if (complete) {
        conditions = setDeploymentCondition(conditions, {
          type: 'Progressing',
          status: 'True',
          reason: 'NewReplicaSetAvailable',
          message: `ReplicaSet "${rsName}" has successfully progressed.`,
        });
      } else if (this.newRSCreated) {
        conditions = setDeploymentCondition(
          conditions,
          { type: 'Progressing', status: 'True', reason: 'NewReplicaSetCreated', message: `Created new replica set "${rsName}"` },
          true,
        );
      } else if (wasPaused || !cur) {
        conditions = setDeploymentCondition(conditions, wasPaused
          ? { type: 'Progressing', status: 'Unknown', reason: 'DeploymentResumed', message: 'Deployment is resumed' }
          : { type: 'Progressing', status: 'True', reason: 'FoundNewReplicaSet', message: `Found new replica set "${rsName}"` }, true);
      } else if (progressed) {
        conditions = setDeploymentCondition(
          conditions,
          { type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated', message: `ReplicaSet "${rsName}" is progressing.` },
          true,
        );
      } else {
        const since = Date.parse(cur.lastUpdateTime ?? cur.lastTransitionTime ?? '') || Date.now();
        const left = since + deadline * 1000 - Date.now();
        if (cur.reason !== 'NewReplicaSetAvailable' && cur.reason !== 'ProgressDeadlineExceeded' && left <= 0) {
          conditions = setDeploymentCondition(conditions, {
            type: 'Progressing',
            status: 'False',
            reason: 'ProgressDeadlineExceeded',
            message: `ReplicaSet "${rsName}" has timed out progressing.`,
          });
        }
      }
      const now = conditions.find((c) => c.type === 'Progressing');
      if (!complete && now && now.status !== 'False') {
        const since = Date.parse(now.lastUpdateTime ?? now.lastTransitionTime ?? '') || Date.now();
        requeueMs = Math.max(0, since + deadline * 1000 - Date.now()) + 1000;
      }
    }
    status.conditions = conditions;
    if (complete && mayCleanUp) await this.cleanup(oldRSs);
    // 409: the Deployment changed since it was read; its watch event queues it again (as in replicaset.ts).
    const rv = this.d.metadata.resourceVersion;
    await writeStatus(this.ctx.client, this.statusPath, this.d.status as Obj | undefined, status, this.ctx.signal, rv).catch((err: unknown) => {
      if (!isConflict(err)) throw err;
    });
    return requeueMs;
  }

  /** Deletes old, empty ReplicaSets beyond revisionHistoryLimit, oldest revision first. */
  private async cleanup(oldRSs: KubeObject[]): Promise<void> {
    const limit = this.spec.revisionHistoryLimit;
    if (limit === undefined || limit === null) return;
    const candidates = oldRSs.filter((rs) => replicasOf(rs) === 0 && (rsStatus(rs).replicas ?? 0) === 0 && !rs.metadata.deletionTimestamp);
    const excess = candidates.length - limit;
    if (excess <= 0) return;
    candidates.sort((a, b) => revisionOf(a) - revisionOf(b) || byCreation(a, b));
    for (const rs of candidates.slice(0, excess)) await deleteObject(this.ctx.client, this.rsPath(rs.metadata.name ?? ''), rs.metadata.uid, this.ctx.signal);
  }
}

/**
 * Deployment conditions carry lastUpdateTime. A condition with the same status and reason keeps its
 * transition time; `touch` refreshes lastUpdateTime even when nothing else changed (progress was made).
 */
export function setDeploymentCondition(list: Condition[], c: Condition, touch = false): Condition[] {
  const now = rfc3339();
  const out = [...list];
  const i = out.findIndex((x) => x.type === c.type);
  const old = i >= 0 ? out[i] : undefined;
  if (old && old.status === c.status && old.reason === c.reason && old.message === c.message && !touch) return out;
  const next: Condition = {
    type: c.type,
    status: c.status,
    lastUpdateTime: now,
    lastTransitionTime: old && old.status === c.status ? (old.lastTransitionTime ?? now) : now,
    reason: c.reason,
    message: c.message,
  };
  if (i >= 0) out[i] = next;
  else out.push(next);
  return out;
}

export const deploymentController = (): Controller => new DeploymentController();
