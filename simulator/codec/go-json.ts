// The JSON the real 1.9 server writes for an object: what Go's encoding/json makes of the typed struct the
// object decodes into. Derived from the same declarations as the protobuf codec (the .proto files with their
// (k8s.pointer), (k8s.emitEmpty) and (k8s.inline) options), and following the same rules as the codec's
// decoder (protobuf.ts fieldEmitter), so that a JSON write and a protobuf write of one object store the same
// thing and `goJsonForm(x)` equals `decodeObject(encodeObject(x))` on every declared field:
// - a field without omitempty shows its zero value when absent (ReplicationController `status.replicas: 0`);
// - an omitempty field holding its zero value (`""`, `0`, `false`, `[]`, `{}`, null) is left out;
// - a non-pointer struct always shows (`status: {...}`, a template's `creationTimestamp: null`); a pointer
//   shows only when set;
// - fields the type does not declare are kept (strict field validation and unknown-field warnings are the
//   server's business, server/shape-check.ts).
// The walk copies only what it changes: an object already in that form comes back as the same reference.

import { messageNameForKind, protoMessage, type ProtoField, type ValueKind } from './protobuf-schema.ts';

type Json = Record<string, unknown>;

/** What one declared field needs. */
interface FieldPlan {
  readonly name: string;
  /** 'list' and 'map' hold elements of `element`; 'message' recurses into `message`. */
  readonly shape: 'scalar' | 'special' | 'message' | 'list' | 'map';
  readonly element: 'scalar' | 'special' | 'message';
  readonly pointer: boolean;
  readonly emitEmpty: boolean;
  /** The JSON of the Go zero value (a factory for objects and arrays). */
  readonly zero: () => unknown;
  /** The scalar zero that omitempty drops. */
  readonly scalarZero: unknown;
  message?: MessagePlan;
}

interface MessagePlan {
  /** Own fields and the fields of inline structs, flattened (their JSON lives in this object). */
  readonly fields: FieldPlan[];
}

const SCALAR_ZERO: Readonly<Record<string, unknown>> = {
  string: '',
  bytes: '',
  bool: false,
  int32: 0,
  int64: 0,
  uint32: 0,
  uint64: 0,
};

// The JSON of a non-pointer special type's zero value, as the codec's decoder shows it.
const SPECIAL_ZERO: Readonly<Record<string, () => unknown>> = {
  time: () => null,
  microtime: () => null,
  duration: () => '0s',
  intstr: () => 0,
  quantity: () => '0',
  raw: () => null,
  stringlist: () => [],
};

const plans = new Map<string, MessagePlan>();

function elementOf(kind: ValueKind): FieldPlan['element'] {
  if (kind === 'message') return 'message';
  return kind in SCALAR_ZERO ? 'scalar' : 'special';
}

function planFor(fullName: string): MessagePlan {
  let plan = plans.get(fullName);
  if (plan) return plan;
  const msg = protoMessage(fullName);
  if (!msg) throw new Error(`go-json: no message ${fullName}`);
  plan = { fields: [] };
  // Registered before its fields are planned, so that recursive types (JSONSchemaProps) end.
  plans.set(fullName, plan);
  addFields(plan.fields, msg.fields);
  return plan;
}

function addFields(out: FieldPlan[], fields: readonly ProtoField[]): void {
  for (const f of fields) {
    if (f.inline) {
      addFields(out, protoMessage(f.messageName as string)?.fields ?? []);
      continue;
    }
    const element = elementOf(f.kind);
    const shape: FieldPlan['shape'] = f.mapKey ? 'map' : f.repeated ? 'list' : element;
    const plan: FieldPlan = {
      name: f.name,
      shape,
      element,
      pointer: f.pointer,
      emitEmpty: f.emitEmpty,
      scalarZero: SCALAR_ZERO[f.kind],
      zero: zeroFactory(f, shape),
    };
    if (element === 'message') {
      const name = f.messageName as string;
      // Resolved on first use: the field's message may be the one being planned.
      Object.defineProperty(plan, 'message', { get: () => planFor(name), enumerable: true });
    }
    out.push(plan);
  }
}

function zeroFactory(f: ProtoField, shape: FieldPlan['shape']): () => unknown {
  if (shape === 'list') return () => [];
  if (shape === 'map') return () => ({});
  if (shape === 'message') {
    const name = f.messageName as string;
    return () => normalizeMessage(planFor(name), {});
  }
  if (shape === 'special') return SPECIAL_ZERO[f.kind];
  const z = SCALAR_ZERO[f.kind];
  return () => z;
}

function isObj(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** One element of a list or a map value. */
function normalizeElement(p: FieldPlan, v: unknown): unknown {
  if (p.element === 'message' && isObj(v)) return normalizeMessage(p.message as MessagePlan, v);
  return v;
}

/** The field's JSON after the rules; `undefined` means absent. */
function normalizeField(p: FieldPlan, v: unknown): unknown {
  switch (p.shape) {
    case 'list': {
      if (v === undefined || v === null) return p.emitEmpty ? [] : undefined;
      if (!Array.isArray(v)) return v;
      if (v.length === 0) return p.emitEmpty ? v : undefined;
      if (p.element !== 'message') return v;
      let out = v;
      for (let i = 0; i < v.length; i++) {
        const e = normalizeElement(p, v[i]);
        if (e !== v[i]) {
          if (out === v) out = v.slice();
          out[i] = e;
        }
      }
      return out;
    }
    case 'map': {
      if (v === undefined || v === null) return p.emitEmpty ? {} : undefined;
      if (!isObj(v)) return v;
      let empty = true;
      let out = v;
      for (const k in v) {
        if (!Object.hasOwn(v, k)) continue;
        empty = false;
        if (p.element !== 'message') break;
        const e = normalizeElement(p, v[k]);
        if (e !== v[k]) {
          if (out === v) out = { ...v };
          out[k] = e;
        }
      }
      if (empty) return p.emitEmpty ? v : undefined;
      return out;
    }
    case 'message':
      if (v === undefined || v === null) return p.pointer && !p.emitEmpty ? undefined : p.zero();
      return isObj(v) ? normalizeMessage(p.message as MessagePlan, v) : v;
    case 'special':
      if (v === undefined || v === null) return p.pointer && !p.emitEmpty ? undefined : p.zero();
      return v;
    default:
      if (v === undefined || v === null) return p.emitEmpty ? p.scalarZero : undefined;
      if (v === p.scalarZero && !p.pointer && !p.emitEmpty) return undefined;
      return v;
  }
}

function normalizeMessage(plan: MessagePlan, obj: Json): Json {
  let out = obj;
  const fields = plan.fields;
  for (let i = 0; i < fields.length; i++) {
    const p = fields[i];
    const had = Object.hasOwn(obj, p.name);
    const v = had ? obj[p.name] : undefined;
    const next = normalizeField(p, v);
    if (next === v && (had || next === undefined)) continue;
    if (out === obj) out = { ...obj };
    if (next === undefined) delete out[p.name];
    else out[p.name] = next;
  }
  return out;
}

/**
 * The object as the Go encoder writes it (see the head of this file), or the object itself when it is already in
 * that form or its kind has no declared type (custom resources). `apiVersion` and `kind` name its type (a stored
 * object's are its own).
 */
export function goJsonForm<T extends object>(apiVersion: string, kind: string, obj: T): T {
  const name = messageNameForKind(apiVersion, kind);
  if (!name || !isObj(obj)) return obj;
  return normalizeMessage(planFor(name), obj) as T;
}

/** Whether the kind has a declared type that goJsonForm follows. */
export function hasGoJsonForm(apiVersion: string, kind: string): boolean {
  return messageNameForKind(apiVersion, kind) !== undefined;
}
