// Encoded bytes of stored objects, kept so that one change sent to many watchers, or one object read many
// times, is encoded once per wire format. Bounded by bytes: an unbounded cache keyed by every object ever read
// would hold a second and third copy of the whole store (measured: 4.5× the objects' JSON in RSS before this
// bound), which is exactly what a cache must not do.
//
// Keys are the stored objects themselves (frozen, never mutated: see storage/README.md), so identity is the
// version: a new write is a new object and can never be answered with stale bytes.
//
// Least recently used out first, by generations: entries go into a young map; when it holds half the budget, the
// old map is dropped whole and the young one becomes old; a hit in the old map moves the entry back to the young
// one. Every step is O(1). An exact LRU over one Map had to find its oldest entry by iterating from the front,
// and a V8 Map keeps deleted entries as holes until it rehashes: measured, 7.8 µs per insert at 12k entries, the
// largest single cost of a create (every create's answer is encoded here).

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
  /** Entries dropped to keep the bound. */
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
  private young = new Map<object, Entry>();
  private old = new Map<object, Entry>();
  private youngBytes = 0;
  private oldBytes = 0;
  readonly stats: EncodedCacheStats;

  constructor(readonly maxBytes = 32 * 1024 * 1024) {
    this.stats = { encodings: 0, hits: 0, bytes: 0, maxBytes, evictions: 0 };
  }

  get(obj: object, format: string, encode: () => Encoded): Encoded {
    const hit = this.touch(obj, format);
    if (hit !== undefined) return hit;
    // An entry of the object in another format: the new one joins it (moved into the young generation below).
    let entry = this.young.get(obj) ?? this.old.get(obj);
    let bytes = encode();
    this.stats.encodings++;
    const size = sizeOf(bytes);
    // Something bigger than a quarter of the budget would only push everything else out: not kept.
    if (size > this.maxBytes / 4) return bytes;
    bytes = ownBytes(bytes);
    entry ??= { formats: new Map(), bytes: 0 };
    // A new entry, or a new format of a young one that takes the generation past its half: placed (again) after
    // the rotation, so that the entry being written is never the one dropped.
    if (this.young.get(obj) !== entry || this.youngBytes + size > this.maxBytes / 2) this.toYoung(obj, entry, size);
    entry.formats.set(format, bytes);
    entry.bytes += size;
    this.youngBytes += size;
    this.stats.bytes = this.youngBytes + this.oldBytes;
    return bytes;
  }

  /**
   * Puts `entry` (new, or held in either generation) into the young generation, rotating first when it and
   * `more` bytes to come would take the young one past half the budget.
   */
  private toYoung(obj: object, entry: Entry, more: number): void {
    if (this.young.get(obj) === entry) {
      this.young.delete(obj);
      this.youngBytes -= entry.bytes;
    } else if (this.old.delete(obj)) this.oldBytes -= entry.bytes;
    if (this.youngBytes + entry.bytes + more > this.maxBytes / 2) this.rotate();
    this.young.set(obj, entry);
    this.youngBytes += entry.bytes;
    this.stats.bytes = this.youngBytes + this.oldBytes;
  }

  /** peek(), and a hit counts as a use: the entry moves back into the young generation, so the next rotation keeps it. */
  touch(obj: object, format: string): Encoded | undefined {
    let entry = this.young.get(obj);
    if (entry === undefined) {
      entry = this.old.get(obj);
      if (entry === undefined) return undefined;
      const hit = entry.formats.get(format);
      if (hit === undefined) return undefined;
      this.toYoung(obj, entry, 0);
    }
    const hit = entry.formats.get(format);
    if (hit !== undefined) this.stats.hits++;
    return hit;
  }

  /** The bytes already held for `obj` in `format`, without encoding or keeping anything. */
  peek(obj: object, format: string): Encoded | undefined {
    const hit = (this.young.get(obj) ?? this.old.get(obj))?.formats.get(format);
    if (hit !== undefined) this.stats.hits++;
    return hit;
  }

  private rotate(): void {
    this.stats.evictions += this.old.size;
    this.old = this.young;
    this.oldBytes = this.youngBytes;
    this.young = new Map();
    this.youngBytes = 0;
    this.stats.bytes = this.oldBytes;
  }

  get size(): number {
    return this.young.size + this.old.size;
  }
}
