// persistentvolume-expander (1.9 pkg/controller/volume/expand, gate ExpandPersistentVolumes): a bound claim whose
// resources.requests.storage grew past its status.capacity gets its volume resized — the volume's
// spec.capacity.storage becomes the request, then the claim's status.capacity follows (condition Resizing while
// it happens, removed after) and a VolumeResizeSuccessful event. Only claims of a StorageClass with
// allowVolumeExpansion: true are resized (the real PersistentVolumeClaimResize admission refuses the others up
// front; here the claim is left as it is with a VolumeResizeFailed warning). The simulated volume's plugin can
// always grow (no file system step).

import type { KubeObject } from '../api/meta.ts';
import type { Controller, ControllerContext } from './kit/controller.ts';
import { keyOf, type Informer } from '../client/informer.ts';
import { WorkQueue, runWorkers } from '../client/work-queue.ts';
import { EventRecorder, refOf } from '../client/event-recorder.ts';
import { quantityBytes } from '../api/kinds/volumes.ts';
import { isNotFound, rfc3339, statusOf, type Obj } from './kit/workload-util.ts';
import { storageClassOf } from './kit/storage-class.ts';
import { RESOURCE } from '../client/resource-paths.ts';

const request = (c: KubeObject) => ((c.spec as Obj | undefined)?.resources as { requests?: Obj } | undefined)?.requests?.storage;
const capacity = (c: KubeObject) => ((statusOf(c) as Obj).capacity as Obj | undefined)?.storage;

export class PersistentVolumeExpander implements Controller {
  readonly name = 'persistentvolume-expander';
  private readonly told = new Map<string, string>();

  async run(ctx: ControllerContext): Promise<void> {
    const events = new EventRecorder(ctx.client, { component: 'volume_expand' }, { log: ctx.log, signal: ctx.signal });
    const pvcs = ctx.informers.informerFor(RESOURCE.persistentVolumeClaims.collection());
    const pvs = ctx.informers.informerFor(RESOURCE.persistentVolumes.collection());
    const classes = ctx.informers.informerFor(RESOURCE.storageClasses.collection());
    const queue = new WorkQueue<string>({ name: 'volume_expand', metrics: ctx.metrics });
    pvcs.addEventHandler({ onAdd: (c) => queue.add(keyOf(c)), onUpdate: (_o, c) => queue.add(keyOf(c)) });
    for (const inf of [pvcs, pvs, classes]) if (!(await inf.waitForSync(ctx.signal))) return;
    await runWorkers(queue, 1, (key) => this.sync(ctx, events, key, pvcs, pvs, classes), ctx.signal, {
      controller: this.name,
      metrics: ctx.metrics,
      log: ctx.log,
    });
  }

  private async sync(ctx: ControllerContext, events: EventRecorder, key: string, pvcs: Informer, pvs: Informer, classes: Informer): Promise<void> {
    const c = pvcs.get(key);
    if (!c || (statusOf(c) as Obj).phase !== 'Bound') return;
    const want = quantityBytes(request(c));
    const have = quantityBytes(capacity(c));
    if (want === undefined || have === undefined || want <= have) return;
    const volumeName = String((c.spec as Obj).volumeName ?? '');
    const v = pvs.get(volumeName);
    if (!v) return;
    const cls = classes.get(storageClassOf(c)) as Obj | undefined;
    if (cls?.allowVolumeExpansion !== true) {
      const msg = 'only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize';
      if (this.told.get(c.metadata.uid ?? '') !== `${request(c)}`) {
        this.told.set(c.metadata.uid ?? '', `${request(c)}`);
        events.event(refOf(c, 'v1', 'PersistentVolumeClaim'), 'Warning', 'VolumeResizeFailed', msg);
      }
      return;
    }
    const ns = c.metadata.namespace ?? '';
    const name = c.metadata.name ?? '';
    const now = rfc3339();
    const patchClaim = (status: Obj) => ctx.client.patch(RESOURCE.persistentVolumeClaims.object(ns, name, 'status'), { status }, 'application/merge-patch+json', ctx.signal);
    try {
      await patchClaim({ conditions: [{ type: 'Resizing', status: 'True', lastProbeTime: now, lastTransitionTime: now }] });
      const vs = (v.spec ?? {}) as Obj;
      await ctx.client.patch(
        RESOURCE.persistentVolumes.named(volumeName),
        { spec: { capacity: { ...((vs.capacity as Obj | undefined) ?? {}), storage: request(c) } } },
        'application/merge-patch+json',
        ctx.signal,
      );
      await patchClaim({ capacity: { ...(((statusOf(c) as Obj).capacity as Obj | undefined) ?? {}), storage: request(c) }, conditions: null });
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    events.event(
      refOf(c, 'v1', 'PersistentVolumeClaim'),
      'Normal',
      'VolumeResizeSuccessful',
      `ExpandVolume succeeded for volume ${volumeName}: ${capacity(c)} -> ${request(c)}`,
    );
  }
}

export const persistentVolumeExpanderController = (): Controller => new PersistentVolumeExpander();
