// Definitions (OpenAPI v2) and component schemas (OpenAPI v3) of every type the simulator serves, derived from
// the .proto reflection (simulator/codec/protobuf-schema.ts): field names, shapes, integer widths and the patch
// strategies and merge keys all come from there. What a .proto cannot say (required fields) is in required.ts;
// the descriptions of types and fields are data in simulator/api/types/descriptions/.
//
// Names are those of the real server: the protobuf package with its "k8s.io." prefix turned into "io.k8s."
// (io.k8s.api.core.v1.ConfigMap, io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta, ...).

import { protoMessage, typeSchemaByName, type ProtoField, type ProtoMessage } from '../codec/protobuf-schema.ts';
import { REQUIRED_FIELDS } from './required.ts';
import { describeField, describeType } from '../api/types/descriptions/index.ts';

export type Dialect = 'v2' | 'v3';

/** A JSON-schema object as the documents carry it. */
export type Schema = { [key: string]: unknown };

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
export const TIME = `${META}.Time`;
export const MICRO_TIME = `${META}.MicroTime`;
export const DURATION = `${META}.Duration`;
export const PATCH = `${META}.Patch`;
export const INT_OR_STRING = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';
export const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
export const RAW_EXTENSION = 'io.k8s.apimachinery.pkg.runtime.RawExtension';

/** "k8s.io.api.core.v1.Pod" -> "io.k8s.api.core.v1.Pod". */
export function definitionName(protoFullName: string): string {
  const bare = protoFullName.startsWith('.') ? protoFullName.slice(1) : protoFullName;
  return bare.startsWith('k8s.io.') ? `io.k8s.${bare.slice('k8s.io.'.length)}` : bare;
}

function protoName(definition: string): string {
  return definition.startsWith('io.k8s.') ? `k8s.io.${definition.slice('io.k8s.'.length)}` : definition;
}

export function refPrefix(dialect: Dialect): string {
  return dialect === 'v2' ? '#/definitions/' : '#/components/schemas/';
}

/** The definition a $ref points at, or undefined for a ref of another document part. */
export function refTarget(ref: string, dialect: Dialect): string | undefined {
  const prefix = refPrefix(dialect);
  return ref.startsWith(prefix) ? ref.slice(prefix.length) : undefined;
}

/**
 * Types whose JSON form is not an object: the real server describes them with a schema of their own (a
 * definition each) and refers to them from fields. IntOrString and Quantity say "either" differently in v2
 * (a string with a format) and v3 (oneOf).
 */
function specialShape(name: string, dialect: Dialect): Schema | undefined {
  switch (name) {
    case TIME:
    case MICRO_TIME:
      return { type: 'string', format: 'date-time' };
    case DURATION:
      return { type: 'string' };
    case INT_OR_STRING:
      return dialect === 'v2' ? { type: 'string', format: 'int-or-string' } : { format: 'int-or-string', oneOf: [{ type: 'integer' }, { type: 'string' }] };
    case QUANTITY:
      return dialect === 'v2' ? { type: 'string' } : { oneOf: [{ type: 'string' }, { type: 'number' }] };
    case RAW_EXTENSION:
    case PATCH:
      return { type: 'object' };
    default:
      return undefined;
  }
}

/** A special definition with its description (api/types/descriptions/meta-v1.ts) first, as the real documents order it. */
function specialDefinition(name: string, dialect: Dialect): Schema | undefined {
  const shape = specialShape(name, dialect);
  if (!shape) return undefined;
  const description = describeType(name);
  return description ? { description, ...shape } : shape;
}

/** A schema with its description first; a bare reference is wrapped (v3: allOf) so the description is not a sibling of $ref that readers ignore. */
function described(schema: Schema, description: string | undefined, dialect: Dialect): Schema {
  if (!description) return schema;
  if (dialect === 'v3' && typeof schema.$ref === 'string') return { description, allOf: [{ $ref: schema.$ref }] };
  return { description, ...schema };
}

const SPECIAL_KIND_DEFINITION: Readonly<Record<string, string>> = {
  time: TIME,
  microtime: MICRO_TIME,
  duration: DURATION,
  intstr: INT_OR_STRING,
  quantity: QUANTITY,
  raw: RAW_EXTENSION,
};

function scalarSchema(kind: ProtoField['kind']): Schema | undefined {
  switch (kind) {
    case 'string':
      return { type: 'string' };
    case 'bool':
      return { type: 'boolean' };
    case 'int32':
    case 'uint32':
      return { type: 'integer', format: 'int32' };
    case 'int64':
    case 'uint64':
      return { type: 'integer', format: 'int64' };
    case 'bytes':
      return { type: 'string', format: 'byte' };
    case 'stringlist':
      return { type: 'array', items: { type: 'string' } };
    default:
      return undefined;
  }
}

/** Which definitions one schema refers to directly, collected while building it. */
type Refs = Set<string>;

function ref(name: string, dialect: Dialect, refs: Refs): Schema {
  refs.add(name);
  return { $ref: refPrefix(dialect) + name };
}

/** The schema of one value of a field (an element, for lists and maps). */
function valueSchema(field: ProtoField, dialect: Dialect, refs: Refs, asElement: boolean): Schema {
  const scalar = scalarSchema(field.kind);
  if (scalar) return scalar;
  const special = SPECIAL_KIND_DEFINITION[field.kind];
  if (special) return ref(special, dialect, refs);
  const target = definitionName(field.messageName!);
  // v3 of the real server wraps a reference to a struct held by value in allOf with an empty default; pointers
  // and references without siblings stay bare.
  if (dialect === 'v3' && (asElement || !field.pointer)) return { allOf: [ref(target, dialect, refs)], default: {} };
  return ref(target, dialect, refs);
}

function propertySchema(field: ProtoField, dialect: Dialect, refs: Refs): Schema {
  let out: Schema;
  if (field.mapKey) out = { type: 'object', additionalProperties: valueSchema(field, dialect, refs, true) };
  else if (field.repeated) out = { type: 'array', items: valueSchema(field, dialect, refs, true) };
  else out = valueSchema(field, dialect, refs, false);
  if (field.patchMergeKey) out['x-kubernetes-patch-merge-key'] = field.patchMergeKey;
  if (field.patchStrategy) out['x-kubernetes-patch-strategy'] = field.patchStrategy;
  return out;
}

/** Fields of a message with inline (embedded) structs flattened, as they appear in JSON. */
function jsonFields(msg: ProtoMessage): ProtoField[] {
  const out: ProtoField[] = [];
  for (const f of msg.fields) {
    if (f.inline && f.messageName) {
      const inner = protoMessage(f.messageName);
      if (inner) out.push(...jsonFields(inner));
    } else {
      out.push(f);
    }
  }
  return out;
}

export interface BuiltDefinition {
  schema: Schema;
  /** Definitions this one refers to. */
  refs: Set<string>;
}

/** One definition by name, or undefined when no such type exists. GVK extensions are added by the caller. */
export function buildDefinition(name: string, dialect: Dialect): BuiltDefinition | undefined {
  const special = specialDefinition(name, dialect);
  if (special) return { schema: special, refs: new Set() };
  const msg = protoMessage(protoName(name));
  if (!msg) return undefined;
  const refs: Refs = new Set();
  const properties: Record<string, Schema> = {};
  // Kinds carry apiVersion and kind in JSON (TypeMeta); the reflection says which messages are kinds.
  // (A WatchEvent is registered as a kind but its definition in 1.9 has only type and object.)
  const isKind = typeSchemaByName(name)?.field('kind') !== undefined && !msg.fields.some((f) => f.name === 'kind') && !name.endsWith('.WatchEvent');
  if (isKind) {
    properties.apiVersion = described({ type: 'string' }, describeField(name, 'apiVersion'), dialect);
    properties.kind = described({ type: 'string' }, describeField(name, 'kind'), dialect);
  }
  for (const f of jsonFields(msg)) properties[f.name] = described(propertySchema(f, dialect, refs), describeField(name, f.name), dialect);
  const sorted: Record<string, Schema> = {};
  for (const k of Object.keys(properties).sort()) sorted[k] = properties[k];
  const description = describeType(name);
  // 1.9's v2 definitions of structs carry no `type` (their properties say it); v3 documents of later servers do.
  const schema: Schema = { ...(description ? { description } : {}), ...(dialect === 'v3' ? { type: 'object' } : {}), properties: sorted };
  const required = REQUIRED_FIELDS[name];
  if (required) schema.required = required.filter((r) => r in properties);
  return { schema, refs };
}

/**
 * Every definition reachable from the roots, each built once. Returns them sorted by name (the real server's
 * documents are sorted too), which keeps the documents and their hashes stable.
 */
export function buildClosure(roots: Iterable<string>, dialect: Dialect): Map<string, Schema> {
  const built = new Map<string, Schema>();
  const queue = [...roots];
  while (queue.length) {
    const name = queue.pop()!;
    if (built.has(name)) continue;
    const def = buildDefinition(name, dialect);
    if (!def) throw new Error(`openapi: no type ${name}`);
    built.set(name, def.schema);
    for (const r of def.refs) if (!built.has(r)) queue.push(r);
  }
  return new Map([...built.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
