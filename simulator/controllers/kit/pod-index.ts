// The pod index the workload controllers share: the shared pod informer's pods filed by controlling owner uid and,
// for pods without a controller, by namespace. A sync claims from its own pods plus the namespace's orphans (the
// only ones it may adopt) instead of every pod of the namespace: with a thousand ReplicaSets of a hundred pods
// each, the namespace scan was most of the controllers' CPU. One index per informer, however many loops use it.

import type { KubeObject } from '../../api/meta.ts';
import type { Informer } from '../../client/informer.ts';
import { Indexer } from './indexer.ts';
import { controllerRefOf } from './workload-util.ts';

const shared = new WeakMap<Informer, PodIndex>();

export class PodIndex {
  private readonly index: Indexer<'controller' | 'orphan'>;

  private constructor(readonly informer: Informer) {
    this.index = new Indexer(informer, {
      controller: (p) => {
        const uid = controllerRefOf(p)?.uid;
        return uid ? [uid] : [];
      },
      orphan: (p) => (controllerRefOf(p)?.uid ? [] : [p.metadata.namespace ?? '']),
    });
  }

  /** The index of a pod informer (made on first use; later users share it). */
  static of(informer: Informer): PodIndex {
    let index = shared.get(informer);
    if (!index) shared.set(informer, (index = new PodIndex(informer)));
    return index;
  }

  /** The pods of a namespace (the informer's own namespace index). */
  inNamespace(ns: string): KubeObject[] {
    return this.informer.listIn(ns);
  }

  /** The pods an owner may claim: those it controls and the namespace's orphans (claimPods skips the rest anyway). */
  claimable(ns: string, ownerUid: string | undefined): KubeObject[] {
    const own = ownerUid ? this.index.byIndex('controller', ownerUid).filter((p) => (p.metadata.namespace ?? '') === ns) : [];
    return [...own, ...this.index.byIndex('orphan', ns)];
  }
}
