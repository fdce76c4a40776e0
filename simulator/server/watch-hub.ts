// Fan-out of watch events to HTTP streams. Every watcher gets the same frozen object for one change (the watch
// cache, watch-cache.ts, hands one event to all of them), so the encoded frame is cached per (object, event
// type, version, format) in a byte-bounded cache: each change is encoded once per wire format in use, however
// many watchers receive it. A watcher whose connection does not drain is cut off once its unsent bytes pass a
// bound, so a stuck client cannot hold the server's memory.

import type { KubeObject } from '../api/meta.ts';
import { performance } from 'node:perf_hooks';
import { EncodedCache } from './encoded-cache.ts';

/** One watcher's writer of its queued frames (handlers/watch.ts). */
export interface FrameSink {
  flush(): void;
  /** Whether it waits in the pump's queue (set and cleared by the hub). */
  scheduled: boolean;
}

export type FrameEncoder = (type: string, obj: object) => Buffer | string;

export interface HubStats {
  /** How many frames were encoded (cache misses). */
  encodings: number;
  /** How many frames were written to connections. */
  deliveries: number;
  /** How many writes carried them (the pump writes all of a watcher's pending frames at once). */
  writes: number;
  /** Watch connections cut off because they fell behind. */
  cutOff: number;
  /** Open watch connections. */
  open: number;
  /** Pump passes (one per turn of the event loop with frames waiting) and their summed and longest duration. */
  passes: number;
  passMs: number;
  longestPassMs: number;
}

export class WatchHub {
  readonly stats: HubStats = { encodings: 0, deliveries: 0, writes: 0, cutOff: 0, open: 0, passes: 0, passMs: 0, longestPassMs: 0 };
  private readonly enders = new Set<() => void>();
  /** Encoded frames; a frame is needed while one change is handed to its watchers and while it is replayed. */
  readonly frames: EncodedCache;

  constructor(
    readonly maxBufferedBytes = 16 * 1024 * 1024,
    frameCacheBytes = 32 * 1024 * 1024,
  ) {
    this.frames = new EncodedCache(frameCacheBytes);
  }

  /**
   * Watchers with frames waiting, in the order their oldest frame came. Two arrays used in turn (not a Set): a
   * pass over 10,000 watchers then allocates nothing, where a Set emptied and refilled every event left a large
   * hash table behind each time (+90 MiB of peak RSS in the 10k watch bench).
   */
  private dirty: FrameSink[] = [];
  private spare: FrameSink[] = [];
  private pumping = false;

  /** Queues a watcher's flush for the pump (once until it is flushed); the watcher keeps its frames. */
  schedule(sink: FrameSink): void {
    if (sink.scheduled) return;
    sink.scheduled = true;
    this.dirty.push(sink);
    if (!this.pumping) {
      this.pumping = true;
      setImmediate(this.pump);
    }
  }

  /**
   * Flushes every waiting watcher, oldest first, once per turn of the event loop (setImmediate): the changes made
   * by the requests of one turn go to each watcher in one write. A pass is not cut in slices: letting requests in
   * between slices made a writer's events pile up behind the pass (each event still costs every watcher a queue
   * step), which raised the bench's p99 several times at 10,000 watchers for the throughput it gained. A watcher
   * that ended meanwhile has nothing left to flush.
   */
  private readonly pump = (): void => {
    const t0 = performance.now();
    const list = this.dirty;
    this.dirty = this.spare;
    this.pumping = false;
    for (let i = 0; i < list.length; i++) {
      const sink = list[i];
      sink.scheduled = false;
      sink.flush();
    }
    list.length = 0;
    this.spare = list;
    const ms = performance.now() - t0;
    this.stats.passes++;
    this.stats.passMs += ms;
    if (ms > this.stats.longestPassMs) this.stats.longestPassMs = ms;
  };

  /** Registers how to end one open watch cleanly; returns the deregistration. */
  track(end: () => void): () => void {
    this.enders.add(end);
    return () => this.enders.delete(end);
  }

  /**
   * Ends every open watch cleanly (the chunked response is finished, as when a watch's timeoutSeconds run out),
   * so clients resume from their last resourceVersion. The server does this when it shuts down; tests use it to
   * make informers resume.
   */
  endAll(): number {
    const all = [...this.enders];
    for (const end of all) end();
    return all.length;
  }

  /** The encoded frame of `obj` as event `type` in a format; `formatKey` must name format and version. */
  frame(formatKey: string, type: string, obj: KubeObject, encode: FrameEncoder): Buffer | string {
    return this.frames.get(obj, `${formatKey}|${type}`, () => {
      this.stats.encodings++;
      return encode(type, obj);
    });
  }

  /**
   * The frame as one HTTP/1.1 chunk (size line, bytes, CRLF) in one Buffer, encoded once and shared by every
   * watcher: a watcher's socket gets it as is, without a per-watcher UTF-8 conversion or chunk framing.
   * `cacheKey` names format, version and event type (chunkKeys makes them once per watch).
   */
  chunk(cacheKey: string, type: string, obj: KubeObject, encode: FrameEncoder): Buffer {
    return this.frames.get(obj, cacheKey, () => {
      this.stats.encodings++;
      return httpChunk(encode(type, obj));
    }) as Buffer;
  }
}

/** The cache keys of chunk() for one watch's format and version, by event type. */
export function chunkKeys(formatKey: string): Record<string, string> {
  return { ADDED: `${formatKey}|ADDED|chunk`, MODIFIED: `${formatKey}|MODIFIED|chunk`, DELETED: `${formatKey}|DELETED|chunk`, ERROR: `${formatKey}|ERROR|chunk` };
}

/** Bytes framed as one chunk of a chunked HTTP/1.1 body. */
export function httpChunk(bytes: Buffer | string): Buffer {
  const body = typeof bytes === 'string' ? Buffer.from(bytes) : bytes;
  const head = `${body.length.toString(16)}\r\n`;
  const out = Buffer.allocUnsafe(head.length + body.length + 2);
  out.write(head, 0, 'latin1');
  body.copy(out, head.length);
  out.write('\r\n', head.length + body.length, 'latin1');
  return out;
}
