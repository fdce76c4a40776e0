// Stopgap until the API server serves the pods/binding subresource itself: POST
// /api/v1/namespaces/<ns>/pods/<name>/binding with a Binding body ({target: {kind: Node, name}}) sets
// spec.nodeName and a PodScheduled=True condition in one store write, as the real BindingREST does; 409 when
// the pod is already bound or being deleted, 404 when it is missing, 201 with a Success Status otherwise.
// It sits in front of the simulator's HTTP handler (only for that path and method), so it needs nothing from
// the server's routing. Used by the tests and benchmarks of simulator/nodes and the workload controllers; when
// the server answers the path itself (discovery lists pods/binding), install() does nothing.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { KubeObject } from '../api/meta.ts';
import type { RunningSimulator } from '../server/start.ts';
import { rfc3339 } from './node-object.ts';

const BINDING_PATH = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/binding\/?$/;

function status(res: ServerResponse, code: number, reason: string, message: string): void {
  const body = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: code < 300 ? 'Success' : 'Failure', ...(code < 300 ? {} : { message, reason }), code };
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
}

async function bind(sim: RunningSimulator, ns: string, name: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  let body: { target?: { kind?: string; name?: string } };
  try {
    body = (await readJson(req)) as typeof body;
  } catch {
    return status(res, 400, 'BadRequest', 'the body is not JSON');
  }
  const node = body.target?.name;
  if (!node || (body.target?.kind && body.target.kind !== 'Node')) return status(res, 422, 'Invalid', `Binding "${name}" is invalid: target.name: Required value`);
  const key = `/registry/pods/${ns}/${name}`;
  let outcome: [number, string, string] = [201, '', ''];
  await sim.ctx.store.guaranteedUpdate(key, (cur) => {
    if (!cur) {
      outcome = [404, 'NotFound', `pods "${name}" not found`];
      return undefined;
    }
    const pod = structuredClone(cur.value) as KubeObject & { spec: { nodeName?: string }; status?: { conditions?: Array<Record<string, unknown>> } };
    if (pod.metadata.deletionTimestamp) {
      outcome = [409, 'Conflict', `Operation cannot be fulfilled on pods/binding "${name}": pod ${name} is being deleted, cannot be assigned to a host`];
      return undefined;
    }
    if (pod.spec.nodeName) {
      outcome = [409, 'Conflict', `Operation cannot be fulfilled on pods/binding "${name}": pod ${name} is already assigned to node "${pod.spec.nodeName}"`];
      return undefined;
    }
    outcome = [201, '', ''];
    pod.spec.nodeName = node;
    const st = (pod.status ??= {});
    const conditions = (st.conditions ?? []).filter((c) => c.type !== 'PodScheduled');
    st.conditions = [...conditions, { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: rfc3339() }];
    return pod;
  });
  status(res, ...outcome);
}

/** Serves pods/binding in front of the simulator when the simulator does not. Returns whether it did. */
export async function installBindingShim(sim: RunningSimulator): Promise<boolean> {
  const discovery = (await (await fetch(`${sim.url}/api/v1`)).json()) as { resources?: Array<{ name?: string }> };
  if ((discovery.resources ?? []).some((r) => r.name === 'pods/binding')) return false;
  const server = sim.app.server;
  const handlers = server.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>;
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const m = req.method === 'POST' ? BINDING_PATH.exec((req.url ?? '').split('?')[0]) : null;
    if (!m) {
      for (const h of handlers) h.call(server, req, res);
      return;
    }
    bind(sim, decodeURIComponent(m[1]), decodeURIComponent(m[2]), req, res).catch((err: unknown) => status(res, 500, 'InternalError', (err as Error).message));
  });
  return true;
}
