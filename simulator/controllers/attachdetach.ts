// attachdetach (1.9 pkg/controller/volume/attachdetach): attaches the attachable volumes of the pods scheduled to
// a node (api/volume-names.ts: GCE PD, AWS EBS, CSI through claims or inline) and detaches them when no pod there
// needs them any more. State, as in the real controller:
//   desired  node -> volumes of its scheduled, not terminated pods (claims resolved through bound volumes);
//   actual   node -> attached volumes (seeded from the Nodes' status.volumesAttached at start).
// The reconciler runs every 100 ms (the real ReconcilerLoopPeriod): attach what is desired and not attached;
// detach what is attached and no longer desired once the node's kubelet no longer lists it in
// status.volumesInUse (or after 6 minutes, maxWaitForUnmountDuration). Each node's status.volumesAttached is
// written when its set changes. CSI volumes are attached through VolumeAttachment objects
// (csi-<sha256(handle+driver+node)>): the controller creates one, and, standing in for the external attacher this
// simulator has no other place for, marks it attached; a detach deletes it. GCE and AWS disks are simulated
// (attached at once). CSI attach is alpha in 1.9: its VolumeAttachments are storage.k8s.io/v1alpha1, which a 1.9
// server serves only with --runtime-config=storage.k8s.io/v1alpha1=true; without it CSI volumes stay unattached
// (their pods wait, as on such a 1.9 cluster) and the other plugins work as before.
// Every --attach-detach-reconcile-sync-period (unless --disable-attach-detach-reconcile-sync) the actual state is
// checked against the volumes' truth (VerifyVolumesAreAttached): a CSI volume whose VolumeAttachment is gone or
// not attached is marked detached, so the reconciler attaches it again.

import { createHash } from 'node:crypto';
import type { Controller, ControllerContext } from './kit/controller.ts';
import type { Informer } from '../client/informer.ts';
import { attachableOf, podVolumes, type AttachableVolume } from '../api/volume-names.ts';
import { EventRecorder, refOf } from '../client/event-recorder.ts';
import { isConflict, isNotFound, isTerminated, type Obj } from './kit/workload-util.ts';
import { RESOURCE } from '../client/resource-paths.ts';

/** The group version of 1.9's VolumeAttachments (alpha): served only with --runtime-config. */
const VOLUME_ATTACHMENT_API = RESOURCE.volumeAttachments.groupVersion();
const RECONCILE_MS = 100;
const MAX_WAIT_FOR_UNMOUNT_MS = 6 * 60_000;

interface Attached {
  volume: AttachableVolume;
  /** When the volume stopped being desired on the node (detach waits for the kubelet to stop using it). */
  undesiredSince?: number;
}

export function volumeAttachmentName(handle: string, driver: string, node: string): string {
  return `csi-${createHash('sha256').update(`${handle}${driver}${node}`).digest('hex')}`;
}

export class AttachDetachController implements Controller {
  readonly name = 'attachdetach';
  private ctx!: ControllerContext;
  private events!: EventRecorder;
  private pods!: Informer;
  private nodes!: Informer;
  private pvcs!: Informer;
  private pvs!: Informer;
  /** VolumeAttachments, when the server serves them (CSI attach on). */
  private vas: Informer | undefined;
  /** node -> unique name -> attached volume. */
  private readonly actual = new Map<string, Map<string, Attached>>();
  /** Nodes whose status.volumesAttached must be written. */
  private readonly dirtyNodes = new Set<string>();
  private lastSync = Date.now();

  async run(ctx: ControllerContext): Promise<void> {
    this.ctx = ctx;
    this.events = new EventRecorder(ctx.client, { component: 'attachdetach-controller' }, { log: ctx.log, signal: ctx.signal });
    this.pods = ctx.informers.informerFor(RESOURCE.pods.collection());
    this.nodes = ctx.informers.informerFor(RESOURCE.nodes.collection());
    this.pvcs = ctx.informers.informerFor(RESOURCE.persistentVolumeClaims.collection());
    this.pvs = ctx.informers.informerFor(RESOURCE.persistentVolumes.collection());
    const csi = await ctx.client.get(VOLUME_ATTACHMENT_API, undefined, ctx.signal).then(
      () => true,
      (e: unknown) => (isNotFound(e) ? false : Promise.reject(e)),
    );
    if (csi) this.vas = ctx.informers.informerFor(RESOURCE.volumeAttachments.collection());
    else ctx.log(`CSI volumes are not attached: the server does not serve ${VOLUME_ATTACHMENT_API} (--runtime-config=storage.k8s.io/v1alpha1=true)`);
    for (const inf of [this.pods, this.nodes, this.pvcs, this.pvs, ...(this.vas ? [this.vas] : [])]) if (!(await inf.waitForSync(ctx.signal))) return;
    // The actual state starts from what the nodes report attached (the controller may have restarted).
    for (const node of this.nodes.list()) {
      const list = ((node.status as Obj | undefined)?.volumesAttached ?? []) as Array<{ name?: string; devicePath?: string }>;
      for (const a of list) {
        if (!a.name) continue;
        const m = /^(kubernetes\.io\/(?:gce-pd|aws-ebs|csi))\//.exec(a.name);
        if (!m) continue;
        this.actualOf(node.metadata.name ?? '').set(a.name, {
          volume: { uniqueName: a.name, plugin: m[1] as AttachableVolume['plugin'], devicePath: a.devicePath ?? '' },
        });
      }
    }
    const syncMs = ctx.options.durationMs('--attach-detach-reconcile-sync-period');
    const syncOff = ctx.options.bool('--disable-attach-detach-reconcile-sync');
    ctx.log(
      `reconciling every ${RECONCILE_MS} ms; ${syncOff ? 'attached volumes are not verified (--disable-attach-detach-reconcile-sync)' : `attached volumes verified every ${syncMs} ms`}`,
    );
    while (!ctx.signal.aborted) {
      try {
        await this.reconcile();
        if (!syncOff && syncMs >= 1000 && Date.now() - this.lastSync > syncMs) {
          this.lastSync = Date.now();
          await this.verifyAttached();
        }
        await this.writeNodeStatuses();
      } catch (err) {
        if (!ctx.signal.aborted) ctx.log(`reconcile: ${(err as Error).message}`);
      }
      await new Promise((r) => setTimeout(r, RECONCILE_MS));
    }
  }

  private actualOf(node: string): Map<string, Attached> {
    let m = this.actual.get(node);
    if (!m) this.actual.set(node, (m = new Map()));
    return m;
  }

  /** node -> unique name -> volume, from the scheduled, not terminated pods. */
  private desired(): Map<string, Map<string, AttachableVolume>> {
    const out = new Map<string, Map<string, AttachableVolume>>();
    for (const pod of this.pods.list()) {
      const node = (pod.spec as Obj | undefined)?.nodeName as string | undefined;
      if (!node || isTerminated(pod)) continue;
      const { claims, inline } = podVolumes(pod);
      if (claims.length === 0 && inline.length === 0) continue;
      const vols = [...inline];
      for (const claim of claims) {
        const c = this.pvcs.get(`${pod.metadata.namespace}/${claim}`);
        const pvName = (c?.spec as Obj | undefined)?.volumeName as string | undefined;
        const pv = pvName ? this.pvs.get(pvName) : undefined;
        const a = pv ? attachableOf((pv.spec ?? {}) as Obj, pvName) : undefined;
        if (a) vols.push(a);
      }
      if (vols.length === 0) continue;
      let m = out.get(node);
      if (!m) out.set(node, (m = new Map()));
      for (const v of vols) m.set(v.uniqueName, v);
    }
    return out;
  }

  private async reconcile(): Promise<void> {
    const desired = this.desired();
    const now = Date.now();
    // Detach first (the real reconciler does too), once the kubelet no longer uses the volume.
    for (const [node, attached] of this.actual) {
      const want = desired.get(node);
      const n = this.nodes.get(node);
      const inUse = new Set(((n?.status as Obj | undefined)?.volumesInUse ?? []) as string[]);
      for (const [name, a] of attached) {
        if (want?.has(name)) {
          a.undesiredSince = undefined;
          continue;
        }
        a.undesiredSince ??= now;
        if (n && inUse.has(name) && now - a.undesiredSince < MAX_WAIT_FOR_UNMOUNT_MS) continue;
        await this.detach(node, a.volume);
        attached.delete(name);
        this.dirtyNodes.add(node);
      }
    }
    for (const [node, want] of desired) {
      if (!this.nodes.get(node)) continue;
      const attached = this.actualOf(node);
      for (const [name, v] of want) {
        if (attached.has(name)) continue;
        if (await this.attach(node, v)) {
          attached.set(name, { volume: v });
          this.dirtyNodes.add(node);
        }
      }
    }
  }

  private async attach(node: string, v: AttachableVolume): Promise<boolean> {
    const client = this.ctx.client;
    const signal = this.ctx.signal;
    if (v.plugin === 'kubernetes.io/csi') {
      if (!this.vas) return false;
      const handle = v.uniqueName.slice(v.uniqueName.indexOf('^') + 1);
      const name = volumeAttachmentName(handle, v.csiDriver ?? '', node);
      let va = this.vas.get(name);
      if (!va) {
        try {
          va = await client.create(
            RESOURCE.volumeAttachments.collection(),
            {
              apiVersion: RESOURCE.volumeAttachments.apiVersion,
              kind: 'VolumeAttachment',
              metadata: { name },
              spec: { attacher: v.csiDriver, source: { persistentVolumeName: v.persistentVolumeName }, nodeName: node },
            },
            signal,
          );
        } catch (err) {
          if (!isConflict(err)) throw err;
          va = await client.get(RESOURCE.volumeAttachments.named(name), undefined, signal);
        }
      }
      if ((va.status as Obj | undefined)?.attached !== true) {
        // The external attacher's step: the volume is now attached to the node.
        await client.update(RESOURCE.volumeAttachments.named(name), { ...va, status: { ...((va.status as Obj | undefined) ?? {}), attached: true } }, signal);
      }
    }
    this.ctx.log(`attached ${v.uniqueName} to node ${node}`);
    const pv = v.persistentVolumeName ? this.pvs.get(v.persistentVolumeName) : undefined;
    if (pv)
      this.events.event(
        refOf(pv, 'v1', 'PersistentVolume'),
        'Normal',
        'SuccessfulAttachVolume',
        `AttachVolume.Attach succeeded for volume "${v.persistentVolumeName}" on node "${node}"`,
      );
    return true;
  }

  private async detach(node: string, v: AttachableVolume): Promise<void> {
    if (v.plugin === 'kubernetes.io/csi' && this.vas) {
      for (const va of this.vas.list()) {
        const s = (va.spec ?? {}) as Obj;
        if (s.nodeName !== node) continue;
        const pvName = (s.source as Obj | undefined)?.persistentVolumeName as string | undefined;
        const pv = pvName ? this.pvs.get(pvName) : undefined;
        const a = pv ? attachableOf((pv.spec ?? {}) as Obj, pvName) : undefined;
        if (a && a.uniqueName !== v.uniqueName) continue;
        if (!a && pvName !== v.persistentVolumeName) continue;
        await this.ctx.client
          .delete(RESOURCE.volumeAttachments.named(va.metadata.name ?? ''), undefined, this.ctx.signal)
          .catch((e: unknown) => (isNotFound(e) ? undefined : Promise.reject(e)));
      }
    }
    this.ctx.log(`detached ${v.uniqueName} from node ${node}`);
  }

  /** VerifyVolumesAreAttached: a CSI volume whose VolumeAttachment is gone or not attached is marked detached. */
  private async verifyAttached(): Promise<void> {
    for (const [node, attached] of this.actual) {
      for (const [name, a] of attached) {
        if (a.volume.plugin !== 'kubernetes.io/csi') continue;
        const handle = name.slice(name.indexOf('^') + 1);
        const driver = a.volume.csiDriver ?? name.slice('kubernetes.io/csi/'.length, name.indexOf('^'));
        const vaName = volumeAttachmentName(handle, driver, node);
        const va = await this.ctx.client
          .get(RESOURCE.volumeAttachments.named(vaName), undefined, this.ctx.signal)
          .catch((e: unknown) => (isNotFound(e) ? undefined : Promise.reject(e)));
        if (va && (va.status as Obj | undefined)?.attached === true) continue;
        this.ctx.log(`verify: ${name} is no longer attached to node ${node}; marked detached`);
        attached.delete(name);
        this.dirtyNodes.add(node);
      }
    }
  }

  private async writeNodeStatuses(): Promise<void> {
    for (const node of [...this.dirtyNodes]) {
      this.dirtyNodes.delete(node);
      const list = [...(this.actual.get(node)?.values() ?? [])]
        .map((a) => ({ name: a.volume.uniqueName, devicePath: a.volume.devicePath }))
        .sort((x, y) => x.name.localeCompare(y.name));
      try {
        await this.ctx.client.patch(
          RESOURCE.nodes.named(node, 'status'),
          { status: { volumesAttached: list.length ? list : null } },
          'application/merge-patch+json',
          this.ctx.signal,
        );
      } catch (err) {
        if (isNotFound(err)) {
          this.actual.delete(node);
          continue;
        }
        this.dirtyNodes.add(node);
        throw err;
      }
    }
  }
}

export const attachDetachController = (): Controller => new AttachDetachController();
