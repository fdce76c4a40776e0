// Subresources as a table, the way the real registry gives each kind one REST storage per subresource
// (PodStorage{Binding, Eviction, Status, Log, Exec, ...}). A kind declares which subresources it has, with the
// Scale type each version serves, in its ResourceDef (`subresources` in simulator/api/registry.ts, custom
// resources from their CRD); this table says what each subresource's storage does for each method. The
// dispatcher (../http/dispatch.ts) routes `<resource>/<name>/<subresource>` through it: a subresource the kind
// does not declare is 404, a method its storage lacks is 405.
//
// A NEW subresource is one line here (its name in `SubresourceName` in simulator/api/registry.ts, and in the
// `subresources` of the kinds that have it): `name: { METHOD: handler }`, the handler in a file of its own in
// this folder. The streaming ones (exec, attach, portforward) and proxy plug in here the same way.

import type { FastifyReply } from 'fastify';
import type { SubresourceName } from '../../api/registry.ts';
import type { ApiResult, ResourceRequest, ServerContext } from '../context.ts';
import { get } from '../handlers/read.ts';
import { finalizeNamespace, getScale, updateApproval, updateScale, updateStatus } from '../handlers/write.ts';
import { bindPodSubresource } from '../handlers/virtual.ts';
import { patch } from '../handlers/patch.ts';
import { evictPod } from './eviction.ts';
import { servePodLog } from './pod-log.ts';
import { serveStreaming } from '../streams/serve.ts';
import { serveProxy } from '../streams/proxy.ts';
import { rollbackDeployment } from './deployment-rollback.ts';

/** Answers a subresource request: the result to send, or undefined when the handler answered itself (a stream). */
export type SubresourceHandler = (ctx: ServerContext, req: ResourceRequest, reply: FastifyReply) => Promise<ApiResult | undefined>;

/** What a subresource's storage does per method; `any` answers every method (a refusal that does not depend on it). */
export type SubresourceStorage = Partial<Record<'GET' | 'PUT' | 'PATCH' | 'POST' | 'any', SubresourceHandler>>;

/** GET of a subresource that shows its parent (status, approval): the object itself, without the read's options. */
const getParent: SubresourceHandler = (ctx, req) => get(ctx, { ...req, query: {} });

export const SUBRESOURCES: Record<SubresourceName, SubresourceStorage> = {
  // Only status changes (spec 4.10.1).
  status: { GET: getParent, PUT: updateStatus, PATCH: patch },
  // certificatesigningrequests: only status.conditions changes.
  approval: { GET: getParent, PUT: updateApproval, PATCH: patch },
  // The Scale type of the def's version (ScaleDef); only spec.replicas changes.
  scale: { GET: getScale, PUT: updateScale, PATCH: patch },
  binding: { POST: bindPodSubresource },
  eviction: { POST: evictPod },
  rollback: { POST: rollbackDeployment },
  // namespaces: only spec.finalizers changes.
  finalize: { PUT: finalizeNamespace },
  log: { GET: async (ctx, req, reply) => void (await servePodLog(ctx, req, reply)) },
  // Upgraded connections (SPDY/3.1 or WebSocket) to the simulated containers (../streams/).
  exec: { any: (ctx, req, reply) => serveStreaming(ctx, req, reply, 'exec') },
  attach: { any: (ctx, req, reply) => serveStreaming(ctx, req, reply, 'attach') },
  portforward: { any: (ctx, req, reply) => serveStreaming(ctx, req, reply, 'portforward') },
  // The rest of the path after /proxy goes to the pod, the service's pod or the node (../streams/proxy.ts).
  proxy: { any: serveProxy },
};

/** The storage of a kind's subresource, when the kind declares it. */
export function subresourceStorage(def: ResourceRequest['def'], name: string): SubresourceStorage | undefined {
  if (!Object.hasOwn(SUBRESOURCES, name) || !def.subresources[name as SubresourceName]) return undefined;
  return SUBRESOURCES[name as SubresourceName];
}
