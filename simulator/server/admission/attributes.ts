// What an admission hook sees and how it answers (the real admission.Attributes and admission.Interface,
// reduced). Types only, below the registry that runs the hooks (registry/store.ts) and the hooks themselves
// (this folder, ../quota-admission.ts), so that neither imports the other for them.

import type { KubeObject } from '../../api/meta.ts';
import type { ResourceDef } from '../../api/registry.ts';
import type { Requester } from '../../api/strategy.ts';

/** What an update writes: the main resource or one of the subresources that write their parent. */
export type UpdateTarget = 'main' | 'status' | 'scale' | 'finalize' | 'approval';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE';

/** What an admission hook sees (the real admission.Attributes, reduced). */
export interface AdmissionAttributes {
  operation: Operation;
  def: ResourceDef;
  namespace?: string;
  name: string;
  subresource?: UpdateTarget;
  /** The object about to be stored (storage version); undefined for DELETE. */
  object?: KubeObject;
  /** The stored object an UPDATE or DELETE replaces. */
  oldObject?: KubeObject;
  dryRun: boolean;
  /** Who asks (undefined on the insecure port: system:unsecured). */
  user?: Requester;
  /** Set by a mutating hook that changed `object` in place: the object is validated again before the validating hooks. */
  mutated?: boolean;
}

/** Runs before every write; throwing an ApiError refuses the request with that Status (403 forbidden, 422...). */
export type AdmissionHook = (attrs: AdmissionAttributes) => void | Promise<void>;
