// create (POST), update (PUT) and the status, scale and finalize subresources.

import { isDeepStrictEqual } from 'node:util';
import type { KubeObject } from '../../api/meta.ts';
import { apiVersionOf, parseApiVersion } from '../../api/meta.ts';
import type { ResourceDef, ScaleDef } from '../../api/registry.ts';
import { objectKey } from '../../api/registry.ts';
import { generateName } from '../../api/names.ts';
import { canonicalObject, DEPLOYMENT_ROLLBACK_TO } from '../../api/conversion.ts';
import { validateAnnotations, validateObjectMeta, validateObjectMetaUpdate } from '../../api/validation/object-meta.ts';
import { applyDefaults, prepareForCreate, prepareForFinalize, prepareForStatusUpdate, prepareForUpdate, validateKind, validateKindUpdate } from '../../api/strategy.ts';
import { StoreError, type StoredObject } from '../../storage/store.ts';
import { ApiError, badRequest, conflict, forbidden, invalid, invalidValue, notFound, type FieldError } from '../errors.ts';
import { decodeBody } from '../serializers.ts';
import { header, type ApiResult, type ResourceRequest, type ServerContext } from '../context.ts';
import { createAccessReview } from '../access-review.ts';
import { groupResource, initSystemMeta, keyOf, nowTimestamp, present, readObjectBody, selfLinkOf, storeErrorToApi, toStored } from './common.ts';

const NAMESPACE_DEF_KEY = (ns: string) => `/registry/namespaces/${ns}`;

/** Writes into a namespace need it to exist and not be terminating. */
export async function checkNamespaceWritable(ctx: ServerContext, def: ResourceDef, namespace: string, name: string): Promise<void> {
  const ns = await ctx.store.get(NAMESPACE_DEF_KEY(namespace));
  if (!ns) throw notFound({ group: '', resource: 'namespaces' }, namespace);
  if (ns.value.metadata.deletionTimestamp) {
    throw forbidden(groupResource(def), name, `unable to create new content in namespace ${namespace} because it is being terminated`);
  }
}

export function checkNamespaceMatches(req: ResourceRequest, obj: KubeObject): void {
  if (!req.def.namespaced) {
    delete obj.metadata.namespace;
    return;
  }
  const ns = obj.metadata.namespace;
  if (ns && ns !== req.namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  obj.metadata.namespace = req.namespace;
}

function validateNew(def: ResourceDef, obj: KubeObject): FieldError[] {
  return [...validateKind(obj, def), ...validateObjectMeta(def, obj.metadata)];
}

function throwIfInvalid(def: ResourceDef, name: string, errs: FieldError[]): void {
  if (errs.length > 0) throw invalid(def.kind, def.group, name, errs);
}

export async function create(ctx: ServerContext, req: ResourceRequest): Promise<ApiResult> {
  const def = req.def;
  const obj = readObjectBody(ctx, req);
  checkNamespaceMatches(req, obj);
  if (def.kind === 'Binding') return bindPod(ctx, req.namespace!, obj.metadata.name ?? '', obj);
  if (def.virtual) return createAccessReview(ctx, req, obj);
  const meta = obj.metadata;
  const explicitName = !!meta.name;
  if (!meta.name && meta.generateName && typeof meta.generateName === 'string') meta.name = generateName(meta.generateName);
  const name = meta.name ?? '';
  if (def.namespaced && req.namespace) await checkNamespaceWritable(ctx, def, req.namespace, name);
  initSystemMeta(ctx, def, obj);
  applyDefaults(obj, def);
  prepareForCreate(obj, def);
  throwIfInvalid(def, name, validateNew(def, obj));
  if (def.kind === 'Service') await ctx.serviceAddresses.allocate(obj);
  // generateName collisions are retried with a new suffix, as clients expect a unique name.
  for (let attempt = 0; ; attempt++) {
    try {
      const stored = await ctx.store.create(objectKey(def, req.namespace, obj.metadata.name!), toStored(def, obj));
      return { code: 201, object: present(def, stored.value) };
    } catch (e) {
      if (def.kind === 'Service' && !(e instanceof StoreError && e.code === 'KeyExists' && !explicitName && attempt < 5)) await ctx.serviceAddresses.release(obj).catch(() => undefined);
      if (e instanceof StoreError && e.code === 'KeyExists' && !explicitName && attempt < 5) {
        obj.metadata.name = generateName(obj.metadata.generateName!);
        obj.metadata.selfLink = selfLinkOf(def, obj.metadata.namespace, obj.metadata.name);
        continue;
      }
      storeErrorToApi(e, def, obj.metadata.name!);
    }
  }
}

const PODS = { group: '', resource: 'pods' };

/** POST .../pods/<name>/binding: reads a Binding body for the subresource path. */
export async function bindPodSubresource(ctx: ServerContext, req: ResourceRequest): Promise<ApiResult> {
  const raw = decodeBody(req.body, header(req, 'content-type'), { protobuf: ctx.protobuf });
  if (raw.kind !== undefined && raw.kind !== 'Binding') throw badRequest(`the object provided is unrecognized (must be of type Binding): kind "${String(raw.kind)}"`);
  if (raw.apiVersion !== undefined && raw.apiVersion !== 'v1') throw badRequest(`the API version in the data (${String(raw.apiVersion)}) does not match the expected API version (v1)`);
  const meta = (raw.metadata ?? {}) as { name?: string; namespace?: string; annotations?: Record<string, string> };
  if (meta.name !== undefined && meta.name !== req.name) throw badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${req.name})`);
  if (meta.namespace !== undefined && meta.namespace !== req.namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  return bindPod(ctx, req.namespace!, req.name!, raw as unknown as KubeObject);
}

/**
 * Binds a pod to a node, as the scheduler does: spec.nodeName and the PodScheduled condition in one write.
 * A pod already bound or being deleted is a conflict. Answers a Success Status (201).
 */
async function bindPod(ctx: ServerContext, namespace: string, name: string, binding: KubeObject): Promise<ApiResult> {
  const target = (binding.target ?? {}) as { kind?: unknown; name?: unknown };
  const errs: FieldError[] = [];
  if (!name) errs.push({ type: 'FieldValueRequired', field: 'metadata.name' });
  if (typeof target.name !== 'string' || target.name === '') errs.push({ type: 'FieldValueRequired', field: 'target.name' });
  if (target.kind !== undefined && target.kind !== '' && target.kind !== 'Node') errs.push(invalidValue('target.kind', target.kind, 'must be empty or Node'));
  if (errs.length) throw invalid('Binding', '', name, errs);
  const nodeName = target.name as string;
  const key = `/registry/pods/${namespace}/${name}`;
  await ctx.store.guaranteedUpdate(key, (cur) => {
    if (!cur) throw notFound(PODS, name);
    const pod = cur.value;
    const spec = (pod.spec ?? {}) as { nodeName?: string };
    if (pod.metadata.deletionTimestamp) throw conflict(PODS, name, `pod ${name} is being deleted, cannot be assigned to a host`);
    if (spec.nodeName) throw conflict(PODS, name, `pod ${name} is already assigned to node "${spec.nodeName}"`);
    const next = structuredClone(pod) as KubeObject;
    (next.spec as { nodeName?: string }).nodeName = nodeName;
    const annotations = (binding.metadata?.annotations ?? {}) as Record<string, string>;
    if (Object.keys(annotations).length) next.metadata.annotations = { ...(next.metadata.annotations ?? {}), ...annotations };
    const status = (next.status ??= {}) as { conditions?: Array<Record<string, unknown>> };
    const conditions = (status.conditions ?? []).filter((c) => c.type !== 'PodScheduled');
    conditions.push({ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: nowTimestamp(ctx) });
    status.conditions = conditions;
    next.metadata.resourceVersion = '0';
    return next;
  });
  return { code: 201, object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 } };
}

/**
 * POST .../deployments/<name>/rollback (extensions/v1beta1, 1.9 RollbackREST): a DeploymentRollback body asks
 * the Deployment controller to go back to a revision (0 = the previous one). Like the real registry this writes
 * storage directly (no update strategy, so no generation bump): updatedAnnotations are merged into the
 * Deployment's annotations and spec.rollbackTo is set, which apps/v1 storage keeps in the annotation
 * DEPLOYMENT_ROLLBACK_TO (simulator/api/conversion.ts). Answers a Success Status, 200.
 */
export async function rollbackDeployment(ctx: ServerContext, req: ResourceRequest): Promise<ApiResult> {
  const def = req.def;
  const raw = decodeBody(req.body, header(req, 'content-type'), { protobuf: ctx.protobuf }) as Record<string, unknown>;
  const apiVersion = apiVersionOf(def);
  if (raw.kind !== undefined && raw.kind !== 'DeploymentRollback') throw badRequest(`the object provided is unrecognized (must be of type DeploymentRollback): kind "${String(raw.kind)}"`);
  if (raw.apiVersion !== undefined && raw.apiVersion !== apiVersion) throw badRequest(`the API version in the data (${String(raw.apiVersion)}) does not match the expected API version (${apiVersion})`);
  const name = typeof raw.name === 'string' ? raw.name : '';
  const rollbackTo = (raw.rollbackTo ?? {}) as { revision?: unknown };
  const revision = rollbackTo.revision ?? 0;
  const errs: FieldError[] = [...validateAnnotations(raw.updatedAnnotations, 'updatedAnnotations')];
  if (!name) errs.push({ type: 'FieldValueRequired', field: 'name', detail: 'name is required' });
  if (typeof revision !== 'number' || !Number.isInteger(revision)) errs.push(invalidValue('rollback.revision', revision, 'must be an integer'));
  else if (revision < 0) errs.push(invalidValue('rollback.revision', revision, 'must be non-negative'));
  if (errs.length) throw invalid('DeploymentRollback', def.group, name, errs);
  if (name !== req.name) throw badRequest(`the name of the object (${name}) does not match the name on the URL (${req.name})`);
  const updatedAnnotations = (raw.updatedAnnotations ?? {}) as Record<string, string>;
  await ctx.store.guaranteedUpdate(objectKey(def, req.namespace, name), (cur) => {
    if (!cur) throw notFound(groupResource(def), name);
    const next = structuredClone(cur.value) as KubeObject;
    next.metadata.annotations = { ...(next.metadata.annotations ?? {}), ...updatedAnnotations, [DEPLOYMENT_ROLLBACK_TO]: String(revision) };
    next.metadata.resourceVersion = '0';
    return next;
  });
  return { code: 200, object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', message: `rollback request for deployment "${name}" succeeded`, code: 200 } };
}

function checkPrecondition(def: ResourceDef, name: string, given: string | undefined, current: StoredObject): void {
  if (given !== undefined && given !== '' && given !== current.value.metadata.resourceVersion) throw conflict(groupResource(def), name);
}

export function checkNameMatches(req: ResourceRequest, obj: KubeObject): string {
  const name = req.name!;
  if (obj.metadata.name !== name) throw badRequest(`the name of the object (${obj.metadata.name ?? ''}) does not match the name on the URL (${name})`);
  return name;
}

/** Keeps system metadata from the stored object and bumps generation on spec changes. */
function carrySystemMeta(def: ResourceDef, next: KubeObject, old: KubeObject): void {
  const m = next.metadata;
  const o = old.metadata;
  m.uid = o.uid;
  m.creationTimestamp = o.creationTimestamp;
  m.selfLink = o.selfLink;
  if (o.deletionTimestamp) m.deletionTimestamp = o.deletionTimestamp;
  else delete m.deletionTimestamp;
  if (o.deletionGracePeriodSeconds !== undefined) m.deletionGracePeriodSeconds = o.deletionGracePeriodSeconds;
  else delete m.deletionGracePeriodSeconds;
  delete m.resourceVersion;
  if (def.tracksGeneration) {
    const changed = !isDeepStrictEqual(next.spec, old.spec);
    m.generation = (o.generation ?? 1) + (changed ? 1 : 0);
  } else if (o.generation !== undefined) m.generation = o.generation;
  else delete m.generation;
}

/** No finalizer keeps the object: metadata.finalizers, and for a namespace spec.finalizers, are empty. */
export function nothingHolds(obj: KubeObject): boolean {
  if ((obj.metadata.finalizers ?? []).length > 0) return false;
  if (obj.kind === 'Namespace') return ((obj.spec as { finalizers?: string[] } | undefined)?.finalizers ?? []).length === 0;
  return true;
}

/** Decides what an update writes: the new object, null (finalizers emptied on a deleting object) or no change. */
function settle(next: KubeObject, old: KubeObject, mayRemove = true): KubeObject | null | undefined {
  if (mayRemove && old.metadata.deletionTimestamp && !old.metadata.deletionGracePeriodSeconds && nothingHolds(next)) return null;
  const withoutRv = (o: KubeObject) => canonicalObject({ ...o, metadata: { ...o.metadata, resourceVersion: undefined } });
  if (isDeepStrictEqual(withoutRv(next), withoutRv(old))) return undefined;
  return canonicalObject({ ...next, metadata: { ...next.metadata, resourceVersion: '0' } });
}

/** The object an update of the main resource writes, from the request's body and the stored object. */
export function nextForUpdate(def: ResourceDef, body: KubeObject, cur: StoredObject): KubeObject | null | undefined {
  const name = body.metadata.name ?? '';
  checkPrecondition(def, name, body.metadata.resourceVersion, cur);
  const old = cur.value;
  const inRequestVersion = structuredClone(body);
  applyDefaults(inRequestVersion, def);
  const next = toStored(def, inRequestVersion);
  const metaErrs = validateObjectMetaUpdate(body.metadata, old.metadata);
  prepareForUpdate(next, old, def);
  carrySystemMeta(def, next, old);
  throwIfInvalid(def, name, [...metaErrs, ...validateNew(def, next), ...validateKindUpdate(next, old, def)]);
  return settle(next, old);
}

/** The object an update through /status writes. */
export function nextForStatus(def: ResourceDef, body: KubeObject, cur: StoredObject): KubeObject {
  const name = body.metadata.name ?? '';
  checkPrecondition(def, name, body.metadata.resourceVersion, cur);
  const next = prepareForStatusUpdate(toStored(def, structuredClone(body)), cur.value);
  next.metadata.resourceVersion = '0';
  throwIfInvalid(def, name, validateNew(def, next));
  return next;
}

export async function update(ctx: ServerContext, req: ResourceRequest): Promise<ApiResult> {
  const def = req.def;
  const body = readObjectBody(ctx, req);
  checkNamespaceMatches(req, body);
  const name = checkNameMatches(req, body);
  const key = keyOf(req, name);
  let created = false;
  try {
    const out = await ctx.store.guaranteedUpdate(key, async (cur) => {
      if (!cur) {
        if (!def.allowCreateOnUpdate) throw notFound(groupResource(def), name);
        if (def.namespaced && req.namespace) await checkNamespaceWritable(ctx, def, req.namespace, name);
        const obj = structuredClone(body);
        initSystemMeta(ctx, def, obj);
        applyDefaults(obj, def);
        prepareForCreate(obj, def);
        throwIfInvalid(def, name, validateNew(def, obj));
        if (def.kind === 'Service') await ctx.serviceAddresses.allocate(obj);
        created = true;
        return toStored(def, obj);
      }
      created = false;
      return nextForUpdate(def, body, cur);
    });
    if (out.deleted) return { code: 200, object: present(def, out.deleted.value) };
    const result = out.result ?? (await ctx.store.get(key));
    if (!result) throw notFound(groupResource(def), name);
    return { code: created ? 201 : 200, object: present(def, result.value) };
  } catch (e) {
    storeErrorToApi(e, def, name);
  }
}

/** PUT .../status: only status changes (spec 4.8, 4.10). */
export async function updateStatus(ctx: ServerContext, req: ResourceRequest): Promise<ApiResult> {
  const def = req.def;
  const body = readObjectBody(ctx, req);
  checkNamespaceMatches(req, body);
  const name = checkNameMatches(req, body);
  return writeThroughParent(ctx, req, name, (cur) => nextForStatus(def, body, cur));
}

/** PUT namespaces/<name>/finalize: only spec.finalizers changes. */
export async function finalizeNamespace(ctx: ServerContext, req: ResourceRequest): Promise<ApiResult> {
  const def = req.def;
  const body = readObjectBody(ctx, req);
  checkNamespaceMatches(req, body);
  const name = checkNameMatches(req, body);
  const result = await writeThroughParent(ctx, req, name, (cur) => {
    checkPrecondition(def, name, body.metadata.resourceVersion, cur);
    const next = prepareForFinalize(body, cur.value);
    delete next.metadata.resourceVersion;
    const fins = (next.spec as { finalizers?: unknown }).finalizers;
    const errs: FieldError[] = [];
    if (!Array.isArray(fins)) errs.push(invalidValue('spec.finalizers', fins, 'must be a list of strings'));
    else fins.forEach((f, i) => {
      if (typeof f !== 'string' || !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?(\/[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/.test(f)) errs.push(invalidValue(`spec.finalizers[${i}]`, f, 'a qualified name must be a valid finalizer name'));
    });
    throwIfInvalid(def, name, errs);
    return next;
  }, false);
  // A terminating namespace that nothing holds any more goes, as the namespace controller's final delete
  // would make it: watchers see the finalize (MODIFIED), then DELETED.
  const ns = result.object as KubeObject;
  if (ns.metadata.deletionTimestamp && nothingHolds(ns)) {
    await ctx.store.delete(keyOf(req, name), { expectedRevision: Number(ns.metadata.resourceVersion) }).catch(() => undefined);
  }
  return result;
}

/** Read-modify-write of the parent object through a subresource; answers the parent in the request's version. */
export async function writeThroughParent(ctx: ServerContext, req: ResourceRequest, name: string, fn: (cur: StoredObject) => KubeObject | null | undefined, mayRemove = true): Promise<ApiResult> {
  const def = req.def;
  const key = keyOf(req, name);
  try {
    const out = await ctx.store.guaranteedUpdate(key, (cur) => {
      if (!cur) throw notFound(groupResource(def), name);
      const next = fn(cur);
      if (next === null || next === undefined) return next;
      return settle(canonicalObject(next), cur.value, mayRemove);
    });
    if (out.deleted) return { code: 200, object: present(def, out.deleted.value) };
    const result = out.result ?? (await ctx.store.get(key));
    if (!result) throw notFound(groupResource(def), name);
    return { code: 200, object: present(def, result.value) };
  } catch (e) {
    storeErrorToApi(e, def, name);
  }
}

// ---- scale ----

export function scaleDefOf(def: ResourceDef): ScaleDef {
  const s = def.subresources.scale;
  if (!s || s === true) throw new ApiError(500, 'InternalError', 'scale subresource without a Scale type');
  return s;
}

/** The Scale view of a workload (autoscaling/v1 or extensions/v1beta1). */
export function scaleOf(def: ResourceDef, stored: KubeObject): KubeObject {
  const scale = scaleDefOf(def);
  const spec = (stored.spec ?? {}) as { replicas?: number; selector?: { matchLabels?: Record<string, string>; matchExpressions?: unknown[] } | Record<string, string> };
  const status = (stored.status ?? {}) as { replicas?: number };
  const m = stored.metadata;
  const selectorObj = (def.kind === 'ReplicationController' ? { matchLabels: spec.selector as Record<string, string> } : spec.selector) as { matchLabels?: Record<string, string> } | undefined;
  const selectorString = Object.entries(selectorObj?.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`).join(',');
  const statusOut: Record<string, unknown> = { replicas: status.replicas ?? 0 };
  if (scale.apiVersion === 'autoscaling/v1') {
    if (selectorString) statusOut.selector = selectorString;
  } else {
    if (selectorObj?.matchLabels) statusOut.selector = selectorObj.matchLabels;
    if (selectorString) statusOut.targetSelector = selectorString;
  }
  return {
    kind: 'Scale',
    apiVersion: scale.apiVersion,
    metadata: {
      name: m.name,
      namespace: m.namespace,
      selfLink: `${selfLinkOf(def, m.namespace, m.name!)}/scale`,
      uid: m.uid,
      resourceVersion: m.resourceVersion,
      creationTimestamp: m.creationTimestamp,
    },
    spec: { replicas: spec.replicas ?? 0 },
    status: statusOut,
  };
}

export async function getScale(ctx: ServerContext, req: ResourceRequest): Promise<ApiResult> {
  const cur = await ctx.store.get(keyOf(req, req.name!));
  if (!cur) throw notFound(groupResource(req.def), req.name!);
  return { code: 200, object: scaleOf(req.def, cur.value) };
}

export async function updateScale(ctx: ServerContext, req: ResourceRequest): Promise<ApiResult> {
  const def = req.def;
  const scaleDef = scaleDefOf(def);
  const raw = decodeBody(req.body, header(req, 'content-type'), { protobuf: ctx.protobuf });
  return writeScale(ctx, req, raw, scaleDef);
}

/** Applies a Scale body (already decoded) to the parent: only spec.replicas changes. */
export async function writeScale(ctx: ServerContext, req: ResourceRequest, raw: Record<string, unknown>, scaleDef = scaleDefOf(req.def)): Promise<ApiResult> {
  const def = req.def;
  const name = req.name!;
  if (raw.apiVersion !== undefined && raw.apiVersion !== scaleDef.apiVersion) {
    const gv = typeof raw.apiVersion === 'string' ? parseApiVersion(raw.apiVersion) : undefined;
    if (!gv) throw badRequest('the object provided is unrecognized: apiVersion must be a string');
    throw badRequest(`the API version in the data (${raw.apiVersion}) does not match the expected API version (${scaleDef.apiVersion})`);
  }
  if (raw.kind !== undefined && raw.kind !== 'Scale') throw badRequest(`the object provided is unrecognized (must be of type Scale): kind "${String(raw.kind)}" in the data does not match the path`);
  const meta = (raw.metadata ?? {}) as Record<string, unknown>;
  if (meta.name !== undefined && meta.name !== name) throw badRequest(`the name of the object (${String(meta.name)}) does not match the name on the URL (${name})`);
  const spec = (raw.spec ?? {}) as Record<string, unknown>;
  const replicas = spec.replicas ?? 0;
  const errs: FieldError[] = [];
  if (typeof replicas !== 'number' || !Number.isInteger(replicas)) errs.push(invalidValue('spec.replicas', replicas, 'must be an integer'));
  else if (replicas < 0) errs.push(invalidValue('spec.replicas', replicas, 'must be greater than or equal to 0'));
  if (errs.length) throw invalid('Scale', scaleDef.apiVersion === 'autoscaling/v1' ? 'autoscaling' : 'extensions', name, errs);
  const key = keyOf(req, name);
  try {
    const out = await ctx.store.guaranteedUpdate(key, (cur) => {
      if (!cur) throw notFound(groupResource(def), name);
      const rv = meta.resourceVersion;
      if (typeof rv === 'string' && rv !== '' && rv !== cur.value.metadata.resourceVersion) throw conflict(groupResource(def), name);
      const old = cur.value;
      const next = structuredClone(old) as KubeObject;
      // A stored spec that is not an object (nothing validated it yet) must not turn a scale write into a 500.
      const spec = next.spec !== null && typeof next.spec === 'object' && !Array.isArray(next.spec) ? (next.spec as Record<string, unknown>) : {};
      spec.replicas = replicas;
      next.spec = spec;
      carrySystemMeta(def, next, old);
      return settle(next, old);
    });
    const result = out.result ?? (await ctx.store.get(key));
    if (!result) throw notFound(groupResource(def), name);
    return { code: 200, object: scaleOf(def, result.value) };
  } catch (e) {
    storeErrorToApi(e, def, name);
  }
}

export { apiVersionOf };
