// Kinds that are POSTed but never stored (ResourceDef.virtual): a Binding binds a pod to a node (also as
// pods/<name>/binding), the access reviews answer a permission question (../access-review.ts). Each has its create here, keyed by
// kind in VIRTUAL_CREATES; the create handler looks it up instead of branching on kinds.

import type { KubeObject } from '../../api/meta.ts';
import { badRequest, conflict, invalid, invalidValue, notFound, type FieldError } from '../errors.ts';
import { decodeBody } from '../serializers.ts';
import { header, type ApiResult, type ResourceRequest, type ServerContext } from '../context.ts';
import { nowTimestamp } from '../registry/system-meta.ts';
import { createAccessReview, createRulesReview } from '../access-review.ts';
import { createTokenReview } from '../token-review.ts';
import { writeOptions } from './write-options.ts';
import { getStored, STORAGE_REFS, updateStored } from '../registry/storage.ts';
import { checkBodyType } from './common.ts';

export type VirtualCreate = (ctx: ServerContext, req: ResourceRequest, obj: KubeObject) => Promise<ApiResult> | ApiResult;

const PODS = { group: '', resource: 'pods' };

/** POST .../pods/<name>/binding: reads a Binding body for the subresource path. */
export async function bindPodSubresource(ctx: ServerContext, req: ResourceRequest): Promise<ApiResult> {
  const raw = decodeBody(req.body, header(req, 'content-type'), { protobuf: ctx.protobuf });
  checkBodyType(raw, 'Binding');
  if (raw.apiVersion !== undefined && raw.apiVersion !== 'v1') throw badRequest(`the API version in the data (${String(raw.apiVersion)}) does not match the expected API version (v1)`);
  const meta = (raw.metadata ?? {}) as { name?: string; namespace?: string; annotations?: Record<string, string> };
  if (meta.name !== undefined && meta.name !== req.name) throw badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${req.name})`);
  if (meta.namespace !== undefined && meta.namespace !== req.namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  return bindPod(ctx, req.namespace!, req.name!, raw as unknown as KubeObject, writeOptions(req).dryRun);
}

/**
 * Binds a pod to a node, as the scheduler does: spec.nodeName and the PodScheduled condition in one write.
 * A pod already bound or being deleted is a conflict. Answers a Success Status (201).
 */
async function bindPod(ctx: ServerContext, namespace: string, name: string, binding: KubeObject, dryRun = false): Promise<ApiResult> {
  const target = (binding.target ?? {}) as { kind?: unknown; name?: unknown };
  const errs: FieldError[] = [];
  if (!name) errs.push({ type: 'FieldValueRequired', field: 'metadata.name' });
  if (typeof target.name !== 'string' || target.name === '') errs.push({ type: 'FieldValueRequired', field: 'target.name' });
  if (target.kind !== undefined && !BINDING_TARGET_KINDS.includes(target.kind)) errs.push(invalidValue('target.kind', target.kind, 'must be empty or Node'));
  if (errs.length) throw invalid('Binding', '', name, errs);
  const nodeName = target.name as string;
  const bind = (cur: { value: KubeObject } | undefined): KubeObject => {
    if (!cur) throw notFound(PODS, name);
    const pod = cur.value;
    const spec = (pod.spec ?? {}) as { nodeName?: string };
    if (pod.metadata.deletionTimestamp) throw conflict(PODS, name, `pod ${name} is being deleted, cannot be assigned to a host`);
    if (spec.nodeName) throw conflict(PODS, name, `pod ${name} is already assigned to node "${spec.nodeName}"`);
    // Copies of the parts that change only: the store copies what it keeps (sharing the unchanged parts with the
    // stored pod), so a deep copy here was a second one (a tenth of the API server's CPU in the scale bench).
    const annotations = (binding.metadata?.annotations ?? {}) as Record<string, string>;
    const metadata = { ...pod.metadata, resourceVersion: '0' };
    if (Object.keys(annotations).length) metadata.annotations = { ...(metadata.annotations ?? {}), ...annotations };
    const status = { ...((pod.status ?? {}) as { conditions?: Array<Record<string, unknown>> }) };
    const conditions = (status.conditions ?? []).filter((c) => c.type !== 'PodScheduled');
    conditions.push({ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: nowTimestamp(ctx) });
    status.conditions = conditions;
    return { ...pod, metadata, spec: { ...spec, nodeName }, status } as KubeObject;
  };
  // dryRun=All: the binding is checked against the pod as it is, and nothing is written.
  if (dryRun) bind(await getStored(ctx, STORAGE_REFS.pods, namespace, name));
  else await updateStored(ctx, STORAGE_REFS.pods, namespace, name, bind);
  return { code: 201, object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 } };
}

/** What a Binding may bind to: a Node (an empty kind means one). */
const BINDING_TARGET_KINDS: unknown[] = ['', 'Node'];

/** The create of each virtual kind. A new virtual kind: its ResourceDef (virtual: true) and its line here. */
export const VIRTUAL_CREATES: Record<string, VirtualCreate> = {
  Binding: (ctx, req, obj) => bindPod(ctx, req.namespace!, obj.metadata.name ?? '', obj, writeOptions(req).dryRun),
  // Access reviews store nothing: a dry run is the same question (its value is still checked).
  SubjectAccessReview: (ctx, req, obj) => (writeOptions(req), createAccessReview(ctx, req, obj)),
  LocalSubjectAccessReview: (ctx, req, obj) => (writeOptions(req), createAccessReview(ctx, req, obj)),
  SelfSubjectAccessReview: (ctx, req, obj) => (writeOptions(req), createAccessReview(ctx, req, obj)),
  SelfSubjectRulesReview: (ctx, req, obj) => (writeOptions(req), createRulesReview(ctx, req, obj)),
  TokenReview: (ctx, req, obj) => (writeOptions(req), createTokenReview(ctx, obj)),
};
