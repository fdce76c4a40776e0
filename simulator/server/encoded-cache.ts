// Encoded bytes of stored objects, kept so that one change sent to many watchers, or one object read many
// times, is encoded once per wire format. Bounded by bytes (least recently used out first): an unbounded cache
// keyed by every object ever read would hold a second and third copy of the whole store (measured: 4.5× the
// objects' JSON in RSS before this bound), which is exactly what a cache must not do.
//
// Keys are the stored objects themselves (frozen, never mutated: see storage/README.md), so identity is the
// version: a new write is a new object and can never be answered with stale bytes.

export type Encoded = Buffer | string;

interface Entry {
  formats: Map<string, Encoded>;
  bytes: number;
}

export interface EncodedCacheStats {
  /** Encodings done (misses). */
  encodings: number;
  hits: number;
  /** Bytes held now, and the bound. */
  bytes: number;
  maxBytes: number;
  evictions: number;
}

const sizeOf = (e: Encoded): number => (typeof e === 'string' ? e.length : e.byteLength);

/**
 * A small Buffer is often a view into an 8 KiB slab shared with others (Buffer.from and allocUnsafe pool them):
 * kept, it keeps the whole slab. Measured: 16,000 cached frames of ~600 bytes held 118 MiB of slabs while the
 * cache counted 10. Kept buffers that are a small part of their slab get an exact copy of their own.
 */
function ownBytes(e: Encoded): Encoded {
  if (typeof e === 'string' || e.buffer.byteLength <= e.byteLength * 2) return e;
  const copy = Buffer.allocUnsafeSlow(e.byteLength);
  e.copy(copy);
  return copy;
}

export class EncodedCache {
  // A Map iterates in insertion order: re-inserting on a hit makes its first key the least recently used.
  private readonly entries = new Map<object, Entry>();
  /** The entry last moved to the end of `entries` (while it is still there). */
  private newest: object | undefined;
  readonly stats: EncodedCacheStats;

  constructor(readonly maxBytes = 32 * 1024 * 1024) {
    this.stats = { encodings: 0, hits: 0, bytes: 0, maxBytes, evictions: 0 };
  }

  get(obj: object, format: string, encode: () => Encoded): Encoded {
    let entry = this.entries.get(obj);
    const hit = entry?.formats.get(format);
    if (hit !== undefined) {
      this.stats.hits++;
      // One change handed to many watchers hits the same entry many times in a row: it is already the newest.
      if (this.newest !== obj) {
        this.entries.delete(obj);
        this.entries.set(obj, entry!);
        this.newest = obj;
      }
      return hit;
    }
    let bytes = encode();
    this.stats.encodings++;
    const size = sizeOf(bytes);
    // Something bigger than a quarter of the budget would only push everything else out: not kept.
    if (size > this.maxBytes / 4) return bytes;
    bytes = ownBytes(bytes);
    if (!entry) {
      entry = { formats: new Map(), bytes: 0 };
      this.entries.set(obj, entry);
    }
    entry.formats.set(format, bytes);
    this.newest = undefined;
    entry.bytes += size;
    this.stats.bytes += size;
    this.evict(obj);
    return bytes;
  }

  /** Drops least recently used entries until the budget holds (never the one just written). */
  private evict(keep: object): void {
    for (const [obj, entry] of this.entries) {
      if (this.stats.bytes <= this.maxBytes) return;
      if (obj === keep) continue;
      this.entries.delete(obj);
      if (this.newest === obj) this.newest = undefined;
      this.stats.bytes -= entry.bytes;
      this.stats.evictions++;
    }
  }

  get size(): number {
    return this.entries.size;
  }
}
