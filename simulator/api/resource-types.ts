// The vocabulary of kinds, types only: what a kind's ResourceDef declares (api/registry.ts declares them) and what
// its KindStrategy may do (api/strategy.ts registers and runs them). One file because each refers to the other (a
// custom resource's definition carries its own strategy; a strategy's hooks are given the definition), so that
// neither registry.ts nor strategy.ts imports the other for its types.

import type { DeleteOptions, GroupVersion, KubeObject } from './meta.ts';
import type { FieldError } from './field-errors.ts';

export type Verb = 'create' | 'delete' | 'deletecollection' | 'get' | 'list' | 'patch' | 'update' | 'watch';

/** How a subresource reads and writes its parent. */
export type SubresourceName = 'status' | 'scale' | 'finalize' | 'binding' | 'rollback' | 'eviction' | 'approval'
  // pods: the container output and the streaming subresources (server/subresources/pod-log.ts, server/streams/).
  | 'log' | 'exec' | 'attach' | 'portforward'
  // pods, services, nodes: the API server as an HTTP proxy (server/streams/proxy.ts).
  | 'proxy';

export interface ScaleDef {
  /**
   * The Scale type this group serves: autoscaling/v1 for apps/v1 and core, extensions/v1beta1 for extensions, and
   * the betas' own Scale (extensions shape) for apps/v1beta1 and apps/v1beta2 StatefulSets.
   */
  apiVersion: 'autoscaling/v1' | 'extensions/v1beta1' | 'apps/v1beta1' | 'apps/v1beta2';
}

export type NameRule = 'dns1123-subdomain' | 'dns1123-label' | 'dns1035-label' | 'path-segment';

export interface ResourceDef extends GroupVersion {
  kind: string;
  /** The plural resource name used in paths. */
  resource: string;
  singular: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  verbs: Verb[];
  subresources: Partial<Record<SubresourceName, true | ScaleDef>>;
  /** Storage prefix shared by every group that serves the same objects (deployments in apps and extensions). */
  storageResource: string;
  /** The version objects are stored in; reads through another version convert. */
  storageApiVersion: string;
  nameRule: NameRule;
  /** metadata.generation starts at 1 and increases on spec changes. */
  tracksGeneration?: boolean;
  /** PUT of a missing object creates it (the real server allows this for some kinds). */
  allowCreateOnUpdate?: boolean;
  /** Deleting without a propagation policy orphans dependents (extensions/v1beta1 workloads). */
  defaultOrphan?: boolean;
  /** A virtual type: POST only, nothing stored (SubjectAccessReview). */
  virtual?: boolean;
  /** Computed from live state on every read, nothing stored: get and list only (metrics.k8s.io). */
  computed?: boolean;
  /** Other apiVersions of this group accepted in request bodies and converted (spec 9). */
  acceptedBodyVersions?: string[];
  /**
   * Served from a CustomResourceDefinition (its name): JSON and YAML only (spec 4.1), no strategic merge patch,
   * behaviour from `strategy`. Added and removed at run time as CRDs are established and deleted.
   */
  customResourceDefinition?: string;
  /** A strategy of this definition alone (custom resources), used instead of the kind's registered ones. */
  strategy?: KindStrategy;
  /**
   * Not part of a default 1.9 cluster's API, served anyway because a client of the README's "works with" table
   * needs it (the reason). `--runtime-config=<group>/<version>=false` turns it off (api/runtime-config.ts).
   */
  beyond19?: string;
  /**
   * Off unless `--runtime-config` turns it on: what 1.9 did not serve (the reason). 1.9's alpha group versions are
   * off by default without it (any version with "alpha", as in 1.9).
   */
  offByDefault?: string;
}

/** Who sends the request (the authenticated user.Info), for kinds that record it (a CSR's spec.username...). */
export interface Requester {
  name: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** What the store lends to the hooks that need more than the object (allocators live on the server's side). */
export interface StrategyEnv {
  /** Cluster IPs and node ports of Services; allocate fills the fields in, release gives them back. */
  serviceAddresses: { allocate(obj: KubeObject): Promise<void>; release(obj: KubeObject): Promise<void> };
}

/** How a kind's object reads as a Scale (autoscaling/v1, extensions/v1beta1) and what a /scale write changes. */
export interface ScaleStrategy {
  /** The label selector the Scale shows, as a LabelSelector (a ReplicationController's map becomes matchLabels). */
  selector(obj: KubeObject): { matchLabels?: Record<string, string> } | undefined;
}

/** Field changes between a version served through the API and the storage version (spec 9). */
export interface ConversionStrategy {
  /** Into storage: obj is a private copy in `fromApiVersion` and may be changed in place. */
  toStorage?(obj: KubeObject, fromApiVersion: string, storageApiVersion: string): void;
  /** Out of storage: `out` is a shallow copy of `stored` relabelled `apiVersion`; replace its parts, never mutate `stored`. */
  fromStorage?(out: KubeObject, stored: KubeObject, apiVersion: string): void;
  /**
   * Bodies of an older version of the path's group (apps/v1beta1 Deployment), by apiVersion: that version's
   * defaults first (the real server defaults a body in the version it is written in), then the field changes.
   */
  bodies?: Record<string, (obj: KubeObject) => void>;
}

/** How a delete goes for the kind (the real strategies' graceful-delete and finalizer rules). */
export interface DeletionStrategy {
  /** Seconds of graceful deletion (0 = remove at once unless finalizers hold the object). */
  gracePeriodSeconds?(obj: KubeObject, opts: DeleteOptions): number;
  /** Finalizers in the kind's own fields that keep a deleted object (a Namespace's spec.finalizers). */
  holdingFinalizers?(obj: KubeObject): string[];
  /** Changes of an object marked for deletion but kept (a Namespace turns Terminating). `next` is a copy. */
  prepareForDelete?(next: KubeObject, old: KubeObject): void;
}

/**
 * Everything a kind may declare. Every hook is optional: a kind with no strategy gets the generic mechanics
 * only (system metadata, ObjectMeta validation, status owned by /status when it has that subresource).
 * Several modules may register for one kind (a body converter beside the kind's own rules); the list hooks then
 * all apply in registration order, and the first module that defines a single-answer hook (scale, deletion,
 * conversion) is used.
 */
export interface KindStrategy {
  /** Fills defaults in place, in the request's version (the object is a private copy). */
  applyDefaults?(obj: KubeObject, def: ResourceDef): void;
  /** Validation of a complete object (ObjectMeta is validated by the store). */
  validate?(obj: KubeObject, def: ResourceDef): FieldError[];
  /** Update rules: immutable fields and allowed transitions. */
  validateUpdate?(obj: KubeObject, old: KubeObject, def: ResourceDef): FieldError[];
  /** Create-time changes after defaulting: the initial status, selectors that need the uid... */
  prepareForCreate?(obj: KubeObject, def: ResourceDef, requester?: Requester): void;
  /** Update of the main resource, after status is carried over: what else the main resource may not change. */
  prepareForUpdate?(obj: KubeObject, old: KubeObject, def: ResourceDef): void;
  /** Update through /status, after the store took everything but status from the stored object (a shallow copy: replace parts, do not mutate them). */
  prepareForStatusUpdate?(obj: KubeObject, old: KubeObject, def: ResourceDef): void;
  /** Work before a new object is stored (allocations); throwing refuses the create. */
  beforeCreate?(obj: KubeObject, env: StrategyEnv): Promise<void>;
  /** After a create attempt: `stored` false means it was not stored, and what beforeCreate took must be given back. */
  afterCreate?(obj: KubeObject, stored: boolean, env: StrategyEnv): Promise<void>;
  scale?: ScaleStrategy;
  conversion?: ConversionStrategy;
  deletion?: DeletionStrategy;
}
