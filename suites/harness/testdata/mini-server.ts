// A deliberately small API server for the harness's own tests: namespaces and configmaps only, JSON, YAML
// and protobuf, Status errors, optimistic locking. Each `breaks` flag makes it break one rule so a test can
// show that the matching check fails and names the right spec row.
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import yaml from 'js-yaml';
import jsonpatch from 'fast-json-patch';
import { randomUUID } from 'node:crypto';
import { decodeProtobuf, encodeProtobuf } from '../protobuf.ts';

export interface Breaks {
  /** Answers JSON when YAML is asked for. */
  yamlAsJson?: boolean;
  /** Answers 200 JSON instead of 406 for unsupported Accept types. */
  no406?: boolean;
  /** Accepts a PUT whatever its resourceVersion. */
  ignoreStaleResourceVersion?: boolean;
  /** Answers 500 to a body that does not parse. */
  badBody500?: boolean;
  /** Correct but different: create answers 200 instead of 201. */
  create200?: boolean;
}

type Obj = { apiVersion?: string; kind?: string; metadata: Record<string, any>; [k: string]: unknown };
const PB = 'application/vnd.kubernetes.protobuf';

function status(code: number, reason: string, message: string, details?: Record<string, unknown>) {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: code < 400 ? 'Success' : 'Failure', message, reason, ...(details ? { details } : {}), code };
}

export async function startMiniServer(breaks: Breaks = {}): Promise<{ url: string; close(): Promise<void> }> {
  const app: FastifyInstance = Fastify();
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  let rv = 100;
  const namespaces = new Map<string, Obj>();
  const configmaps = new Map<string, Obj>();

  const send = (req: FastifyRequest, reply: FastifyReply, code: number, body: unknown) => {
    const accept = String(req.headers.accept ?? '').split(',').map((s) => s.split(';')[0].trim()).filter(Boolean);
    const pick = accept.length === 0 ? 'application/json' : accept.find((a) => ['application/json', 'application/yaml', PB, '*/*'].includes(a));
    if (!pick && !breaks.no406) {
      return reply.code(406).type('application/json').send(JSON.stringify(status(406, 'NotAcceptable', 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf'), null, 2));
    }
    const type = pick === 'application/yaml' && !breaks.yamlAsJson ? 'application/yaml' : pick === PB ? PB : 'application/json';
    reply.code(code).type(type);
    if (type === 'application/yaml') return reply.send(yaml.dump(body));
    if (type === PB) return reply.send(Buffer.from(encodeProtobuf(body as Obj)));
    const pretty = (req.query as Record<string, string>).pretty === 'true';
    return reply.send(pretty ? JSON.stringify(body, null, 2) : `${JSON.stringify(body)}\n`);
  };

  const decode = (req: FastifyRequest): Obj => {
    const raw = req.body as Buffer | undefined;
    const type = String(req.headers['content-type'] ?? 'application/json').split(';')[0].trim();
    if (!raw || raw.length === 0) throw new Error('empty body');
    if (type === PB) return decodeProtobuf(raw) as Obj;
    if (type === 'application/yaml') return yaml.load(raw.toString('utf8')) as Obj;
    return JSON.parse(raw.toString('utf8')) as Obj;
  };
  const badBody = (req: FastifyRequest, reply: FastifyReply, err: unknown) =>
    breaks.badBody500 ? send(req, reply, 500, status(500, 'InternalError', String(err))) : send(req, reply, 400, status(400, 'BadRequest', `the object provided is unrecognized: ${(err as Error).message}`));

  const list = (kind: string, items: Obj[]) => ({ kind: `${kind}List`, apiVersion: 'v1', metadata: { resourceVersion: String(rv) }, items });
  const stamp = (obj: Obj, ns?: string): Obj => {
    obj.metadata = { ...obj.metadata, uid: randomUUID(), resourceVersion: String(++rv), creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z') };
    if (ns) obj.metadata.namespace = ns;
    return obj;
  };

  app.get('/api', async (req, reply) => send(req, reply, 200, { kind: 'APIVersions', versions: ['v1'] }));
  app.get('/apis', async (req, reply) => send(req, reply, 200, { kind: 'APIGroupList', apiVersion: 'v1', groups: [] }));
  const verbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
  app.get('/api/v1', async (req, reply) =>
    send(req, reply, 200, {
      kind: 'APIResourceList',
      groupVersion: 'v1',
      resources: [
        { name: 'namespaces', namespaced: false, kind: 'Namespace', verbs },
        { name: 'configmaps', namespaced: true, kind: 'ConfigMap', verbs },
      ],
    }),
  );

  app.get('/api/v1/namespaces', async (req, reply) => send(req, reply, 200, list('Namespace', [...namespaces.values()])));
  app.post('/api/v1/namespaces', async (req, reply) => {
    let obj: Obj;
    try {
      obj = decode(req);
    } catch (err) {
      return badBody(req, reply, err);
    }
    const name = obj.metadata?.name;
    if (namespaces.has(name)) return send(req, reply, 409, status(409, 'AlreadyExists', `namespaces "${name}" already exists`, { name, kind: 'namespaces' }));
    namespaces.set(name, stamp({ ...obj, apiVersion: 'v1', kind: 'Namespace', status: { phase: 'Active' } }));
    return send(req, reply, breaks.create200 ? 200 : 201, namespaces.get(name));
  });
  app.delete('/api/v1/namespaces/:name', async (req, reply) => {
    const { name } = req.params as { name: string };
    if (!namespaces.delete(name)) return send(req, reply, 404, status(404, 'NotFound', `namespaces "${name}" not found`, { name, kind: 'namespaces' }));
    for (const key of [...configmaps.keys()]) if (key.startsWith(`${name}/`)) configmaps.delete(key);
    return send(req, reply, 200, status(200, '', '', { name, kind: 'namespaces' }));
  });

  const selected = (req: FastifyRequest, items: Obj[]) => {
    const selector = (req.query as Record<string, string>).labelSelector;
    if (!selector) return items;
    const [k, v] = selector.split('=');
    return items.filter((o) => o.metadata.labels?.[k] === v);
  };
  app.get('/api/v1/configmaps', async (req, reply) => send(req, reply, 200, list('ConfigMap', selected(req, [...configmaps.values()]))));
  app.get('/api/v1/namespaces/:ns/configmaps', async (req, reply) => {
    const { ns } = req.params as { ns: string };
    return send(req, reply, 200, list('ConfigMap', selected(req, [...configmaps.values()].filter((o) => o.metadata.namespace === ns))));
  });
  app.post('/api/v1/namespaces/:ns/configmaps', async (req, reply) => {
    const { ns } = req.params as { ns: string };
    let obj: Obj;
    try {
      obj = decode(req);
    } catch (err) {
      return badBody(req, reply, err);
    }
    const name = obj.metadata?.name;
    if (configmaps.has(`${ns}/${name}`)) return send(req, reply, 409, status(409, 'AlreadyExists', `configmaps "${name}" already exists`, { name, kind: 'configmaps' }));
    const stored = stamp({ ...obj, apiVersion: 'v1', kind: 'ConfigMap' }, ns);
    configmaps.set(`${ns}/${name}`, stored);
    return send(req, reply, breaks.create200 ? 200 : 201, stored);
  });
  const one = '/api/v1/namespaces/:ns/configmaps/:name';
  const missing = (req: FastifyRequest, reply: FastifyReply, name: string) => send(req, reply, 404, status(404, 'NotFound', `configmaps "${name}" not found`, { name, kind: 'configmaps' }));
  app.get(one, async (req, reply) => {
    const { ns, name } = req.params as { ns: string; name: string };
    const obj = configmaps.get(`${ns}/${name}`);
    return obj ? send(req, reply, 200, obj) : missing(req, reply, name);
  });
  app.put(one, async (req, reply) => {
    const { ns, name } = req.params as { ns: string; name: string };
    const old = configmaps.get(`${ns}/${name}`);
    if (!old) return missing(req, reply, name);
    let obj: Obj;
    try {
      obj = decode(req);
    } catch (err) {
      return badBody(req, reply, err);
    }
    if (obj.kind && obj.kind !== 'ConfigMap') return send(req, reply, 400, status(400, 'BadRequest', `kind ${obj.kind} does not match ConfigMap`));
    const sent = obj.metadata?.resourceVersion;
    if (sent && sent !== old.metadata.resourceVersion && !breaks.ignoreStaleResourceVersion) {
      return send(req, reply, 409, status(409, 'Conflict', `Operation cannot be fulfilled on configmaps "${name}": the object has been modified; please apply your changes to the latest version and try again`, { name, kind: 'configmaps' }));
    }
    const stored = { ...obj, apiVersion: 'v1', kind: 'ConfigMap', metadata: { ...obj.metadata, uid: old.metadata.uid, creationTimestamp: old.metadata.creationTimestamp, namespace: ns, resourceVersion: String(++rv) } };
    configmaps.set(`${ns}/${name}`, stored);
    return send(req, reply, 200, stored);
  });
  app.patch(one, async (req, reply) => {
    const { ns, name } = req.params as { ns: string; name: string };
    const old = configmaps.get(`${ns}/${name}`);
    if (!old) return missing(req, reply, name);
    const type = String(req.headers['content-type'] ?? '').split(';')[0].trim();
    let patch: unknown;
    try {
      patch = JSON.parse((req.body as Buffer).toString('utf8'));
    } catch (err) {
      return badBody(req, reply, err);
    }
    let next: Obj;
    if (type === 'application/json-patch+json') next = jsonpatch.applyPatch(structuredClone(old), patch as jsonpatch.Operation[]).newDocument;
    else if (type === 'application/merge-patch+json' || type === 'application/strategic-merge-patch+json') next = mergePatch(old, patch) as Obj;
    else return send(req, reply, 415, status(415, 'UnsupportedMediaType', `the body of the request was in an unknown format: ${type}`));
    next.metadata.resourceVersion = String(++rv);
    configmaps.set(`${ns}/${name}`, next);
    return send(req, reply, 200, next);
  });
  app.delete(one, async (req, reply) => {
    const { ns, name } = req.params as { ns: string; name: string };
    if (!configmaps.has(`${ns}/${name}`)) return missing(req, reply, name);
    const q = req.query as Record<string, string>;
    let options: Record<string, unknown> = {};
    try {
      if (req.body && (req.body as Buffer).length > 0) options = decode(req) as unknown as Record<string, unknown>;
    } catch (err) {
      return badBody(req, reply, err);
    }
    const orphan = q.orphanDependents ?? options.orphanDependents;
    const policy = q.propagationPolicy ?? options.propagationPolicy;
    if (orphan !== undefined && policy !== undefined) return send(req, reply, 422, status(422, 'Invalid', 'orphanDependents and propagationPolicy cannot both be set'));
    configmaps.delete(`${ns}/${name}`);
    return send(req, reply, 200, { ...status(200, '', '', { name, kind: 'configmaps' }), status: 'Success' });
  });

  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { url, close: () => app.close() };
}

function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> = target && typeof target === 'object' && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}
