// How EtcdStore lays out keys and values in etcd.
//
// Values: the object as JSON (int64 exact, util/int64-json.ts) without metadata.resourceVersion, which is derived from the key's mod_revision on
// every read (as the real apiserver does), so a value never disagrees with the revision that wrote it.
// Keys: the store's keys (/registry/<resource>/...) moved under a configurable etcd prefix, so several clusters (or
// test runs) can share one etcd and `etcdctl get --prefix /registry/` shows what a real cluster would.

import type { KubeObject } from '../api/meta.ts';
import { parseJson, stringifyJson } from '../util/int64-json.ts';

/** ObjectMeta fields that come before resourceVersion in the real server's (Go struct) order. */
const META_BEFORE_RV = new Set(['name', 'generateName', 'namespace', 'selfLink', 'uid']);

/** Bytes to store for `obj`; refuses what the memory store refuses (same TypeErrors), so the backends agree. */
export function encodeValue(obj: KubeObject): Buffer {
  return Buffer.from(encodeText(obj), 'utf8');
}

/** The JSON text of encodeValue (a write decodes what it stored from this, without reading the bytes back). */
export function encodeText(obj: KubeObject): string {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) {
    throw new TypeError('store: the value must be a JSON object');
  }
  const m = obj.metadata as unknown;
  if (typeof m !== 'object' || m === null || Array.isArray(m)) {
    throw new TypeError('store: the value must have a metadata object');
  }
  const { resourceVersion: _rv, ...metadata } = obj.metadata;
  let text: string;
  try {
    text = stringifyJson({ ...obj, metadata });
  } catch (err) {
    throw new TypeError(`store: the value is not representable as JSON: ${(err as Error).message}`);
  }
  return text;
}

const ARRAY_INDEX = /^(0|[1-9][0-9]*)$/;

/**
 * Where decodeValue puts resourceVersion in `text` = encodeText(obj): the offset of the metadata member it goes
 * before (the first one not in META_BEFORE_RV), found by measuring the JSON of each member ahead of it (JSON.stringify
 * of the whole is the members' own texts joined, and its output is canonical). A create splices the member in there
 * to have the answer's JSON (StoredObject.json) without encoding the object a second time. undefined when nothing
 * follows the place in metadata (the member would end it) or when a toJSON of the object or its metadata decides.
 */
export function resourceVersionOffset(obj: KubeObject): number | undefined {
  if (typeof (obj as { toJSON?: unknown }).toJSON === 'function') return undefined;
  const top = obj as unknown as Record<string, unknown>;
  let off = 1; // {
  for (const k of Object.keys(top)) {
    if (k !== 'metadata') {
      const v = stringifyJson(top[k]) as string | undefined;
      if (v !== undefined) off += JSON.stringify(k).length + v.length + 2; // "k":v,
      continue;
    }
    const meta = obj.metadata as unknown as Record<string, unknown>;
    if (typeof meta.toJSON === 'function') return undefined;
    off += 12; // "metadata":{
    for (const m of Object.keys(meta)) {
      if (m === 'resourceVersion') continue;
      // An array-index key ("0") orders before every other one in a JS object, so the decoded metadata has
      // resourceVersion after it whatever the text says: not worth following (no real object has one).
      if (ARRAY_INDEX.test(m)) return undefined;
      const v = stringifyJson(meta[m]) as string | undefined;
      if (v === undefined) continue; // absent from the text, as from the decoded object
      if (!META_BEFORE_RV.has(m)) return off;
      off += JSON.stringify(m).length + v.length + 2;
    }
    return undefined;
  }
  return undefined;
}

/**
 * The compact JSON of decodeValue(text, revision), made by splicing the resourceVersion member into `text` at
 * `offset` (resourceVersionOffset); undefined when the offset does not sit between two members of the text.
 */
export function jsonWithResourceVersion(text: string, offset: number | undefined, revision: number): string | undefined {
  if (offset === undefined || text.charCodeAt(offset) !== 0x22 /* " */) return undefined;
  const before = text.charCodeAt(offset - 1);
  if (before !== 0x7b /* { */ && before !== 0x2c /* , */) return undefined;
  return `${text.slice(0, offset)}"resourceVersion":"${revision}",${text.slice(offset)}`;
}

/** The object of a JSON text that already carries its resourceVersion (jsonWithResourceVersion), deep-frozen. */
export function decodeStamped(json: string): KubeObject {
  return deepFreeze(parseJson(json) as KubeObject);
}

function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null) {
    for (const child of Object.values(v)) deepFreeze(child);
    Object.freeze(v);
  }
  return v;
}

/**
 * The object stored in `bytes`, stamped with resourceVersion = `revision` at its Go-struct position (after uid),
 * and deep-frozen: the memory store hands out frozen objects, and code that mutates what a store returns should
 * fail the same way on both backends.
 */
export function decodeValue(bytes: Buffer | Uint8Array | string, revision: number): KubeObject {
  const text = typeof bytes === 'string' ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  const obj = parseJson(text) as KubeObject;
  return deepFreeze(stampResourceVersion(obj, revision));
}

function stampResourceVersion(obj: KubeObject, revision: number): KubeObject {
  const metadata: Record<string, unknown> = {};
  let placed = false;
  for (const [k, v] of Object.entries(obj.metadata)) {
    if (!placed && !META_BEFORE_RV.has(k)) {
      metadata.resourceVersion = String(revision);
      placed = true;
    }
    if (k !== 'resourceVersion') metadata[k] = v;
  }
  if (!placed) metadata.resourceVersion = String(revision);
  obj.metadata = metadata as KubeObject['metadata'];
  return obj;
}

/** A frozen object re-stamped with another resourceVersion (the DELETED event's object). */
export function withResourceVersion(obj: KubeObject, revision: number): KubeObject {
  return deepFreeze(stampResourceVersion({ ...obj, metadata: { ...obj.metadata } }, revision));
}

/**
 * Store keys <-> etcd keys. Every store key starts with `root` (default "/registry", the simulator's key root);
 * in etcd that root is replaced by `prefix` (default also "/registry", the apiserver's --etcd-prefix default).
 */
export class KeyMapper {
  constructor(
    readonly root: string,
    readonly prefix: string,
  ) {}

  toEtcd(key: string): Buffer {
    if (typeof key !== 'string' || key === '') throw new TypeError('store: key must be a non-empty string');
    if (!key.startsWith(this.root)) throw new TypeError(`store: key ${JSON.stringify(key)} is not under ${JSON.stringify(this.root)}`);
    return Buffer.from(this.prefix + key.slice(this.root.length), 'utf8');
  }

  /** A store prefix as an etcd prefix; a store prefix shorter than the root (e.g. "") means the whole root. */
  prefixToEtcd(prefix: string): Buffer {
    if (this.root.startsWith(prefix)) return Buffer.from(this.prefix, 'utf8');
    return this.toEtcd(prefix);
  }

  fromEtcd(key: Buffer | Uint8Array): string {
    const s = Buffer.from(key).toString('utf8');
    return this.root + s.slice(this.prefix.length);
  }
}

/** The smallest key greater than every key with this prefix (etcd's range_end for a prefix). */
export function prefixEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i] < 0xff) {
      end[i]++;
      return end.subarray(0, i + 1);
    }
  }
  return Buffer.from([0]); // all 0xff (or empty): to the end of the keyspace
}
