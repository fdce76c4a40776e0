// Fan-out of watch events to HTTP streams. Every watcher gets the same frozen object for one change, so the
// encoded frame is cached per (object, event type, version, format): each change is encoded once per wire
// format in use, however many watchers receive it. A watcher whose connection does not drain is cut off once
// its unsent bytes pass a bound, so a stuck client cannot hold the server's memory.

import type { KubeObject } from '../api/meta.ts';

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
  private readonly cache = new WeakMap<object, Map<string, Buffer | string>>();
  readonly stats: HubStats = { encodings: 0, deliveries: 0, cutOff: 0, open: 0 };
  private readonly enders = new Set<() => void>();

  constructor(readonly maxBufferedBytes = 16 * 1024 * 1024) {}

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
    let perObject = this.cache.get(obj);
    if (!perObject) {
      perObject = new Map();
      this.cache.set(obj, perObject);
    }
    const k = `${formatKey}|${type}`;
    let bytes = perObject.get(k);
    if (bytes === undefined) {
      bytes = encode(type, obj);
      perObject.set(k, bytes);
      this.stats.encodings++;
    }
    return bytes;
  }
}
