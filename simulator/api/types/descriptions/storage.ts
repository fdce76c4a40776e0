// Descriptions of the storage group's types: StorageClass (storage.k8s.io/v1) and VolumeAttachment
// (storage.k8s.io/v1beta1).

import { t, type PackageDescriptions } from './common.ts';

export const STORAGE: PackageDescriptions = {
  packages: ['io.k8s.api.storage.v1', 'io.k8s.api.storage.v1beta1'],
  types: {
    StorageClass: t('A kind of storage on offer: claims of this class get volumes made by its provisioner, with its parameters.', {
      provisioner: 'The provisioner that makes volumes of this class.',
      parameters: 'Settings passed to the provisioner.',
      reclaimPolicy: 'The reclaim policy of the volumes made: Delete (default) or Retain.',
      mountOptions: 'Mount options of the volumes made.',
      allowVolumeExpansion: 'Whether claims of this class may ask for more storage later.',
      volumeBindingMode: 'Immediate (default): bind or provision when the claim is made; WaitForFirstConsumer: wait until a pod uses the claim.',
    }),
    VolumeAttachment: t('A request to attach a volume to a node (or detach it), kept by the attach/detach controller; nothing is namespaced.', {
      spec: 'Which volume, which node, which attacher.',
      status: 'Whether the volume is attached, and the errors of the last attempts.',
    }),
    VolumeAttachmentSpec: t('What to attach where.', {
      attacher: 'The attacher (a volume driver) that attaches it.',
      source: 'The volume.',
      nodeName: 'The node to attach it to.',
    }),
    VolumeAttachmentSource: t('The volume to attach.', { persistentVolumeName: 'The persistent volume\'s name.' }),
    VolumeAttachmentStatus: t('The state of an attachment.', {
      attached: 'Whether the volume is attached.',
      attachmentMetadata: 'What the attacher reports about the attachment, for the mount step.',
      attachError: 'The error of the last attach attempt, if it failed.',
      detachError: 'The error of the last detach attempt, if it failed.',
    }),
    VolumeError: t('An error of an attach or detach attempt.', { time: 'When it happened.', message: 'What went wrong.' }),
  },
};
