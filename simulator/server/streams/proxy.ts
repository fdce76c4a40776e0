// pods/proxy, services/proxy and nodes/proxy: the API server as an HTTP proxy to what runs in the cluster.
// The name part is `[scheme:]name[:port]` (the port a number or, for pods and services, a port's name); the
// rest of the path after `/proxy` and the query go to the target. A pod is reached on its containerPort through
// the container runtime (the responder, or the configured address); a service through its Endpoints: the
// subset port matching the service port, and the first ready address's pod; a simulated node answers as a
// kubelet would on its read-only paths (/healthz, /pods).

import http from 'node:http';
import type { FastifyReply } from 'fastify';
import type { KubeObject } from '../../api/meta.ts';
import { ApiError, badRequest, notFound } from '../errors.ts';
import type { ResourceRequest, ServerContext } from '../context.ts';
import { getStored, listStored, STORAGE_REFS } from '../registry/storage.ts';

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'authorization']);

/** Splits `[scheme:]name[:port]`. */
export function splitProxyName(id: string): { scheme?: string; name: string; port?: string } {
  const parts = id.split(':');
  if (parts.length === 3) return { scheme: parts[0], name: parts[1], port: parts[2] || undefined };
  if (parts.length === 2) return parts[0] === 'http' || parts[0] === 'https' ? { scheme: parts[0], name: parts[1] } : { name: parts[0], port: parts[1] || undefined };
  return { name: id };
}

/** The path after `/proxy` (at least `/`) with the request's query. */
function forwardedPath(raw: http.IncomingMessage): string {
  const url = raw.url ?? '/';
  const q = url.indexOf('?');
  const path = q >= 0 ? url.slice(0, q) : url;
  const i = path.indexOf('/proxy');
  const rest = i >= 0 ? path.slice(i + '/proxy'.length) : '';
  return `${rest.startsWith('/') ? rest : `/${rest}`}${q >= 0 ? url.slice(q) : ''}`;
}

async function getObject(ctx: ServerContext, resource: 'pods' | 'services' | 'endpoints' | 'nodes', namespace: string | undefined, name: string): Promise<KubeObject | undefined> {
  return (await getStored(ctx, STORAGE_REFS[resource], namespace, name))?.value;
}

const serviceUnavailable = (message: string) => new ApiError(503, 'ServiceUnavailable', message);

interface ContainerPort {
  containerPort: number;
  name?: string;
}

/** A pod's port by number or name (the first declared one, else 80, when none is given). */
function podPort(pod: KubeObject, port: string | undefined): number {
  const ports = (((pod.spec ?? {}) as { containers?: Array<{ ports?: ContainerPort[] }> }).containers ?? []).flatMap((c) => c.ports ?? []);
  if (port === undefined) return ports[0]?.containerPort ?? 80;
  if (/^\d+$/.test(port)) return Number(port);
  const named = ports.find((p) => p.name === port);
  if (!named) throw badRequest(`no such port: ${port}`);
  return named.containerPort;
}

/** The pod and port a service's proxy request goes to, through its Endpoints. */
async function serviceTarget(ctx: ServerContext, namespace: string, name: string, port: string | undefined): Promise<{ pod: KubeObject; port: number }> {
  const svc = await getObject(ctx, 'services', namespace, name);
  if (!svc) throw notFound({ group: '', resource: 'services' }, name);
  const svcPorts = ((svc.spec ?? {}) as { ports?: Array<{ name?: string; port: number }> }).ports ?? [];
  const sp = port === undefined ? svcPorts[0] : svcPorts.find((p) => p.name === port || String(p.port) === port);
  if (!sp) throw serviceUnavailable(`no endpoints available for service "${name}"`);
  const ep = await getObject(ctx, 'endpoints', namespace, name);
  type Address = { ip: string; targetRef?: { kind?: string; name?: string; namespace?: string } };
  type Subset = { addresses?: Address[]; ports?: Array<{ name?: string; port: number }> };
  for (const subset of ((ep ?? {}) as { subsets?: Subset[] }).subsets ?? []) {
    const p = (subset.ports ?? []).find((x) => (x.name ?? '') === (sp.name ?? '')) ?? (svcPorts.length === 1 ? subset.ports?.[0] : undefined);
    if (!p) continue;
    for (const a of subset.addresses ?? []) {
      // The endpoints controller points every address at its pod.
      if (!a.targetRef?.name) continue;
      const pod = await getObject(ctx, 'pods', a.targetRef.namespace ?? namespace, a.targetRef.name);
      if (pod) return { pod, port: p.port };
    }
  }
  throw serviceUnavailable(`no endpoints available for service "${name}"`);
}

export async function serveProxy(ctx: ServerContext, req: ResourceRequest, reply: FastifyReply): Promise<undefined> {
  const raw = reply.request.raw;
  const { name, port } = splitProxyName(req.name!);
  const path = forwardedPath(raw);
  if (req.def.resource === 'nodes') {
    const node = await getObject(ctx, 'nodes', undefined, name);
    if (!node) throw notFound({ group: '', resource: 'nodes' }, name);
    return answerAsKubelet(ctx, name, path, reply);
  }
  const ns = req.namespace ?? 'default';
  let target: { pod: KubeObject; port: number };
  if (req.def.resource === 'services') target = await serviceTarget(ctx, ns, name, port);
  else {
    const pod = await getObject(ctx, 'pods', ns, name);
    if (!pod) throw notFound({ group: '', resource: 'pods' }, name);
    target = { pod, port: podPort(pod, port) };
  }
  const runtime = ctx.containers;
  if (!runtime) throw serviceUnavailable(`proxy is not available: the nodes are simulated and run no containers`);
  const connection = await runtime.connect(target.pod, target.port).catch((e: Error) => {
    throw serviceUnavailable(`error trying to reach service: ${e.message}`);
  });
  const headers: http.OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(raw.headers)) if (!HOP_BY_HOP.has(k) && v !== undefined) headers[k] = v;
  if (req.body) headers['content-length'] = String(req.body.length);
  await new Promise<void>((resolve) => {
    const out = http.request({ method: req.method, path, headers, createConnection: () => connection as never }, (res) => {
      reply.hijack();
      const resHeaders: http.OutgoingHttpHeaders = {};
      for (const [k, v] of Object.entries(res.headers)) if (!HOP_BY_HOP.has(k) && v !== undefined) resHeaders[k] = v;
      reply.raw.writeHead(res.statusCode ?? 502, resHeaders);
      res.pipe(reply.raw);
      res.on('end', () => connection.destroy());
      resolve();
    });
    out.on('error', (e) => {
      connection.destroy();
      if (!reply.sent) void reply.code(503).send(serviceUnavailable(`error trying to reach service: ${e.message}`).status);
      resolve();
    });
    reply.raw.on('close', () => connection.destroy());
    out.end(req.body);
  });
  return undefined;
}

/** A simulated node's kubelet, for the read-only paths clients ask of nodes/proxy. */
async function answerAsKubelet(ctx: ServerContext, node: string, path: string, reply: FastifyReply): Promise<undefined> {
  const p = path.split('?')[0];
  if (p === '/healthz') {
    reply.code(200).header('Content-Type', 'text/plain; charset=utf-8').send('ok');
    return undefined;
  }
  if (p === '/pods' || p === '/pods/') {
    const all = await listStored(ctx, STORAGE_REFS.pods, undefined);
    const items = all.items.map((i) => i.value).filter((pod) => ((pod.spec ?? {}) as { nodeName?: string }).nodeName === node);
    reply.code(200).header('Content-Type', 'application/json').send(JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: {}, items }));
    return undefined;
  }
  reply.code(404).header('Content-Type', 'text/plain; charset=utf-8').send('404 page not found\n');
  return undefined;
}
