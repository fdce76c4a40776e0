// The HTTP side of writes: create (POST), update (PUT), /status, /approval, /scale and /finalize. Each handler decodes
// and checks its body, then calls the one create or update path of the generic store (../registry/store.ts),
// which runs the kind's strategy; no handler knows about a particular kind.

import type { KubeObject } from '../../api/meta.ts';
import { createResource, updateResource } from '../registry/store.ts';
import type { UpdateTarget } from '../admission/attributes.ts';
import { badRequest, notFound } from '../errors.ts';
import { decodeBody } from '../serializers.ts';
import { header, type ApiResult, type ResourceRequest, type ServerContext } from '../context.ts';
import { present, readObjectBody } from './common.ts';
import { groupResource } from '../registry/system-meta.ts';
import { checkScaleBody, scaleOf } from './scale.ts';
import { writeOptions } from './write-options.ts';
import { VIRTUAL_CREATES } from './virtual.ts';
import { getStored } from '../registry/storage.ts';

export { bindPodSubresource } from './virtual.ts';

export { writeOptions } from './write-options.ts';

export function checkNamespaceMatches(req: ResourceRequest, obj: KubeObject): void {
  if (!req.def.namespaced) {
    delete obj.metadata.namespace;
    return;
  }
  const ns = obj.metadata.namespace;
  if (ns && ns !== req.namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  obj.metadata.namespace = req.namespace;
}

export function checkNameMatches(req: ResourceRequest, obj: KubeObject): string {
  const name = req.name!;
  if (obj.metadata.name !== name) throw badRequest(`the name of the object (${obj.metadata.name ?? ''}) does not match the name on the URL (${name})`);
  return name;
}

export async function create(ctx: ServerContext, req: ResourceRequest): Promise<ApiResult> {
  const def = req.def;
  const obj = readObjectBody(ctx, req);
  checkNamespaceMatches(req, obj);
  if (def.virtual) {
    const virtualCreate = VIRTUAL_CREATES[def.kind];
    if (!virtualCreate) throw badRequest(`${def.resource} cannot be created here`);
    return virtualCreate(ctx, req, obj);
  }
  const stored = await createResource(ctx, def, req.namespace, obj, writeOptions(req));
  const object = present(def, stored.value);
  return { code: 201, object, json: object === stored.value ? stored.json : undefined };
}

/** PUT of the main resource, /status or /finalize: the body replaces what the target owns. */
async function put(ctx: ServerContext, req: ResourceRequest, target: UpdateTarget): Promise<ApiResult> {
  const def = req.def;
  const body = readObjectBody(ctx, req);
  checkNamespaceMatches(req, body);
  const name = checkNameMatches(req, body);
  const out = await updateResource(ctx, {
    def, namespace: req.namespace, name, target,
    objInfo: () => body,
    createIfMissing: target === 'main' && def.allowCreateOnUpdate ? body : undefined,
    opts: writeOptions(req),
  });
  return { code: out.created ? 201 : 200, object: present(def, out.object) };
}

export const update = (ctx: ServerContext, req: ResourceRequest) => put(ctx, req, 'main');

/** PUT .../status: only status changes (spec 4.10.1). */
export const updateStatus = (ctx: ServerContext, req: ResourceRequest) => put(ctx, req, 'status');

/** PUT certificatesigningrequests/<name>/approval: only status.conditions changes. */
export const updateApproval = (ctx: ServerContext, req: ResourceRequest) => put(ctx, req, 'approval');

/** PUT namespaces/<name>/finalize: only spec.finalizers changes. */
export const finalizeNamespace = (ctx: ServerContext, req: ResourceRequest) => put(ctx, req, 'finalize');

// ---- scale ----

export async function getScale(ctx: ServerContext, req: ResourceRequest): Promise<ApiResult> {
  const cur = await getStored(ctx, req.def, req.namespace, req.name!);
  if (!cur) throw notFound(groupResource(req.def), req.name!);
  return { code: 200, object: scaleOf(req.def, cur.value) };
}

/** Writes a Scale onto the parent through the update path: only spec.replicas changes. Answers the new Scale. */
export async function writeScale(ctx: ServerContext, req: ResourceRequest, objInfo: (current: KubeObject) => KubeObject): Promise<ApiResult> {
  const def = req.def;
  const name = req.name!;
  const out = await updateResource(ctx, { def, namespace: req.namespace, name, target: 'scale', objInfo: (cur) => objInfo(cur.value), opts: writeOptions(req) });
  if (out.deleted) throw notFound(groupResource(def), name);
  return { code: 200, object: scaleOf(def, out.object) };
}

/** PUT .../scale. The body is checked before the parent is read (a bad Scale is 400/422 even for a missing parent). */
export async function updateScale(ctx: ServerContext, req: ResourceRequest): Promise<ApiResult> {
  const raw = decodeBody(req.body, header(req, 'content-type'), { protobuf: ctx.protobuf });
  const scale = checkScaleBody(req.def, req.name!, raw);
  return writeScale(ctx, req, () => scale);
}
