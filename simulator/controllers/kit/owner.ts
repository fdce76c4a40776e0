// Which cached owner controls an object: the controller reference's kind must be the owner kind, and the owner of
// that name in the owners' cache must have the reference's uid (a namesake made after the owner was deleted is not
// it). What every workload loop asks of a pod or ReplicaSet event to know whose sync to queue.

import type { KubeObject } from '../../api/meta.ts';
import type { Informer } from '../../client/informer.ts';
import { controllerRefOf } from './workload-util.ts';

/** A function from an object to the cache key of its controlling owner of `kind` in `owners`, or undefined. */
export function controllerKeyResolver(kind: string, owners: Informer): (obj: KubeObject) => string | undefined {
  return (obj) => {
    const ref = controllerRefOf(obj);
    if (!ref || ref.kind !== kind) return undefined;
    const key = `${obj.metadata.namespace}/${ref.name}`;
    return owners.get(key)?.metadata.uid === ref.uid ? key : undefined;
  };
}

/** The name of the object's controlling owner when that owner is of `kind` (no cache lookup), else undefined. */
export function controllerNameOf(obj: KubeObject, kind: string): string | undefined {
  const ref = controllerRefOf(obj);
  return ref && ref.kind === kind ? ref.name : undefined;
}
