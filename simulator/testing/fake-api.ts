// A tiny in-memory API server for the daemon's own tests (leader election, informers): namespaced and
// cluster-scoped collections under /api/v1 and /apis/<g>/<v>, GET/POST/PUT/DELETE with resourceVersion
// compare-and-swap, lists with a resourceVersion, and JSON watch streams replaying history from a
// resourceVersion (ERROR 410 Gone when it is older than the kept window). Not the real simulator server:
// just enough of the contract to test the client side in isolation.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KubeObject, Status } from '../api/meta.ts';

interface StoredEvent {
  rv: number;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  key: string;
  collection: string;
  object: KubeObject;
}

interface Watcher {
  collection: string;
  namespace: string | undefined;
  res: http.ServerResponse;
}

function status(code: number, reason: string, message: string): Status {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
}

/** "/api/v1/namespaces/ns/configmaps/x" -> collection "/api/v1/configmaps", namespace, name. */
function parsePath(pathname: string): { collection: string; namespace?: string; name?: string } | undefined {
  const m = /^(\/api\/v1|\/apis\/[^/]+\/[^/]+)(?:\/namespaces\/([^/]+)(?=\/))?\/([^/]+)(?:\/([^/]+))?$/.exec(pathname);
  if (!m) return undefined;
  return { collection: `${m[1]}/${m[3]}`, namespace: m[2] ? decodeURIComponent(m[2]) : undefined, name: m[4] ? decodeURIComponent(m[4]) : undefined };
}

export class FakeApi {
  private rv = 0;
  private readonly objects = new Map<string, KubeObject>(); // key: collection|ns|name
  private readonly history: StoredEvent[] = [];
  private readonly watchers = new Set<Watcher>();
  private readonly server: http.Server;
  /** Requests seen, "METHOD path?query". */
  readonly requests: string[] = [];
  /** Events older than this revision are forgotten: watching from before it gives 410. */
  compactedBefore = 0;
  /** Served resources as "group/version/resource" (group "" = core), for discovery documents. */
  resources: string[] = ['/v1/namespaces', '/v1/endpoints', '/v1/configmaps', '/v1/events', 'apps/v1/deployments', 'batch/v1/jobs'];
  /** While true every request is answered 503. */
  unavailable = false;
  url = '';

  constructor() {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => this.handle(req, Buffer.concat(chunks), res));
    });
  }

  async start(): Promise<string> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  async close(): Promise<void> {
    for (const w of this.watchers) w.res.end();
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  get revision(): number {
    return this.rv;
  }

  /** Ends every open watch stream, as a server restart or timeout would. */
  endWatches(): void {
    for (const w of this.watchers) w.res.end();
    this.watchers.clear();
  }

  /** Direct access for tests. */
  stored(collection: string, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.objects.get(`${collection}|${namespace ?? ''}|${name}`);
  }

  /** Writes without HTTP (seeding). */
  put(collection: string, obj: KubeObject): KubeObject {
    const key = `${collection}|${obj.metadata.namespace ?? ''}|${obj.metadata.name}`;
    const type = this.objects.has(key) ? 'MODIFIED' : 'ADDED';
    return this.write(collection, key, obj, type);
  }

  remove(collection: string, namespace: string | undefined, name: string): void {
    const key = `${collection}|${namespace ?? ''}|${name}`;
    const old = this.objects.get(key);
    if (!old) return;
    this.objects.delete(key);
    this.record(collection, key, 'DELETED', { ...old, metadata: { ...old.metadata, resourceVersion: String(++this.rv) } });
  }

  /** Deletes without an event, as if the change fell out of a compacted history. */
  removeSilently(collection: string, namespace: string | undefined, name: string): void {
    this.objects.delete(`${collection}|${namespace ?? ''}|${name}`);
    this.rv++;
  }

  get watcherCount(): number {
    return this.watchers.size;
  }

  private write(collection: string, key: string, obj: KubeObject, type: 'ADDED' | 'MODIFIED'): KubeObject {
    const stored: KubeObject = { ...obj, metadata: { ...obj.metadata, resourceVersion: String(++this.rv), uid: obj.metadata.uid ?? `uid-${this.rv}` } };
    this.objects.set(key, stored);
    this.record(collection, key, type, stored);
    return stored;
  }

  private record(collection: string, key: string, type: StoredEvent['type'], object: KubeObject): void {
    const ev: StoredEvent = { rv: Number(object.metadata.resourceVersion), type, key, collection, object };
    this.history.push(ev);
    for (const w of this.watchers) this.deliver(w, ev);
  }

  private deliver(w: Watcher, ev: StoredEvent): void {
    if (ev.collection !== w.collection) return;
    if (w.namespace !== undefined && ev.object.metadata.namespace !== w.namespace) return;
    w.res.write(JSON.stringify({ type: ev.type, object: ev.object }) + '\n');
  }

  private send(res: http.ServerResponse, code: number, body: unknown): void {
    res.writeHead(code, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }

  private handle(req: http.IncomingMessage, body: Buffer, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://fake');
    this.requests.push(`${req.method} ${url.pathname}${url.search}`);
    if (this.unavailable) return this.send(res, 503, status(503, 'ServiceUnavailable', 'unavailable'));
    if (req.method === 'GET' && (url.pathname === '/api/v1' || url.pathname === '/apis' || /^\/apis\/[^/]+\/[^/]+$/.test(url.pathname))) {
      return this.send(res, 200, this.discovery(url.pathname));
    }
    const p = parsePath(url.pathname);
    if (!p) return this.send(res, 404, status(404, 'NotFound', 'the server could not find the requested resource'));
    const key = `${p.collection}|${p.namespace ?? ''}|${p.name ?? ''}`;
    const resource = p.collection.slice(p.collection.lastIndexOf('/') + 1);
    let obj: KubeObject | undefined;
    if (body.length > 0) {
      try {
        obj = JSON.parse(body.toString()) as KubeObject;
      } catch {
        return this.send(res, 400, status(400, 'BadRequest', 'body is not JSON'));
      }
    }
    switch (req.method) {
      case 'GET': {
        if (p.name) {
          const found = this.objects.get(key);
          return found ? this.send(res, 200, found) : this.send(res, 404, status(404, 'NotFound', `${resource} "${p.name}" not found`));
        }
        if (url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1') return this.watch(p.collection, p.namespace, url, res);
        const items = [...this.objects.entries()]
          .filter(([k, o]) => k.startsWith(`${p.collection}|`) && (p.namespace === undefined || o.metadata.namespace === p.namespace))
          .map(([, o]) => o);
        return this.send(res, 200, { kind: 'List', apiVersion: 'v1', metadata: { resourceVersion: String(this.rv) }, items });
      }
      case 'POST': {
        if (!obj?.metadata?.name) return this.send(res, 422, status(422, 'Invalid', 'metadata.name: Required value'));
        const k = `${p.collection}|${p.namespace ?? ''}|${obj.metadata.name}`;
        if (this.objects.has(k)) return this.send(res, 409, status(409, 'AlreadyExists', `${resource} "${obj.metadata.name}" already exists`));
        return this.send(res, 201, this.write(p.collection, k, { ...obj, metadata: { ...obj.metadata, namespace: p.namespace } }, 'ADDED'));
      }
      case 'PUT': {
        const current = this.objects.get(key);
        if (!current || !obj) return this.send(res, 404, status(404, 'NotFound', `${resource} "${p.name}" not found`));
        if (obj.metadata.resourceVersion !== undefined && obj.metadata.resourceVersion !== current.metadata.resourceVersion) {
          return this.send(
            res,
            409,
            status(409, 'Conflict', `Operation cannot be fulfilled on ${resource} "${p.name}": the object has been modified; please apply your changes to the latest version and try again`),
          );
        }
        return this.send(res, 200, this.write(p.collection, key, { ...obj, metadata: { ...obj.metadata, uid: current.metadata.uid } }, 'MODIFIED'));
      }
      case 'DELETE': {
        if (!this.objects.has(key)) return this.send(res, 404, status(404, 'NotFound', `${resource} "${p.name}" not found`));
        this.remove(p.collection, p.namespace, p.name!);
        return this.send(res, 200, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 200 });
      }
      default:
        return this.send(res, 405, status(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource'));
    }
  }

  private discovery(path: string): unknown {
    const split = this.resources.map((r) => {
      const [group, version, resource] = r.split('/');
      return { group, version, resource };
    });
    if (path === '/apis') {
      const gvs = new Map<string, Set<string>>();
      for (const r of split) if (r.group) gvs.set(r.group, (gvs.get(r.group) ?? new Set()).add(r.version));
      return {
        kind: 'APIGroupList',
        apiVersion: 'v1',
        groups: [...gvs].map(([name, versions]) => ({ name, versions: [...versions].map((version) => ({ groupVersion: `${name}/${version}`, version })) })),
      };
    }
    const gv = path === '/api/v1' ? { group: '', version: 'v1' } : { group: path.split('/')[2], version: path.split('/')[3] };
    return {
      kind: 'APIResourceList',
      groupVersion: gv.group ? `${gv.group}/${gv.version}` : 'v1',
      resources: split.filter((r) => r.group === gv.group && r.version === gv.version).map((r) => ({ name: r.resource, namespaced: true, kind: '', verbs: [] })),
    };
  }

  private watch(collection: string, namespace: string | undefined, url: URL, res: http.ServerResponse): void {
    const from = Number(url.searchParams.get('resourceVersion') ?? '0');
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    if (from > 0 && from < this.compactedBefore) {
      res.end(JSON.stringify({ type: 'ERROR', object: status(410, 'Gone', `too old resource version: ${from} (${this.compactedBefore})`) }) + '\n');
      return;
    }
    const w: Watcher = { collection, namespace, res };
    for (const ev of this.history) if (ev.rv > from) this.deliver(w, ev);
    this.watchers.add(w);
    res.on('close', () => this.watchers.delete(w));
  }
}
