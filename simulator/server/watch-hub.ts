// Fan-out of watch events to HTTP streams. Every watcher gets the same frozen object for one change (the watch
// cache, watch-cache.ts, hands one event to all of them), so the encoded frame is cached per (object, event
// type, version, format) in a byte-bounded cache: each change is encoded once per wire format in use, however
// many watchers receive it. A watcher whose connection does not drain is cut off once its unsent bytes pass a
// bound, so a stuck client cannot hold the server's memory.

import type { KubeObject } from '../api/meta.ts';
import { EncodedCache } from './encoded-cache.ts';

export type FrameEncoder = (type: string, obj: object) => Buffer | string;

export interface HubStats {
  /** How many frames were encoded (cache misses). */
  encodings: number;
  /** How many frames were written to connections. */
  deliveries: number;
  /** Watch connections cut off because they fell behind. */
  cutOff: number;
  /** Open watch connections. */
  open: number;
}

export class WatchHub {
  readonly stats: HubStats = { encodings: 0, deliveries: 0, cutOff: 0, open: 0 };
  private readonly enders = new Set<() => void>();
  /** Encoded frames; a frame is needed while one change is handed to its watchers and while it is replayed. */
  readonly frames: EncodedCache;

  constructor(
    readonly maxBufferedBytes = 16 * 1024 * 1024,
    frameCacheBytes = 32 * 1024 * 1024,
  ) {
    this.frames = new EncodedCache(frameCacheBytes);
  }

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
}
