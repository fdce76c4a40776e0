// persistentvolume-binder (1.9 pkg/controller/volume/persistentvolume): binds claims to volumes, provisions
// volumes for claims of a StorageClass, and reclaims released volumes. One worker, as the real controller's
// claim and volume queues each have one; every claim and volume is synced again each --pvclaimbinder-sync-period
// (a claim waiting for a volume that appears later is bound on that resync, as in 1.9).
//
// Claim sync:
//   no spec.volumeName: the smallest volume that fits (not bound to another claim; storage class equal; every
//     requested access mode; capacity >= the request; the claim's selector matches its labels), a volume
//     pre-bound to this claim first. Found: bind both ways (volume claimRef + bound-by-controller annotation,
//     phase Bound; claim volumeName + bind-completed/bound-by-controller annotations, phase Bound, capacity and
//     access modes of the volume). Not found: with a class and --enable-dynamic-provisioning, provision
//     (kubernetes.io/host-path only with --enable-hostpath-provisioner, otherwise ProvisioningFailed; another
//     provisioner is external: the claim is annotated volume.beta.kubernetes.io/storage-provisioner and waits);
//     without a class an event FailedBinding.
//   spec.volumeName set (pre-bound or bound): bind to that volume if it is free and fits; a bound claim whose
//     volume is gone becomes Lost (ClaimLost).
// Volume sync: no claimRef -> Available; bound to an existing claim -> Bound (the claim is queued to finish a
//   half-done binding); bound to a claim that is gone -> Released, then by persistentVolumeReclaimPolicy:
//   Retain keeps it; Delete deletes it (host paths only under /tmp, as the real host-path deleter; other
//   sources have no deleter here: Failed); Recycle runs a recycler pod (volume-plugins.ts: template, deadline)
//   named recycler-for-<volume>, waits for it to succeed (Available again, unbound) or fail (Failed).
// The host-path provisioner makes pvc-<claim uid> at /tmp/hostpath_pv/<uuid>, with the class's reclaim policy
// and mount options, pre-bound to the claim.

import { randomUUID } from 'node:crypto';
import type { KubeObject } from '../api/meta.ts';
import type { LabelSelector } from '../api/labels.ts';
import type { Controller, ControllerContext } from './kit/controller.ts';
import type { Informer } from '../client/informer.ts';
import { WorkQueue, runWorkers } from '../client/work-queue.ts';
import { EventRecorder, refOf } from '../client/event-recorder.ts';
import { quantityBytes } from '../api/kinds/volumes.ts';
import { deleteObject, isConflict, isNotFound, selectorMatches, statusOf, type Obj } from './kit/workload-util.ts';
import { recyclerDeadlineSeconds, volumePluginConfig, type RecyclerConfig, type VolumePluginConfig } from './config/volume-plugins.ts';
import { RESOURCE } from '../client/resource-paths.ts';
import { storageClassOf } from './kit/storage-class.ts';

export const ANN_BOUND_BY_CONTROLLER = 'pv.kubernetes.io/bound-by-controller';
export const ANN_BIND_COMPLETED = 'pv.kubernetes.io/bind-completed';
export const ANN_PROVISIONED_BY = 'pv.kubernetes.io/provisioned-by';
export const ANN_STORAGE_PROVISIONER = 'volume.beta.kubernetes.io/storage-provisioner';
export const HOST_PATH_PROVISIONER = 'kubernetes.io/host-path';

const pvPath = (name: string, subresource?: 'status') => RESOURCE.persistentVolumes.named(name, subresource);
const pvcPath = (ns: string, name: string, subresource?: 'status') => RESOURCE.persistentVolumeClaims.object(ns, name, subresource);

type Spec = Obj & {
  accessModes?: string[];
  claimRef?: ClaimRef | null;
  storageClassName?: string;
  volumeName?: string;
  selector?: LabelSelector;
  capacity?: Obj;
  resources?: { requests?: Obj };
};
interface ClaimRef { kind?: string; namespace?: string; name?: string; uid?: string; apiVersion?: string; resourceVersion?: string }

const spec = (o: KubeObject): Spec => (o.spec ?? {}) as Spec;
const phase = (o: KubeObject) => (statusOf(o) as { phase?: string }).phase;
const claimClass = storageClassOf;
const volumeClass = storageClassOf;
const ann = (o: KubeObject, k: string) => o.metadata.annotations?.[k];
const requestOf = (c: KubeObject) => spec(c).resources?.requests?.storage;
const capacityOf = (v: KubeObject) => spec(v).capacity?.storage;
const claimKey = (ns: string, name: string) => `claim:${ns}/${name}`;
const volumeKey = (name: string) => `volume:${name}`;

/** Whether the volume's claimRef names this claim (and its uid, once set). */
export function isBoundTo(v: KubeObject, c: KubeObject): boolean {
  const ref = spec(v).claimRef;
  if (!ref) return false;
  if (ref.name !== c.metadata.name || (ref.namespace ?? '') !== (c.metadata.namespace ?? '')) return false;
  return !ref.uid || ref.uid === c.metadata.uid;
}

/** Why the volume cannot satisfy the claim, or undefined (size, class, access modes). */
function unsatisfied(v: KubeObject, c: KubeObject): string | undefined {
  const want = quantityBytes(requestOf(c)) ?? 0;
  const have = quantityBytes(capacityOf(v)) ?? 0;
  if (have < want) return 'requested PV is too small';
  if (volumeClass(v) !== claimClass(c)) return 'storageClassName does not match';
  const modes = spec(v).accessModes ?? [];
  if (!(spec(c).accessModes ?? []).every((m) => modes.includes(m))) return 'incompatible accessMode';
  return undefined;
}

/** The best volume for an unbound claim (1.9 findBestMatchForClaim). */
export function findMatchingVolume(c: KubeObject, volumes: KubeObject[]): KubeObject | undefined {
  let best: KubeObject | undefined;
  let bestSize = Infinity;
  for (const v of volumes) {
    if (v.metadata.deletionTimestamp) continue;
    const ref = spec(v).claimRef;
    if (ref && !isBoundTo(v, c)) continue;
    if (unsatisfied(v, c)) continue;
    if (ref) return v; // pre-bound to this claim
    if (phase(v) === 'Released' || phase(v) === 'Failed') continue;
    const sel = spec(c).selector;
    if (sel && !selectorMatches(sel, v.metadata.labels)) continue;
    const size = quantityBytes(capacityOf(v)) ?? 0;
    if (size < bestSize) {
      best = v;
      bestSize = size;
    }
  }
  return best;
}

export class PersistentVolumeBinder implements Controller {
  readonly name = 'persistentvolume-binder';
  private events!: EventRecorder;
  private ctx!: ControllerContext;
  private pvs!: Informer;
  private pvcs!: Informer;
  private classes!: Informer;
  private pods!: Informer;
  private plugins!: VolumePluginConfig;
  private queue!: WorkQueue<string>;
  /** Volumes with a recycle or delete under way (one operation per volume, as the real operation executor). */
  private readonly operations = new Set<string>();
  /** Claims already told they wait for an external provisioner or failed to provision (one event each). */
  private readonly told = new Map<string, string>();

  async run(ctx: ControllerContext): Promise<void> {
    this.ctx = ctx;
    this.plugins = volumePluginConfig(ctx.options);
    this.events = new EventRecorder(ctx.client, { component: 'persistentvolume-controller' }, { log: ctx.log, signal: ctx.signal });
    this.pvs = ctx.informers.informerFor(RESOURCE.persistentVolumes.collection());
    this.pvcs = ctx.informers.informerFor(RESOURCE.persistentVolumeClaims.collection());
    this.classes = ctx.informers.informerFor(RESOURCE.storageClasses.collection());
    this.pods = ctx.informers.informerFor(RESOURCE.pods.collection());
    const queue = (this.queue = new WorkQueue<string>({ name: 'persistentvolume-binder', metrics: ctx.metrics }));
    const onVolume = (v: KubeObject) => queue.add(volumeKey(v.metadata.name ?? ''));
    const onClaim = (c: KubeObject) => queue.add(claimKey(c.metadata.namespace ?? '', c.metadata.name ?? ''));
    this.pvs.addEventHandler({ onAdd: onVolume, onUpdate: (_o, v) => onVolume(v), onDelete: (v) => {
      // A bound claim whose volume went away becomes Lost.
      const ref = spec(v).claimRef;
      if (ref?.name) queue.add(claimKey(ref.namespace ?? '', ref.name));
    } });
    this.pvcs.addEventHandler({ onAdd: onClaim, onUpdate: (_o, c) => onClaim(c), onDelete: (c) => {
      this.told.delete(c.metadata.uid ?? '');
      // Its volume is released.
      const name = spec(c).volumeName;
      if (name) queue.add(volumeKey(name));
      for (const v of this.pvs.list()) if (isBoundTo(v, c)) queue.add(volumeKey(v.metadata.name ?? ''));
    } });
    for (const inf of [this.pvs, this.pvcs, this.classes, this.pods]) if (!(await inf.waitForSync(ctx.signal))) return;
    const periodMs = ctx.options.durationMs('--pvclaimbinder-sync-period');
    ctx.log(
      `syncing volumes and claims every ${periodMs} ms; dynamic provisioning ${ctx.options.bool('--enable-dynamic-provisioning') ? 'on' : 'off'}, host-path provisioner ${ctx.options.bool('--enable-hostpath-provisioner') ? 'on' : 'off'}`,
    );
    const timer = setInterval(() => {
      this.pvs.list().forEach(onVolume);
      this.pvcs.list().forEach(onClaim);
    }, Math.max(periodMs, 100));
    ctx.signal.addEventListener('abort', () => clearInterval(timer), { once: true });
    await runWorkers(queue, 1, (key) => this.sync(key), ctx.signal, { controller: this.name, metrics: ctx.metrics, log: ctx.log });
    clearInterval(timer);
  }

  private async sync(key: string): Promise<void> {
    if (key.startsWith('claim:')) {
      const c = this.pvcs.get(key.slice(6));
      if (c) await this.syncClaim(c);
    } else {
      const v = this.pvs.get(key.slice(7));
      if (v) await this.syncVolume(v);
    }
  }

  // ---- claims ----

  private async syncClaim(c: KubeObject): Promise<void> {
    const name = spec(c).volumeName;
    if (!name) {
      const v = findMatchingVolume(c, this.pvs.list());
      if (v) return this.bind(v, c);
      return this.provisionOrWait(c);
    }
    const v = this.pvs.get(name);
    if (!v) {
      if (phase(c) === 'Bound' || ann(c, ANN_BIND_COMPLETED)) {
        if (phase(c) !== 'Lost') {
          await this.claimPhase(c, 'Lost');
          this.events.event(
            refOf(c, 'v1', 'PersistentVolumeClaim'),
            'Warning',
            'ClaimLost',
            'Bound claim has lost reference to PersistentVolume. Data on the volume is lost!',
          );
        }
      } else this.tell(c, 'Normal', 'FailedBinding', `volume "${name}" not found`);
      return;
    }
    if (!spec(v).claimRef) {
      const why = unsatisfied(v, c);
      if (why) return this.tell(c, 'Warning', 'VolumeMismatch', `Cannot bind to requested volume "${name}": ${why}`);
      return this.bind(v, c);
    }
    if (isBoundTo(v, c)) return this.bind(v, c);
    if (phase(c) !== 'Pending' && phase(c) !== 'Lost') await this.claimPhase(c, 'Lost');
    this.tell(c, 'Warning', 'FailedBinding', `volume "${name}" already bound to a different claim.`);
  }

  /** One event per claim and message (the real controller repeats them each sync; once is enough to observe). */
  private tell(c: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string): void {
    const uid = c.metadata.uid ?? '';
    if (this.told.get(uid) === message) return;
    this.told.set(uid, message);
    this.events.event(refOf(c, 'v1', 'PersistentVolumeClaim'), type, reason, message);
  }

  private async claimPhase(c: KubeObject, p: string): Promise<void> {
    await this.ctx.client
      .patch(pvcPath(c.metadata.namespace ?? '', c.metadata.name ?? '', 'status'), { status: { phase: p } }, 'application/merge-patch+json', this.ctx.signal)
      .catch((e: unknown) => (isNotFound(e) ? undefined : Promise.reject(e)));
  }

  /** Both halves of a binding, each written only when it is not already so. */
  private async bind(v: KubeObject, c: KubeObject): Promise<void> {
    const client = this.ctx.client;
    const signal = this.ctx.signal;
    const ref = spec(v).claimRef;
    if (!ref || ref.uid !== c.metadata.uid) {
      const annotations = { ...(v.metadata.annotations ?? {}) };
      if (!ref) annotations[ANN_BOUND_BY_CONTROLLER] = 'yes';
      const claimRef: ClaimRef = {
        kind: 'PersistentVolumeClaim',
        namespace: c.metadata.namespace,
        name: c.metadata.name,
        uid: c.metadata.uid,
        apiVersion: 'v1',
        resourceVersion: c.metadata.resourceVersion,
      };
      try {
        v = await client.update(pvPath(v.metadata.name ?? ''), { ...v, metadata: { ...v.metadata, annotations }, spec: { ...spec(v), claimRef } }, signal);
      } catch (err) {
        if (isConflict(err) || isNotFound(err)) return this.queue.addRateLimited(claimKey(c.metadata.namespace ?? '', c.metadata.name ?? ''));
        throw err;
      }
    }
    if (phase(v) !== 'Bound')
      await client.patch(pvPath(v.metadata.name ?? '', 'status'), { status: { phase: 'Bound' } }, 'application/merge-patch+json', signal);
    const cAnn = c.metadata.annotations ?? {};
    if (spec(c).volumeName !== v.metadata.name || cAnn[ANN_BIND_COMPLETED] !== 'yes') {
      const annotations: Record<string, string> = { ...cAnn, [ANN_BIND_COMPLETED]: 'yes' };
      if (!spec(c).volumeName) annotations[ANN_BOUND_BY_CONTROLLER] = 'yes';
      try {
        c = await client.update(
          pvcPath(c.metadata.namespace ?? '', c.metadata.name ?? ''),
          { ...c, metadata: { ...c.metadata, annotations }, spec: { ...spec(c), volumeName: v.metadata.name } },
          signal,
        );
      } catch (err) {
        if (isConflict(err)) return this.queue.addRateLimited(claimKey(c.metadata.namespace ?? '', c.metadata.name ?? ''));
        if (isNotFound(err)) return;
        throw err;
      }
    }
    const st = statusOf(c) as Obj;
    const want = { phase: 'Bound', accessModes: spec(v).accessModes ?? [], capacity: spec(v).capacity ?? {} };
    if (
      st.phase !== 'Bound' ||
      JSON.stringify(st.capacity) !== JSON.stringify(want.capacity) ||
      JSON.stringify(st.accessModes) !== JSON.stringify(want.accessModes)
    ) {
      await client
        .patch(pvcPath(c.metadata.namespace ?? '', c.metadata.name ?? '', 'status'), { status: want }, 'application/merge-patch+json', signal)
        .catch((e: unknown) => (isNotFound(e) ? undefined : Promise.reject(e)));
    }
  }

  private async provisionOrWait(c: KubeObject): Promise<void> {
    const className = claimClass(c);
    if (className === '') return this.tell(c, 'Normal', 'FailedBinding', 'no persistent volumes available for this claim and no storage class is set');
    if (!this.ctx.options.bool('--enable-dynamic-provisioning')) return;
    if (c.metadata.deletionTimestamp) return;
    const cls = this.classes.get(className);
    if (!cls) return this.tell(c, 'Warning', 'ProvisioningFailed', `storageclass.storage.k8s.io "${className}" not found`);
    const provisioner = String((cls as Obj).provisioner ?? '');
    if (provisioner !== HOST_PATH_PROVISIONER) {
      if (ann(c, ANN_STORAGE_PROVISIONER) !== provisioner) {
        const annotations = { ...(c.metadata.annotations ?? {}), [ANN_STORAGE_PROVISIONER]: provisioner };
        await this.ctx.client
          .update(pvcPath(c.metadata.namespace ?? '', c.metadata.name ?? ''), { ...c, metadata: { ...c.metadata, annotations } }, this.ctx.signal)
          .catch((e: unknown) => (isConflict(e) || isNotFound(e) ? undefined : Promise.reject(e)));
      }
      return this.tell(
        c,
        'Normal',
        'ExternalProvisioning',
        `waiting for a volume to be created, either by external provisioner "${provisioner}" or manually created by system administrator`,
      );
    }
    if (!this.ctx.options.bool('--enable-hostpath-provisioner')) {
      return this.tell(
        c,
        'Warning',
        'ProvisioningFailed',
        `Failed to create provisioner: Provisioning in volume plugin "${HOST_PATH_PROVISIONER}" is disabled`,
      );
    }
    const name = `pvc-${c.metadata.uid}`;
    if (this.pvs.get(name)) return; // made already; its event finishes the binding
    const clsObj = cls as Obj;
    const pv: KubeObject = {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name, annotations: { 'kubernetes.io/createdby': 'hostpath-dynamic-provisioner', [ANN_PROVISIONED_BY]: HOST_PATH_PROVISIONER, [ANN_BOUND_BY_CONTROLLER]: 'yes' } },
      spec: {
        capacity: { storage: requestOf(c) },
        hostPath: { path: `/tmp/hostpath_pv/${randomUUID()}` },
        accessModes: spec(c).accessModes ?? [],
        claimRef: { kind: 'PersistentVolumeClaim', namespace: c.metadata.namespace, name: c.metadata.name, uid: c.metadata.uid, apiVersion: 'v1', resourceVersion: c.metadata.resourceVersion },
        persistentVolumeReclaimPolicy: (clsObj.reclaimPolicy as string | undefined) ?? 'Delete',
        storageClassName: className,
        ...(Array.isArray(clsObj.mountOptions) && clsObj.mountOptions.length ? { mountOptions: clsObj.mountOptions } : {}),
      },
    };
    try {
      await this.ctx.client.create(RESOURCE.persistentVolumes.collection(), pv, this.ctx.signal);
    } catch (err) {
      if (!isConflict(err)) {
        this.tell(c, 'Warning', 'ProvisioningFailed', `Failed to provision volume with StorageClass "${className}": ${(err as Error).message}`);
        throw err;
      }
    }
    this.events.event(
      refOf(c, 'v1', 'PersistentVolumeClaim'),
      'Normal',
      'ProvisioningSucceeded',
      `Successfully provisioned volume ${name} using ${HOST_PATH_PROVISIONER}`,
    );
  }

  // ---- volumes ----

  private async volumePhase(v: KubeObject, p: string, message?: string): Promise<void> {
    if (phase(v) === p && (statusOf(v) as Obj).message === message) return;
    await this.ctx.client
      .patch(
        pvPath(v.metadata.name ?? '', 'status'),
        { status: { phase: p, message: message ?? null, reason: null } },
        'application/merge-patch+json',
        this.ctx.signal,
      )
      .catch((e: unknown) => (isNotFound(e) ? undefined : Promise.reject(e)));
  }

  private async syncVolume(v: KubeObject): Promise<void> {
    if (v.metadata.deletionTimestamp) return;
    const ref = spec(v).claimRef;
    if (!ref) return this.volumePhase(v, 'Available');
    if (!ref.uid) return this.volumePhase(v, 'Available'); // pre-bound by name: the claim's sync binds it
    let c = this.pvcs.get(`${ref.namespace ?? ''}/${ref.name ?? ''}`);
    if (!c || c.metadata.uid !== ref.uid) {
      // The cache may lag behind a claim made just now: ask the API before releasing.
      c = await this.ctx.client
        .get(pvcPath(ref.namespace ?? '', ref.name ?? ''), undefined, this.ctx.signal)
        .catch((e: unknown) => (isNotFound(e) ? undefined : Promise.reject(e)));
    }
    if (c && c.metadata.uid === ref.uid) {
      const name = spec(c).volumeName;
      if (!name) {
        // Half a binding (this side written, the claim not yet): the claim's sync finishes it.
        this.queue.add(claimKey(c.metadata.namespace ?? '', c.metadata.name ?? ''));
        return;
      }
      if (name === v.metadata.name) return this.volumePhase(v, 'Bound');
      // The claim went to another volume: a binding the controller made is undone.
      if (ann(v, ANN_BOUND_BY_CONTROLLER)) return this.unbind(v, 'Available');
      return;
    }
    // The claim is gone: released, then reclaimed by policy.
    if (phase(v) !== 'Released' && phase(v) !== 'Failed') {
      await this.volumePhase(v, 'Released');
      v = { ...v, status: { ...(statusOf(v) as Obj), phase: 'Released' } };
    }
    if (phase(v) === 'Failed') return;
    const policy = spec(v).persistentVolumeReclaimPolicy ?? 'Retain';
    if (policy === 'Retain') return;
    const name = v.metadata.name ?? '';
    if (this.operations.has(name)) return;
    this.operations.add(name);
    const op = policy === 'Recycle' ? this.recycle(v) : policy === 'Delete' ? this.deleteVolume(v) : Promise.resolve();
    void op
      .catch((err: unknown) => {
        if (!this.ctx.signal.aborted) this.ctx.log(`${policy} of volume ${name}: ${(err as Error).message}`);
      })
      .finally(() => this.operations.delete(name));
  }

  /** Clears the claimRef (a binding the controller made) or only its uid (one a user made), then the phase. */
  private async unbind(v: KubeObject, nextPhase: string): Promise<void> {
    const byController = ann(v, ANN_BOUND_BY_CONTROLLER) !== undefined;
    const annotations = { ...(v.metadata.annotations ?? {}) };
    delete annotations[ANN_BOUND_BY_CONTROLLER];
    const ref = spec(v).claimRef;
    const claimRef = byController || !ref ? undefined : { ...ref, uid: undefined, resourceVersion: undefined };
    const next = { ...v, metadata: { ...v.metadata, annotations }, spec: { ...spec(v), claimRef } };
    if (!claimRef) delete (next.spec as Obj).claimRef;
    const updated = await this.ctx.client.update(pvPath(v.metadata.name ?? ''), next, this.ctx.signal);
    await this.volumePhase(updated, nextPhase);
  }

  private async fail(v: KubeObject, reason: string, message: string): Promise<void> {
    await this.volumePhase(v, 'Failed', message);
    this.events.event(refOf(v, 'v1', 'PersistentVolume'), 'Warning', reason, message);
  }

  private async deleteVolume(v: KubeObject): Promise<void> {
    const name = v.metadata.name ?? '';
    const hostPath = (spec(v).hostPath as { path?: string } | undefined)?.path;
    if (hostPath === undefined)
      return this.fail(v, 'VolumeFailedDelete', `Error getting deleter volume plugin for volume "${name}": no deletable volume plugin matched`);
    if (!/^\/tmp\/.+/.test(hostPath)) return this.fail(v, 'VolumeFailedDelete', `host_path deleter only supports /tmp/.+ but received provided ${hostPath}`);
    await deleteObject(this.ctx.client, pvPath(name), v.metadata.uid, this.ctx.signal);
    this.ctx.log(`deleted volume ${name} (${hostPath})`);
  }

  /** The recycler pod of 1.9's recycler client: recycler-for-<volume>, watched until it ends, then deleted. */
  private async recycle(v: KubeObject): Promise<void> {
    const name = v.metadata.name ?? '';
    const s = spec(v);
    let config: RecyclerConfig;
    let source: Obj;
    if (s.hostPath) {
      config = this.plugins.hostPath;
      source = { hostPath: { path: (s.hostPath as Obj).path } };
    } else if (s.nfs) {
      config = this.plugins.nfs;
      source = { nfs: { server: (s.nfs as Obj).server, path: (s.nfs as Obj).path } };
    } else return this.fail(v, 'VolumeFailedRecycle', 'No recycler plugin found for the volume!');
    const pod = structuredClone(config.template) as KubeObject & { spec: Obj & { volumes: Obj[] } };
    const ns = pod.metadata.namespace || 'default';
    pod.apiVersion = 'v1';
    pod.kind = 'Pod';
    pod.metadata = { ...pod.metadata, name: `recycler-for-${name}`, namespace: ns };
    delete pod.metadata.generateName;
    pod.spec.activeDeadlineSeconds = recyclerDeadlineSeconds(config.minimumTimeout, config.timeoutIncrement, capacityOf(v));
    pod.spec.volumes[0] = { name: pod.spec.volumes[0].name, ...source };
    const podPath = RESOURCE.pods.object(ns, pod.metadata.name!);
    this.events.event(
      refOf(v, 'v1', 'PersistentVolume'),
      'Normal',
      'RecyclerPod',
      `Recycler pod: ${pod.metadata.name} created with activeDeadlineSeconds ${pod.spec.activeDeadlineSeconds}`,
    );
    let created: KubeObject;
    try {
      created = await this.ctx.client.create(RESOURCE.pods.collection(ns), pod, this.ctx.signal);
    } catch (err) {
      if (!isConflict(err)) return this.fail(v, 'VolumeFailedRecycle', `Recycle failed: unexpected error creating recycler pod: ${(err as Error).message}`);
      created = await this.ctx.client.get(podPath, undefined, this.ctx.signal); // a recycler a previous run started
    }
    let outcome: string | undefined;
    try {
      outcome = await this.waitForPod(`${ns}/${created.metadata.name}`, created.metadata.uid ?? '');
    } finally {
      await deleteObject(this.ctx.client, podPath, created.metadata.uid, this.ctx.signal).catch(() => undefined);
    }
    if (outcome !== undefined) return this.fail(v, 'VolumeFailedRecycle', `Recycle failed: ${outcome}`);
    const fresh = this.pvs.get(name) ?? v;
    await this.unbind(fresh, 'Available');
    this.events.event(refOf(v, 'v1', 'PersistentVolume'), 'Normal', 'VolumeRecycled', 'Volume recycled');
  }

  /** Undefined when the pod succeeded, else why it did not. */
  private waitForPod(key: string, uid: string): Promise<string | undefined> {
    return new Promise((resolve) => {
      const signal = this.ctx.signal;
      let seen = false;
      const check = () => {
        if (signal.aborted) return finish('the controller stopped');
        const p = this.pods.get(key);
        if (!p || p.metadata.uid !== uid) return seen ? finish('the recycler pod was deleted before it finished') : undefined;
        seen = true;
        const ph = phase(p);
        if (ph === 'Succeeded') return finish(undefined);
        if (ph === 'Failed') return finish(`pod failed, pod.Status.Message ${(statusOf(p) as Obj).message ?? ''}`.trim());
        return undefined;
      };
      const timer = setInterval(check, 200);
      const finish = (r: string | undefined) => {
        clearInterval(timer);
        resolve(r);
      };
      check();
    });
  }
}

export const persistentVolumeBinderController = (): Controller => new PersistentVolumeBinder();
