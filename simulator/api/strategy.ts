// Per-kind behaviour, the way the real API server pairs one generic registry store with a small strategy per
// kind (k8s.io/apiserver registry/rest: RESTCreateStrategy, RESTUpdateStrategy, status strategies...). Each kind
// declares a `KindStrategy` beside its rules in api/kinds/<kind>.ts and registers it; the generic store
// (simulator/server/registry/store.ts) runs the same mechanics for every kind and calls the hooks below. Nothing
// here or in the store names a kind: what differs between kinds is data in the strategies.
// simulator/api/README.md describes the interface and the order in which the store calls it.

import type { DeleteOptions, KubeObject } from './meta.ts';
import type { FieldError } from './field-errors.ts';
import type { KindStrategy, Requester, ResourceDef, StrategyEnv } from './resource-types.ts';

export type {
  ConversionStrategy, DeletionStrategy, KindStrategy, Requester, ScaleStrategy, StrategyEnv,
} from './resource-types.ts';

const strategiesByKind = new Map<string, KindStrategy[]>();

/** Registers a kind's strategy (any group serving the kind). A kind file calls it once when loaded. */
export function registerStrategy(kind: string, strategy: KindStrategy): void {
  const list = strategiesByKind.get(kind) ?? [];
  list.push(strategy);
  strategiesByKind.set(kind, list);
}


/**
 * The strategies of one served definition: its own when it carries one (custom resources, whose behaviour
 * comes from their CustomResourceDefinition and may share a kind name with another group's), else its kind's.
 */
export function strategiesFor(def: ResourceDef): KindStrategy[] {
  return def.strategy ? [def.strategy] : strategiesOf(def.kind);
}

/** Every strategy registered for a kind, in registration order. */
export function strategiesOf(kind: string | undefined): KindStrategy[] {
  return (kind !== undefined && strategiesByKind.get(kind)) || [];
}

/** The first strategy of a kind that defines `part`. */
export function strategyPart<K extends keyof KindStrategy>(kind: string | undefined, part: K): KindStrategy[K] | undefined {
  for (const s of strategiesOf(kind)) if (s[part] !== undefined) return s[part];
  return undefined;
}

/** @deprecated the name before strategies; returns strategiesOf(kind). */
export function kindRules(kind: string): KindStrategy[] {
  return strategiesOf(kind);
}

// ---- the generic half of the create and update strategies; the store calls these ----

export function applyDefaults(obj: KubeObject, def: ResourceDef): void {
  for (const s of strategiesFor(def)) s.applyDefaults?.(obj, def);
}

export function prepareForCreate(obj: KubeObject, def: ResourceDef, requester?: Requester): void {
  for (const s of strategiesFor(def)) s.prepareForCreate?.(obj, def, requester);
}

/** Update of the main resource: status is owned by /status (spec 1.8, 4.10.2), then the kind's own rules. */
export function prepareForUpdate(obj: KubeObject, old: KubeObject, def: ResourceDef): void {
  if (def.subresources.status) {
    if (old.status === undefined) delete obj.status;
    else obj.status = old.status;
  }
  for (const s of strategiesFor(def)) s.prepareForUpdate?.(obj, old, def);
}

/**
 * Update through /status (spec 4.10.1): only status changes. Everything else, metadata included (labels and
 * annotations in the body are ignored), is taken from the stored object; then the kind's status rules.
 */
export function prepareForStatusUpdate(obj: KubeObject, old: KubeObject, def: ResourceDef): KubeObject {
  const next: KubeObject = { ...old, metadata: { ...old.metadata } };
  if (obj.status === undefined) delete next.status;
  else next.status = obj.status;
  for (const s of strategiesFor(def)) s.prepareForStatusUpdate?.(next, old, def);
  return next;
}

// Every write validates: plain loops, and the first kind's own error list when it is the only one (no flatMap's
// arrays and closure per call).
export function validateKind(obj: KubeObject, def: ResourceDef): FieldError[] {
  let errs: FieldError[] = NO_ERRORS;
  for (const s of strategiesFor(def)) {
    const e = s.validate?.(obj, def);
    if (e !== undefined && e.length > 0) errs = errs.length === 0 ? e : [...errs, ...e];
  }
  return errs;
}

export function validateKindUpdate(obj: KubeObject, old: KubeObject, def: ResourceDef): FieldError[] {
  let errs: FieldError[] = NO_ERRORS;
  for (const s of strategiesFor(def)) {
    const e = s.validateUpdate?.(obj, old, def);
    if (e !== undefined && e.length > 0) errs = errs.length === 0 ? e : [...errs, ...e];
  }
  return errs;
}

/** What the validators answer for a valid object: one shared empty list, never changed (callers spread it). */
const NO_ERRORS: FieldError[] = Object.freeze([]) as unknown as FieldError[];

/** The kinds' create hooks; a promise only when one of them waits (most kinds have none). */
export function beforeCreate(obj: KubeObject, def: ResourceDef, env: StrategyEnv): void | Promise<void> {
  const strategies = strategiesFor(def);
  for (let i = 0; i < strategies.length; i++) if (strategies[i].beforeCreate !== undefined) return runBeforeCreate(strategies, obj, env);
}

async function runBeforeCreate(strategies: KindStrategy[], obj: KubeObject, env: StrategyEnv): Promise<void> {
  for (const s of strategies) await s.beforeCreate?.(obj, env);
}

/** Never throws: a hook's failure to give something back must not hide the create's own answer. */
export async function afterCreate(obj: KubeObject, def: ResourceDef, stored: boolean, env: StrategyEnv): Promise<void> {
  for (const s of strategiesFor(def)) await s.afterCreate?.(obj, stored, env).catch(() => undefined);
}

// ---- scale and deletion ----

/** The Scale's label selector of an object; by default spec.selector. */
export function scaleSelector(obj: KubeObject): { matchLabels?: Record<string, string> } | undefined {
  const scale = strategyPart(obj.kind, 'scale');
  if (scale) return scale.selector(obj);
  return (obj.spec as { selector?: { matchLabels?: Record<string, string> } } | undefined)?.selector;
}

export function gracePeriodSeconds(obj: KubeObject, opts: DeleteOptions): number {
  return strategyPart(obj.kind, 'deletion')?.gracePeriodSeconds?.(obj, opts) ?? 0;
}

/** Finalizers in the kind's own fields (besides metadata.finalizers) that keep a deleted object. */
export function holdingFinalizers(obj: KubeObject): string[] {
  return strategyPart(obj.kind, 'deletion')?.holdingFinalizers?.(obj) ?? [];
}

/** No finalizer keeps the object: metadata.finalizers and the kind's own finalizer fields are empty. */
export function nothingHolds(obj: KubeObject): boolean {
  return (obj.metadata.finalizers ?? []).length === 0 && holdingFinalizers(obj).length === 0;
}

export function prepareForDelete(next: KubeObject, old: KubeObject): void {
  strategyPart(old.kind, 'deletion')?.prepareForDelete?.(next, old);
}
