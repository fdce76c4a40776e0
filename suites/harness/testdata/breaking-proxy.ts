// A proxy in front of the simulator for the harness's own tests of the chunking, watch and deletion suites:
// everything passes through unchanged unless a `breaks` flag makes it break one rule (drop or reorder watch
// events, answer later chunks from the latest state, ignore finalizers or a collection delete's selector), or
// behave differently in a way the spec allows (ignore limit; answer a too-old watch with an ERROR event).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { JsonObjectSplitter } from '../../../simulator/codec/json-stream.ts';

export interface ProxyBreaks {
  /** Drops the second event of every JSON watch stream. */
  dropWatchEvent?: boolean;
  /** Swaps the first two events of every JSON watch stream. */
  reorderWatchEvents?: boolean;
  /** Serves every chunk after the first from the latest state (keeping the first chunk's resourceVersion). */
  chunksFromLatest?: boolean;
  /** Allowed: ignores limit and continue and returns whole lists. */
  ignoreLimit?: boolean;
  /** Allowed: answers a watch the server refuses with 410 as 200 plus an ERROR event carrying the Status. */
  watchGoneAsErrorEvent?: boolean;
  /** Deletes objects at once whatever their finalizers (removes them, then answers a Success Status). */
  ignoreFinalizers?: boolean;
  /** Drops labelSelector from collection deletes. */
  collectionDeleteIgnoresSelector?: boolean;
  /** A namespaced collection delete also deletes the ConfigMaps of the same name in every other namespace of the run. */
  collectionDeleteCrossesNamespaces?: boolean;
  /** Answers a too-old watch (410) as 200 with an ERROR event whose Status says code 500. */
  watchGoneAsInternalError?: boolean;
  /** Answers a too-old watch with HTTP 410 and a body that is not a Status. */
  watchGoneWithoutStatus?: boolean;
}

export interface RunningProxy {
  url: string;
  close(): Promise<void>;
}

const isWatch = (url: URL) => url.pathname.includes('/watch/') || url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1';

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of req) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

export async function startBreakingProxy(upstream: string, breaks: ProxyBreaks = {}): Promise<RunningProxy> {
  const sockets = new Set<import('node:net').Socket>();
  const forward = async (method: string, url: URL, headers: Record<string, string>, body?: Buffer) => {
    const target = new URL(url.pathname + url.search, upstream);
    return request(target, { method: method as 'GET', headers, body: body && body.length ? body : undefined });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://proxy');
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && !['host', 'connection', 'content-length', 'transfer-encoding'].includes(k)) headers[k] = v;
    const body = await readBody(req);
    const watch = req.method === 'GET' && isWatch(url);
    const collection = /\/(configmaps|secrets|events|services|daemonsets|deployments|replicasets|ingresses|jobs|cronjobs|namespaces)$/.test(url.pathname);

    if (req.method === 'GET' && !watch && collection) {
      if (breaks.ignoreLimit) {
        url.searchParams.delete('limit');
        url.searchParams.delete('continue');
      }
      const token = url.searchParams.get('continue');
      if (breaks.chunksFromLatest && token) return chunkFromLatest(url, token, headers, res);
    }
    if (req.method === 'DELETE' && collection && breaks.collectionDeleteIgnoresSelector) url.searchParams.delete('labelSelector');

    const up = await forward(req.method ?? 'GET', url, headers, body);
    const upHeaders: Record<string, string> = {};
    for (const [k, v] of Object.entries(up.headers)) if (typeof v === 'string' && !['content-length', 'transfer-encoding', 'connection', 'keep-alive'].includes(k)) upHeaders[k] = v;

    if (req.method === 'DELETE' && !collection && breaks.ignoreFinalizers && up.statusCode === 200) {
      const text = await up.body.text();
      const obj = JSON.parse(text) as { kind?: string; metadata?: { name?: string; uid?: string; finalizers?: string[]; deletionTimestamp?: string } };
      if (obj.kind !== 'Status' && obj.metadata?.deletionTimestamp && (obj.metadata.finalizers ?? []).length > 0) {
        const p = await forward('PATCH', url, { 'content-type': 'application/merge-patch+json', accept: 'application/json' }, Buffer.from(JSON.stringify({ metadata: { finalizers: null } })));
        await p.body.text();
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(`${JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: obj.metadata.name, kind: 'configmaps', uid: obj.metadata.uid }, code: 200 })}\n`);
        return;
      }
      res.writeHead(200, upHeaders);
      res.end(text);
      return;
    }

    if (req.method === 'DELETE' && collection && breaks.collectionDeleteCrossesNamespaces) {
      const m = /^\/api\/v1\/namespaces\/([^/]+)\/configmaps$/.exec(url.pathname);
      if (m) {
        const all = await forward('GET', new URL('/api/v1/configmaps', upstream), { accept: 'application/json' });
        const list = (await all.body.json()) as { items: Array<{ metadata: { name: string; namespace: string } }> };
        const prefix = m[1].replace(/[^-]+$/, '');
        for (const o of list.items) {
          if (o.metadata.namespace === m[1] || !o.metadata.namespace.startsWith(prefix)) continue;
          const d = await forward('DELETE', new URL(`/api/v1/namespaces/${o.metadata.namespace}/configmaps/${o.metadata.name}`, upstream), { accept: 'application/json' });
          await d.body.text();
        }
      }
    }

    if (watch && up.statusCode === 410 && breaks.watchGoneWithoutStatus) {
      await up.body.text();
      res.writeHead(410, { 'content-type': 'text/plain' });
      res.end('gone\n');
      return;
    }

    if (watch && up.statusCode === 410 && breaks.watchGoneAsInternalError) {
      await up.body.text();
      res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
      res.end(`${JSON.stringify({ type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'internal error', reason: 'InternalError', code: 500 } })}\n`);
      return;
    }

    if (watch && up.statusCode === 410 && breaks.watchGoneAsErrorEvent) {
      const status = JSON.parse(await up.body.text()) as unknown;
      res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
      res.end(`${JSON.stringify({ type: 'ERROR', object: status })}\n`);
      return;
    }

    const jsonStream = watch && up.statusCode === 200 && String(up.headers['content-type'] ?? '').startsWith('application/json');
    if (jsonStream && (breaks.dropWatchEvent || breaks.reorderWatchEvents)) {
      res.writeHead(200, { ...upHeaders, 'transfer-encoding': 'chunked' });
      res.flushHeaders();
      const splitter = new JsonObjectSplitter();
      let index = 0;
      let held: unknown;
      let holdTimer: NodeJS.Timeout | undefined;
      const emit = (ev: unknown) => res.write(`${JSON.stringify(ev)}\n`);
      res.on('close', () => up.body.destroy());
      try {
        for await (const chunk of up.body) {
          for (const ev of splitter.push(chunk as Buffer)) {
            const i = index++;
            if (breaks.dropWatchEvent && i === 1) continue;
            if (breaks.reorderWatchEvents && i === 0) {
              held = ev;
              // A stream with a single event must not hang on it.
              holdTimer = setTimeout(() => {
                if (held !== undefined) emit(held);
                held = undefined;
              }, 300);
              continue;
            }
            emit(ev);
            if (held !== undefined) {
              clearTimeout(holdTimer);
              emit(held);
              held = undefined;
            }
          }
        }
      } catch {
        // client went away
      }
      clearTimeout(holdTimer);
      if (held !== undefined) emit(held);
      res.end();
      return;
    }

    res.writeHead(up.statusCode, upHeaders);
    if (watch) res.flushHeaders();
    res.on('close', () => up.body.destroy());
    try {
      for await (const chunk of up.body) res.write(chunk);
    } catch {
      // client went away
    }
    res.end();
  };

  /** A later chunk served from the latest state: items after the token's key, the token's resourceVersion kept. */
  async function chunkFromLatest(url: URL, token: string, headers: Record<string, string>, res: ServerResponse): Promise<void> {
    const decoded = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { v: string; rv: number; start: string };
    const limit = Number(url.searchParams.get('limit') ?? '0');
    const latest = new URL(url);
    latest.searchParams.delete('continue');
    latest.searchParams.delete('limit');
    const up = await forward('GET', latest, { ...headers, accept: 'application/json' });
    const list = (await up.body.json()) as { metadata: { resourceVersion?: string; continue?: string }; items: Array<{ metadata: { name: string } }> };
    // eslint-disable-next-line no-control-regex -- the NUL a broken frame ends with is what is removed
    const start = decoded.start.replace(/\u0000$/, '');
    const rest = list.items.filter((i) => i.metadata.name > start || (i.metadata.name === start && !decoded.start.endsWith('\u0000')));
    const page = limit > 0 ? rest.slice(0, limit) : rest;
    const more = limit > 0 && rest.length > limit;
    list.items = page;
    list.metadata.resourceVersion = String(decoded.rv);
    list.metadata.continue = more ? Buffer.from(JSON.stringify({ v: decoded.v, rv: decoded.rv, start: `${page[page.length - 1].metadata.name}\u0000` })).toString('base64url') : undefined;
    if (!more) delete list.metadata.continue;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(`${JSON.stringify(list)}\n`);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(String(err));
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
