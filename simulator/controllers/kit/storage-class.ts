// The storage class of a claim or volume as 1.9 reads it: `spec.storageClassName`, else the beta annotation
// (volume.beta.kubernetes.io/storage-class), else none (''). Shared by the binder (a volume's class must be its
// claim's) and the expander (whose class allows expansion).

import type { KubeObject } from '../../api/meta.ts';

export const ANN_BETA_CLASS = 'volume.beta.kubernetes.io/storage-class';

export const storageClassOf = (o: KubeObject): string =>
  (o.spec as { storageClassName?: string } | undefined)?.storageClassName ?? o.metadata.annotations?.[ANN_BETA_CLASS] ?? '';
