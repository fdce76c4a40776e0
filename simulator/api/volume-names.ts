// Which volumes need attaching to a node before a pod can use them, and their unique names, shared by the
// attach/detach controller (which attaches them and lists them in the Node's status.volumesAttached) and the
// simulated kubelets (which wait for them and report them in status.volumesInUse). As in 1.9 the attachable
// plugins are the block devices: GCE PD (kubernetes.io/gce-pd/<pdName>), AWS EBS (kubernetes.io/aws-ebs/<volumeID>)
// and CSI volumes (kubernetes.io/csi/<driver>^<volumeHandle>, attached through a VolumeAttachment). Host paths,
// NFS, local volumes, secrets, config maps and the rest are mounted without an attachment.

import type { KubeObject } from './meta.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface AttachableVolume {
  /** The unique volume name of node status volumesAttached / volumesInUse. */
  uniqueName: string;
  plugin: 'kubernetes.io/gce-pd' | 'kubernetes.io/aws-ebs' | 'kubernetes.io/csi';
  devicePath: string;
  /** The PersistentVolume it comes from (claims), if any. */
  persistentVolumeName?: string;
  /** CSI: the driver (the VolumeAttachment's attacher). */
  csiDriver?: string;
}

/** The attachable volume a volume source (a pod volume or a PersistentVolume's spec) names, if any. */
export function attachableOf(source: Obj, persistentVolumeName?: string): AttachableVolume | undefined {
  const gce = source.gcePersistentDisk;
  if (isObj(gce) && typeof gce.pdName === 'string' && gce.pdName) {
    return { uniqueName: `kubernetes.io/gce-pd/${gce.pdName}`, plugin: 'kubernetes.io/gce-pd', devicePath: `/dev/disk/by-id/google-${gce.pdName}`, persistentVolumeName };
  }
  const aws = source.awsElasticBlockStore;
  if (isObj(aws) && typeof aws.volumeID === 'string' && aws.volumeID) {
    return { uniqueName: `kubernetes.io/aws-ebs/${aws.volumeID}`, plugin: 'kubernetes.io/aws-ebs', devicePath: '/dev/xvdba', persistentVolumeName };
  }
  const csi = source.csi;
  if (isObj(csi) && typeof csi.driver === 'string' && typeof csi.volumeHandle === 'string' && persistentVolumeName) {
    return { uniqueName: `kubernetes.io/csi/${csi.driver}^${csi.volumeHandle}`, plugin: 'kubernetes.io/csi', devicePath: '', persistentVolumeName, csiDriver: csi.driver };
  }
  return undefined;
}

/** The pod's volumes: claim names to resolve, and inline attachable volumes. */
export function podVolumes(pod: KubeObject): { claims: string[]; inline: AttachableVolume[] } {
  const vols = (isObj(pod.spec) && Array.isArray(pod.spec.volumes) ? pod.spec.volumes : []) as unknown[];
  const claims: string[] = [];
  const inline: AttachableVolume[] = [];
  for (const v of vols) {
    if (!isObj(v)) continue;
    const pvc = v.persistentVolumeClaim;
    if (isObj(pvc) && typeof pvc.claimName === 'string' && pvc.claimName) claims.push(pvc.claimName);
    const a = attachableOf(v);
    if (a) inline.push(a);
  }
  return { claims, inline };
}
