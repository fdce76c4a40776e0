// System metadata of stored objects, the same for every kind: the group-resource that names a kind in errors,
// selfLinks, uid and creation time of a new object, and the storage form of an object (storage version, field
// order). The registry writes it (store.ts); handlers and the other server files read it from here.

import { randomUUID } from 'node:crypto';
import type { KubeObject } from '../../api/meta.ts';
import type { ResourceDef } from '../../api/registry.ts';
import { canonicalObject, toStorageVersion } from '../../api/conversion.ts';
import { typeSchemaFor } from '../../codec/protobuf-schema.ts';
import { goJsonForm, hasGoJsonForm } from '../../codec/go-json.ts';
import type { GroupResource } from '../errors.ts';

/** What system metadata needs of the server: its clock. */
export interface Clock {
  now(): Date;
}

export function groupResource(def: ResourceDef): GroupResource {
  return { group: def.group, resource: def.resource };
}

/** Base path of a resource for selfLinks: /api/v1 or /apis/<group>/<version>. */
export function groupVersionPath(def: ResourceDef): string {
  return def.group === '' ? `/api/${def.version}` : `/apis/${def.group}/${def.version}`;
}

export function selfLinkOf(def: ResourceDef, namespace: string | undefined, name: string): string {
  const base = groupVersionPath(def);
  return def.namespaced ? `${base}/namespaces/${namespace}/${def.resource}/${name}` : `${base}/${def.resource}/${name}`;
}

/**
 * Converts to the storage version, writes it as the Go encoder would (codec/go-json.ts: non-omitempty fields with
 * their zero value, e.g. a new ReplicationController's `status: {replicas: 0}`; empty omitempty fields left out;
 * non-pointer structs always present) and orders the fields. Kinds without a declared type (custom resources)
 * get `spec` and `status` objects where their schema has them.
 */
export function toStored(def: ResourceDef, obj: KubeObject): KubeObject {
  let stored = toStorageVersion(obj, def.storageApiVersion);
  if (hasGoJsonForm(def.storageApiVersion, def.kind)) stored = goJsonForm(def.storageApiVersion, def.kind, stored);
  else {
    const schema = typeSchemaFor(def.storageApiVersion, def.kind);
    for (const part of ['spec', 'status'] as const) {
      if (schema?.field(part)?.type === 'object' && (stored[part] === undefined || stored[part] === null)) stored[part] = {};
    }
  }
  // A placeholder holds resourceVersion's place in the field order; the store writes the real value.
  return canonicalObject(stored, '0');
}

export function nowTimestamp(ctx: Clock): string {
  const ms = ctx.now().getTime();
  // Every create stamps one: the text of the current second is made once per second.
  if (ms >= lastSecond.from && ms < lastSecond.from + 1000) return lastSecond.text;
  const from = ms - (((ms % 1000) + 1000) % 1000);
  lastSecond = { from, text: new Date(from).toISOString().replace(/\.\d{3}Z$/, 'Z') };
  return lastSecond.text;
}

let lastSecond = { from: Number.NaN, text: '' };

/** System fields of a new object: uid, creationTimestamp, generation, selfLink. */
export function initSystemMeta(ctx: Clock, def: ResourceDef, obj: KubeObject): void {
  const m = obj.metadata;
  m.uid = randomUUID();
  m.creationTimestamp = nowTimestamp(ctx);
  delete m.deletionTimestamp;
  delete m.deletionGracePeriodSeconds;
  delete m.resourceVersion;
  if (def.tracksGeneration) m.generation = 1;
  else delete m.generation;
  if (m.name) m.selfLink = selfLinkOf(def, m.namespace, m.name);
}
