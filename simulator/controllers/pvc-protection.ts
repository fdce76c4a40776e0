// pvc-protection (1.9 pkg/controller/volume/pvcprotection, gate PVCProtection): every claim carries the finalizer
// kubernetes.io/pvc-protection, so deleting a claim a pod still uses only marks it (deletionTimestamp); the
// finalizer is removed, and the claim goes, once no pod uses it. A pod uses a claim when it names it among its
// volumes, is scheduled (spec.nodeName) and has not terminated (Succeeded/Failed) — the real controller's test;
// the pod cache is checked and then the API, so a pod made a moment ago still counts.

import type { KubeObject } from '../api/meta.ts';
import type { Controller, ControllerContext } from './kit/controller.ts';
import { keyOf, type Informer } from '../client/informer.ts';
import { WorkQueue, runWorkers } from '../client/work-queue.ts';
import { isConflict, isNotFound, isTerminated, type Obj } from './kit/workload-util.ts';
import { RESOURCE } from '../client/resource-paths.ts';

export const PVC_PROTECTION_FINALIZER = 'kubernetes.io/pvc-protection';

const claimsOf = (pod: KubeObject): string[] =>
  (((pod.spec as Obj | undefined)?.volumes ?? []) as Array<{ persistentVolumeClaim?: { claimName?: string } }>)
    .map((v) => v.persistentVolumeClaim?.claimName)
    .filter((n): n is string => typeof n === 'string' && n !== '');

export const podUsesClaim = (pod: KubeObject, claim: string) =>
  Boolean((pod.spec as Obj | undefined)?.nodeName) && !isTerminated(pod) && claimsOf(pod).includes(claim);

export class PvcProtectionController implements Controller {
  readonly name = 'pvc-protection';

  async run(ctx: ControllerContext): Promise<void> {
    const pvcs = ctx.informers.informerFor(RESOURCE.persistentVolumeClaims.collection());
    const pods = ctx.informers.informerFor(RESOURCE.pods.collection());
    const queue = new WorkQueue<string>({ name: 'pvcprotection', metrics: ctx.metrics });
    const onClaim = (c: KubeObject) => queue.add(keyOf(c));
    const onPod = (p: KubeObject) => {
      for (const name of claimsOf(p)) queue.add(`${p.metadata.namespace}/${name}`);
    };
    pvcs.addEventHandler({ onAdd: onClaim, onUpdate: (_o, c) => onClaim(c) });
    pods.addEventHandler({ onAdd: onPod, onUpdate: (_o, p) => onPod(p), onDelete: onPod });
    if (!(await pvcs.waitForSync(ctx.signal)) || !(await pods.waitForSync(ctx.signal))) return;
    await runWorkers(queue, 1, (key) => this.sync(ctx, key, pvcs, pods), ctx.signal, { controller: this.name, metrics: ctx.metrics, log: ctx.log });
  }

  private async sync(ctx: ControllerContext, key: string, pvcs: Informer, pods: Informer): Promise<void> {
    const c = pvcs.get(key);
    if (!c) return;
    const finalizers = c.metadata.finalizers ?? [];
    const has = finalizers.includes(PVC_PROTECTION_FINALIZER);
    const ns = c.metadata.namespace ?? '';
    const name = c.metadata.name ?? '';
    let next: string[] | undefined;
    if (!c.metadata.deletionTimestamp) {
      if (!has) next = [...finalizers, PVC_PROTECTION_FINALIZER];
    } else if (has) {
      if (pods.list().some((p) => p.metadata.namespace === ns && podUsesClaim(p, name))) return;
      const live = await ctx.client.list(RESOURCE.pods.collection(ns), undefined, ctx.signal);
      if (live.items.some((p) => podUsesClaim(p, name))) return;
      next = finalizers.filter((f) => f !== PVC_PROTECTION_FINALIZER);
    }
    if (!next) return;
    try {
      await ctx.client.update(RESOURCE.persistentVolumeClaims.object(ns, name), { ...c, metadata: { ...c.metadata, finalizers: next } }, ctx.signal);
      ctx.log(`${next.includes(PVC_PROTECTION_FINALIZER) ? 'added' : 'removed'} ${PVC_PROTECTION_FINALIZER} on ${key}`);
    } catch (err) {
      if (isNotFound(err)) return;
      if (isConflict(err)) throw new Error(`claim ${key} changed meanwhile`); // retried by the worker
      throw err;
    }
  }
}

export const pvcProtectionController = (): Controller => new PvcProtectionController();
