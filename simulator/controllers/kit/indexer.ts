// An index over an informer's cache with named index functions, as client-go's tools/cache Indexer: each index
// function files an object under zero or more values, and `byIndex(name, value)` answers the objects filed there
// without walking the cache. Kept up to date by the informer's events (a handler added before the loops' own, so a
// handler that reads the index sees the event's object already filed).

import type { KubeObject } from '../../api/meta.ts';
import { keyOf, type Informer } from '../../client/informer.ts';

/** Values an object is filed under in one index (none: not in that index). */
export type IndexFunc = (obj: KubeObject) => readonly string[];

export class Indexer<Names extends string = string> {
  /** index name -> value -> object key -> object. */
  private readonly indices = new Map<string, Map<string, Map<string, KubeObject>>>();
  /** object key -> index name -> the values it is filed under now (to unfile it when it changes or goes). */
  private readonly filed = new Map<string, Map<string, readonly string[]>>();

  constructor(
    readonly informer: Informer,
    private readonly funcs: Readonly<Record<Names, IndexFunc>>,
  ) {
    for (const name of Object.keys(funcs)) this.indices.set(name, new Map());
    informer.addEventHandler({ onAdd: (o) => this.put(o), onUpdate: (_old, o) => this.put(o), onDelete: (o) => this.unfile(keyOf(o)) });
  }

  /** The objects filed under `value` in the index `name`, in filing order. */
  byIndex(name: Names, value: string): KubeObject[] {
    return [...(this.indices.get(name)?.get(value)?.values() ?? [])];
  }

  private put(obj: KubeObject): void {
    const key = keyOf(obj);
    const was = this.filed.get(key);
    const now = new Map<string, readonly string[]>();
    for (const [name, fn] of Object.entries(this.funcs) as Array<[string, IndexFunc]>) {
      const values = fn(obj);
      const old = was?.get(name);
      // Unchanged values keep their place (filing order is the order a sync sees the objects in).
      if (old && !sameValues(old, values)) for (const v of old) this.drop(name, v, key);
      const index = this.indices.get(name) as Map<string, Map<string, KubeObject>>;
      for (const v of values) {
        let m = index.get(v);
        if (!m) index.set(v, (m = new Map()));
        m.set(key, obj);
      }
      now.set(name, values);
    }
    this.filed.set(key, now);
  }

  private unfile(key: string): void {
    const was = this.filed.get(key);
    if (!was) return;
    this.filed.delete(key);
    for (const [name, values] of was) for (const v of values) this.drop(name, v, key);
  }

  private drop(name: string, value: string, key: string): void {
    const index = this.indices.get(name);
    const m = index?.get(value);
    m?.delete(key);
    if (m?.size === 0) index?.delete(value);
  }
}

const sameValues = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((v, i) => v === b[i]);
