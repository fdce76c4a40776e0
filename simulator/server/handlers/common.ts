// Pieces shared by the verb handlers: reading an object body, naming resources in errors, shaping responses.

import type { KubeObject, Status } from '../../api/meta.ts';
import { apiVersionOf, parseApiVersion } from '../../api/meta.ts';
import type { ResourceDef } from '../../api/registry.ts';
import { convertBodyVersion, fromStorageVersion } from '../../api/conversion.ts';
import { checkBodyShape, decodeAsTyped } from '../shape-check.ts';
import { typeSchemaFor } from '../../codec/protobuf-schema.ts';
import { ApiError, badRequest } from '../errors.ts';
import { groupVersionPath, selfLinkOf } from '../registry/system-meta.ts';
import { decodeBody } from '../serializers.ts';
import { queryBool, queryInt } from '../query-params.ts';
import { header, type ResourceRequest, type ServerContext } from '../context.ts';
import { isJsonNumber } from '../../util/int64-json.ts';

/** A stored object as the request's version shows it. */
export function present(def: ResourceDef, stored: KubeObject): KubeObject {
  const apiVersion = apiVersionOf(def);
  if (stored.apiVersion === apiVersion) {
    // Objects written through another group that shares the storage (extensions/v1beta1 -> apps/v1) carry that
    // group's selfLink; a read through this group shows its own.
    const m = stored.metadata;
    if (m.name === undefined || m.selfLink === undefined || m.selfLink.startsWith(groupVersionPath(def) + '/')) return stored;
    return { ...stored, metadata: { ...m, selfLink: selfLinkOf(def, m.namespace, m.name) } };
  }
  const out = fromStorageVersion(stored, apiVersion);
  if (out.metadata.name !== undefined) out.metadata = { ...out.metadata, selfLink: selfLinkOf(def, out.metadata.namespace, out.metadata.name) };
  return out;
}

/** Decodes a body that must be an object of the path's kind, converting recognised versions (spec 9). */
export function readObjectBody(ctx: ServerContext, req: ResourceRequest, def: ResourceDef = req.def): KubeObject {
  // Custom resources have no protobuf form: such a body is 415, as 1.9 answers (JSON and YAML only).
  const raw = decodeBody(req.body, header(req, 'content-type'), { protobuf: def.customResourceDefinition ? undefined : ctx.protobuf });
  const expected = apiVersionOf(def);
  const apiVersion = raw.apiVersion;
  const kind = raw.kind;
  if (apiVersion !== undefined && typeof apiVersion !== 'string') throw badRequest('the object provided is unrecognized: apiVersion must be a string');
  if (kind !== undefined && typeof kind !== 'string') throw badRequest('the object provided is unrecognized: kind must be a string');
  if (apiVersion && apiVersion !== expected) {
    const gv = parseApiVersion(apiVersion);
    const accepted = gv.group === def.group && (def.acceptedBodyVersions ?? []).includes(apiVersion);
    if (!accepted) throw badRequest(`the API version in the data (${apiVersion}) does not match the expected API version (${expected})`);
  }
  if (kind && kind !== def.kind) {
    throw badRequest(`the object provided is unrecognized (must be of type ${def.kind}): kind "${kind}" in the data does not match the path`);
  }
  if (raw.metadata !== undefined && (raw.metadata === null || typeof raw.metadata !== 'object' || Array.isArray(raw.metadata))) {
    throw badRequest(`${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: metadata must be an object`);
  }
  // Wrong JSON types are 400 (the real decoder fails); unknown fields are dropped, or refused under
  // fieldValidation=Strict (kinds/shape-check.ts); under Warn they become Warning headers.
  const { warnings } = checkBodyShape(def, raw, req.query.fieldValidation);
  if (req.query.fieldValidation === 'Warn') req.warnings.push(...warnings);
  // The decoded body is this request's own (a fresh parse; YAML aliases stay shared, as a copy would keep them).
  const obj = raw as unknown as KubeObject;
  const schema = typeSchemaFor(apiVersion || expected, def.kind);
  if (schema) decodeAsTyped(schema, obj as unknown as Record<string, unknown>);
  if (apiVersion && apiVersion !== expected) convertBodyVersion(obj, apiVersion);
  obj.apiVersion = expected;
  obj.kind = def.kind;
  obj.metadata ??= {};
  checkMetadataTypes(def, obj);
  return obj;
}

const STRING_META = ['name', 'generateName', 'namespace', 'uid', 'resourceVersion', 'selfLink', 'clusterName'] as const;

/** Type errors that the real server's decoder reports as 400 before any validation. */
// Every create and update passes here: no closure per call (under tsx each one is wrapped in a naming helper).
function checkMetadataTypes(def: ResourceDef, obj: KubeObject): void {
  const m = obj.metadata as Record<string, unknown>;
  for (const f of STRING_META) if (m[f] !== undefined && m[f] !== null && typeof m[f] !== 'string') throw badMetadata(def, f, 'a string');
  for (const f of MAP_META) {
    const v = m[f];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'object' || Array.isArray(v)) throw badMetadata(def, f, 'a map of string to string');
    const map = v as Record<string, unknown>;
    for (const k in map) if (Object.hasOwn(map, k) && typeof map[k] !== 'string') throw badMetadata(def, `${f}.${k}`, 'a string');
  }
  if (m.finalizers !== undefined && m.finalizers !== null && (!Array.isArray(m.finalizers) || !m.finalizers.every(isString))) throw badMetadata(def, 'finalizers', 'a list of strings');
  if (m.ownerReferences !== undefined && m.ownerReferences !== null && !Array.isArray(m.ownerReferences)) throw badMetadata(def, 'ownerReferences', 'a list');
  if (m.generation !== undefined && m.generation !== null && !isJsonNumber(m.generation)) throw badMetadata(def, 'generation', 'an integer');
  for (const f of STRING_META) if (m[f] === null) delete m[f];
}

const MAP_META = ['labels', 'annotations'] as const;

function isString(x: unknown): boolean {
  return typeof x === 'string';
}

function badMetadata(def: ResourceDef, field: string, want: string): ApiError {
  return badRequest(`${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: metadata.${field} must be ${want}`);
}


/**
 * A body that must be of one type (DeleteOptions, Scale, Binding, Eviction, DeploymentRollback): another kind in it
 * is 400, as the real decoder refuses it; no kind at all is accepted. `detail` ends the message where the real one does.
 */
export function checkBodyType(raw: Record<string, unknown>, type: string, detail = ''): void {
  if (raw.kind !== undefined && raw.kind !== type) throw badRequest(`the object provided is unrecognized (must be of type ${type}): kind "${String(raw.kind)}"${detail}`);
}

export function successStatus(def: ResourceDef, name: string, uid: string | undefined): Status {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: { name, ...(def.group ? { group: def.group } : {}), kind: def.resource, ...(uid ? { uid } : {}) },
    code: 200,
  };
}

/** An integer query parameter (query-params.ts: Go ParseInt within int32/int64; bad values 400). */
export function intParam(req: ResourceRequest, name: string, opts: { min?: number; bits?: 32 | 64 } = {}): number | undefined {
  const n = queryInt(name, req.query[name], opts.bits ?? 64);
  if (n !== undefined && opts.min !== undefined && n < opts.min) throw badRequest(`invalid value for ${name}: must be at least ${opts.min}`);
  return n;
}

/** A boolean query parameter (query-params.ts: false only for 0, f, false in any case). */
export function boolParam(req: ResourceRequest, name: string): boolean | undefined {
  return queryBool(req.query[name]);
}
