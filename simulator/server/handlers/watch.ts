// Watch (spec 4.3, 4.9, 6): /watch/ paths and ?watch=true. From a resourceVersion: every change after it, in
// order; without one: ADDED for every current object, then live changes. Selector watches see objects that
// stop matching as DELETED and objects that start matching as ADDED.

import type { ServerResponse } from 'node:http';
import type { KubeObject } from '../../api/meta.ts';
import { apiVersionOf } from '../../api/meta.ts';
import type { ResourceDef } from '../../api/registry.ts';
import { chunkKeys } from '../watch-hub.ts';
import { StoreError, type StoreEvent, type WatchHandle } from '../../storage/store.ts';
import { ApiError, badRequest } from '../errors.ts';
import { encodeJson, jsonWatchFrame, negotiateOutput } from '../serializers.ts';
import { header, type ResourceRequest, type ServerContext } from '../context.ts';
import { intParam, present } from './common.ts';
import { compileSelectors, matchAll, parseResourceVersion } from './read.ts';
import { objectTable, parseIncludeObject } from '../table/table.ts';
import { collectionKey, currentRevision, listStored, oldestRevision } from '../registry/storage.ts';

/** Default watch lifetime when the client gives none: random in [30, 60) minutes, like the real server. */
function defaultTimeoutSeconds(): number {
  return 1800 + Math.floor(Math.random() * 1800);
}

export interface WatchStart {
  /** Writes status and headers and streams until the watch ends. */
  serve(res: ServerResponse): void;
}

/** Validates the request and prepares the stream; throws ApiError (sent as a normal error) before any byte is written. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export async function prepareWatch(ctx: ServerContext, req: ResourceRequest): Promise<WatchStart> {
  const def = req.def;
  if (req.name) {
    const sel = req.query.fieldSelector ? `${req.query.fieldSelector},metadata.name=${req.name}` : `metadata.name=${req.name}`;
    req = { ...req, query: { ...req.query, fieldSelector: sel } };
  }
  const matches = compileSelectors(req);
  const negotiated = negotiateOutput(header(req, 'accept'), { stream: true, protobuf: ctx.protobuf, protobufOk: !!ctx.protobuf?.hasProtobuf(apiVersionOf(def), def.kind), table: true });
  // Server-side printing: every event's object is a one-row Table; the first event of the stream alone carries
  // the column definitions, as on the real server. ERROR events stay Status.
  const tableVersion = negotiated.table;
  const includeObject = tableVersion ? parseIncludeObject(req.query.includeObject) : 'Metadata';
  // 0 means "the server's default", as in the real handler; values beyond what a timer holds (2^31-1 ms, about
  // 24.8 days) are clamped to it: a longer one would fire at once and end the watch before it began.
  const timeoutSeconds = intParam(req, 'timeoutSeconds', { min: 0 }) || defaultTimeoutSeconds();
  const timeoutMs = Math.min(timeoutSeconds * 1000, MAX_TIMER_MS);
  const rv = parseResourceVersion(req.query.resourceVersion);
  const prefix = collectionKey(def, req.namespace);
  const formatKey = `${negotiated.format}|${apiVersionOf(def)}`;
  const encode = negotiated.format === 'protobuf'
    ? (type: string, obj: object) => ctx.protobuf!.encodeWatchEvent(type, obj)
    : // Bytes, not a string: a frame written to many watchers is then UTF-8 encoded once, not once per watcher.
      (type: string, obj: object) => jsonWatchFrame(type, obj);

  // Initial state for watches without a resourceVersion (or "0"): a snapshot delivered as ADDED events.
  let initial: KubeObject[] = [];
  let fromRevision: number;
  if (rv === undefined || rv === 0) {
    const snap = await listStored(ctx, def, req.namespace, { filter: matches });
    initial = snap.items.map((i) => i.value);
    fromRevision = snap.revision;
  } else {
    fromRevision = rv;
    if (rv > currentRevision(ctx)) {
      // The real server waits for a future revision; a client normally never asks for one.
      const deadline = Date.now() + ctx.settings.futureRevisionWaitMs;
      while (currentRevision(ctx) < rv && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
      if (currentRevision(ctx) < rv) throw new ApiError(504, 'Timeout', `Timeout: Too large resource version: ${rv}, current: ${currentRevision(ctx)}`, { retryAfterSeconds: 1 });
    }
    if (rv < oldestRevision(ctx) - 1) {
      throw new ApiError(410, 'Expired', `too old resource version: ${rv} (${oldestRevision(ctx)})`);
    }
  }

  return {
    serve(res: ServerResponse) {
      let handle: WatchHandle | undefined;
      let ended = false;
      const hub = ctx.hub;
      hub.stats.open++;
      const untrack = hub.track(() => end());
      const end = () => {
        if (ended) return;
        ended = true;
        untrack();
        hub.stats.open--;
        clearTimeout(timer);
        handle?.stop();
        // Frames still waiting for the pump go out before the closing chunk (a watch ended by its timeout or by
        // the server's shutdown delivers what it was handed).
        flush(true);
        if (waitingDrain) socket!.off('drain', onDrain);
        if (!res.writableEnded) res.end();
      };
      let headersSent = false;
      const tableFrame = (type: string, obj: KubeObject): Buffer | string => {
        const now = ctx.now().getTime();
        const headers = !headersSent;
        headersSent = true;
        // Cells hold ages ("5m"), so a cached frame is good for the second it was made in.
        const key = `table-${tableVersion}|${includeObject}|${headers ? 'headers' : 'rows'}|${apiVersionOf(def)}|${Math.floor(now / 1000)}`;
        const opts = { version: tableVersion!, includeObject, now, headers };
        return hub.frame(key, type, obj, (t, o) => encodeJson({ type: t, object: objectTable(def.kind, apiVersionOf(def), o, opts) }, false));
      };
      res.writeHead(200, { 'Content-Type': negotiated.contentType, 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
      res.flushHeaders();
      // Once the headers are out, the body's chunks go to the socket itself, each event's chunk framed once and
      // shared by every watcher (hub.chunk): per watcher an event costs one socket write, not the response's own
      // chunk framing (a corked write of size line, bytes and CRLF) and UTF-8 conversion. res.end() still writes
      // the last chunk, after these on the same socket. The response must own the socket with nothing of its own
      // queued and frame its body as chunks; otherwise (a response queued behind another on a pipelined
      // connection, an HTTP/1.0 client) frames take the ordinary path. Table watches too: their frames differ per
      // watcher (the first one carries the columns).
      // (This was reverted once because kubectl.test.ts's get -w missed the new object's line 2 runs in 3: kubectl
      // -v=9 showed the event received and printed; the test dropped stdout that came between its two waits, which
      // a frame delivered during the create's own request made likely. The test keeps one listener now.)
      const socket = res.socket;
      const internals = res as unknown as { outputData?: unknown[]; chunkedEncoding?: boolean };
      const direct = !!socket && !tableVersion && internals.chunkedEncoding === true && internals.outputData?.length === 0;
      const keys = chunkKeys(formatKey);
      // Live events of a direct watch are queued and written by the hub's pump (hub.schedule) once per turn of
      // the event loop, all of a watcher's pending frames in one socket write: the events that the requests of
      // one turn make (several writers, a controller's burst) cost each watcher one write, not one per event. One
      // writer waiting for each answer sees the same as an immediate write, a turn later. The initial state and
      // the replay from a resourceVersion are written at once, as before (a large list is not held in the queue).
      let queued = false;
      const pending: Buffer[] = [];
      let pendingBytes = 0;
      let waitingDrain = false;
      const onDrain = () => {
        waitingDrain = false;
        if (!ended && pending.length > 0) hub.schedule(sink);
      };
      /** Writes the queued frames in one write (several: corked, one writev of the shared bytes, no copy). */
      const flush = (final = false) => {
        if (pending.length === 0) return;
        if (socket!.destroyed) {
          pending.length = 0;
          pendingBytes = 0;
          return;
        }
        // A socket past its high-water mark (a client reading slower than events come) is not written again until
        // it drains: its frames wait here as references to the shared bytes and go out together then, instead of
        // one queued write each (each with its own request object held until the kernel takes it).
        if (!final && socket!.writableNeedDrain) {
          if (!waitingDrain) {
            waitingDrain = true;
            socket!.once('drain', onDrain);
          }
          return;
        }
        if (pending.length === 1) socket!.write(pending[0]);
        else {
          socket!.cork();
          for (const frame of pending) socket!.write(frame);
          socket!.uncork();
        }
        pending.length = 0;
        pendingBytes = 0;
        hub.stats.writes++;
      };
      const sink = { flush: () => flush(), scheduled: false };
      const cutOff = () => {
        hub.stats.cutOff++;
        pending.length = 0;
        pendingBytes = 0;
        end();
        res.destroy();
      };
      const send = (type: string, obj: KubeObject) => {
        if (ended) return;
        hub.stats.deliveries++;
        if (direct && queued) {
          const frame = hub.chunk(keys[type], type, obj, encode);
          if (!waitingDrain) hub.schedule(sink);
          pending.push(frame);
          pendingBytes += frame.length;
          if (pendingBytes + socket!.writableLength > hub.maxBufferedBytes) cutOff();
          return;
        }
        let buffered: number;
        if (direct) {
          socket!.write(hub.chunk(keys[type], type, obj, encode));
          hub.stats.writes++;
          buffered = socket!.writableLength;
        } else {
          res.write(tableVersion ? tableFrame(type, obj) : hub.frame(formatKey, type, obj, encode));
          hub.stats.writes++;
          buffered = res.writableLength;
        }
        if (buffered > hub.maxBufferedBytes) cutOff();
      };
      const timer = setTimeout(end, timeoutMs);
      timer.unref();
      res.on('close', end);
      for (const obj of initial) send('ADDED', present(def, obj));
      // Without selectors (matchAll) nothing is evaluated per watcher per event: every change matches.
      const all = matches === matchAll;
      const onEvent = (ev: StoreEvent) => {
        const cur = all || matches(ev.object);
        const prev = ev.prevObject ? all || matches(ev.prevObject) : false;
        if (ev.type === 'ADDED') {
          if (cur) send('ADDED', presentShared(def, ev.object));
        } else if (ev.type === 'DELETED') {
          if (prev || cur) send('DELETED', presentShared(def, ev.object));
        } else if (cur && prev) send('MODIFIED', presentShared(def, ev.object));
        else if (cur) send('ADDED', presentShared(def, ev.object));
        else if (prev) send('DELETED', presentShared(def, ev.object));
      };
      try {
        handle = ctx.watchCache.watch(prefix, {
          fromRevision,
          onEvent,
          onClose: (reason) => {
            if (reason instanceof StoreError && reason.code === 'Compacted') {
              const status = new ApiError(410, 'Expired', `too old resource version: ${fromRevision} (${reason.revision ?? oldestRevision(ctx)})`).status;
              if (!ended) {
                flush(true);
                res.write(encode('ERROR', status));
              }
            }
            end();
          },
        });
        queued = true;
      } catch (e) {
        if (e instanceof StoreError && e.code === 'Compacted') {
          const status = new ApiError(410, 'Expired', `too old resource version: ${fromRevision} (${e.revision ?? oldestRevision(ctx)})`).status;
          res.write(encode('ERROR', status));
        }
        end();
      }
    },
  };
}

/**
 * present() of one change for every watcher it is handed to: the same object for all of them (so the frame cache,
 * keyed by object, encodes it once even when the version differs from storage's), made once.
 */
function presentShared(def: ResourceDef, stored: KubeObject): KubeObject {
  if (lastPresented.def !== def || lastPresented.stored !== stored) lastPresented = { def, stored, out: present(def, stored) };
  return lastPresented.out!;
}

let lastPresented: { def?: ResourceDef; stored?: KubeObject; out?: KubeObject } = {};

export function rejectWatchOnObjectPath(): never {
  throw badRequest('watch is not supported on a single object path; use the /watch/ path or fieldSelector=metadata.name=<name> on the list');
}
