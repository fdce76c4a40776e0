// The real project's serialized fixtures (../shared/upstream-fixtures/k8s-api-testdata-v1.14.0/: one fuzzed object
// per kind in JSON, YAML and protobuf, written by the v1.14.0 code) seen as 1.9 would write them: fields the 1.9.4
// OpenAPI document does not declare are removed, from the JSON by walking it with the document's definitions and
// from the protobuf bytes by walking the wire with the field numbers of proto-fields-v1.14.0.json (the bytes of
// every field kept are copied unchanged, so what remains is exactly what 1.14 wrote for the 1.9 fields).

import { readFileSync, readdirSync } from 'node:fs';
import protobuf from 'protobufjs/minimal.js';

type Json = { [k: string]: any };

const ROOT = new URL('../../../shared/upstream-fixtures/', import.meta.url);
const TESTDATA = new URL('k8s-api-testdata-v1.14.0/', ROOT);

let swagger: Json | undefined;
let protoFields: Record<string, Record<string, string[]>> | undefined;

export const upstreamSwagger = (): Json => (swagger ??= JSON.parse(readFileSync(new URL('openapi-v1.9.4-swagger.json', ROOT), 'utf8')) as Json);
const fields = () => (protoFields ??= JSON.parse(readFileSync(new URL('proto-fields-v1.14.0.json', ROOT), 'utf8')) as Record<string, Record<string, string[]>>);

export interface Fixture {
  /** "core.v1.Pod" */
  name: string;
  apiVersion: string;
  kind: string;
  json: string;
  yaml: string;
  pb: Buffer;
}

/** Every fixture, with the apiVersion and kind its file name says. */
export function upstreamFixtures(): Fixture[] {
  const names = [...new Set(readdirSync(TESTDATA).map((f) => f.replace(/\.(json|yaml|pb)$/, '')))].sort();
  return names.map((name) => {
    const [group, version, kind] = name.split('.');
    const read = (ext: string) => readFileSync(new URL(`${name}.${ext}`, TESTDATA));
    return { name, apiVersion: group === 'core' ? version : `${group}/${version}`, kind, json: read('json').toString('utf8'), yaml: read('yaml').toString('utf8'), pb: read('pb') };
  });
}

const refName = (schema: Json | undefined): string | undefined =>
  typeof schema?.$ref === 'string' ? schema.$ref.slice('#/definitions/'.length) : undefined;

/** The definition a property's values (elements, map values) have, if any. */
function valueDefinition(prop: Json | undefined): string | undefined {
  return refName(prop) ?? refName(prop?.items) ?? refName(prop?.additionalProperties);
}

/** A copy of the JSON value without the fields the 1.9 definition lacks (recursively). */
export function stripToDefinition(value: unknown, definition: string | undefined): unknown {
  const def = definition ? upstreamSwagger().definitions[definition] : undefined;
  if (Array.isArray(value)) return value.map((v) => stripToDefinition(v, definition));
  if (!def?.properties || value === null || typeof value !== 'object') return value;
  const out: Json = {};
  for (const [k, v] of Object.entries(value as Json)) {
    const prop = def.properties[k];
    if (!prop) continue;
    const inner = valueDefinition(prop);
    if (prop.additionalProperties && v && typeof v === 'object') {
      out[k] = Object.fromEntries(Object.entries(v as Json).map(([mk, mv]) => [mk, stripToDefinition(mv, inner)]));
    } else out[k] = stripToDefinition(v, inner);
  }
  return out;
}

/** "k8s.io.api.core.v1.Pod" -> "io.k8s.api.core.v1.Pod" */
const definitionOf = (message: string): string => (message.startsWith('k8s.io.') ? `io.k8s.${message.slice('k8s.io.'.length)}` : message);

interface WireField {
  id: number;
  wireType: number;
  /** The whole field (tag and value). */
  start: number;
  end: number;
  /** Where the value starts: after the tag (varint), after the length (length-delimited). */
  valueStart: number;
}

function readWire(buf: Uint8Array): WireField[] {
  const r = protobuf.Reader.create(buf);
  const out: WireField[] = [];
  while (r.pos < buf.length) {
    const start = r.pos;
    const tag = r.uint32();
    const wireType = tag & 7;
    let valueStart = r.pos;
    if (wireType === 2) {
      const len = r.uint32();
      valueStart = r.pos;
      r.pos += len;
    } else r.skipType(wireType);
    out.push({ id: tag >>> 3, wireType, start, end: r.pos, valueStart });
  }
  return out;
}

function varint(n: number): Buffer {
  const w = protobuf.Writer.create();
  w.uint32(n);
  return Buffer.from(w.finish());
}

function lengthDelimited(id: number, body: Uint8Array): Buffer {
  return Buffer.concat([varint((id << 3) | 2), varint(body.length), body]);
}

function definitionProperties(definition: string | undefined): Json | undefined {
  return definition ? upstreamSwagger().definitions[definition]?.properties : undefined;
}

/**
 * The message's bytes without the fields the 1.9 definition lacks. `properties` are the 1.9 JSON properties its
 * fields may carry (an inline struct's are its parent's); a message without properties is kept whole.
 */
function filterMessage(buf: Uint8Array, message: string, properties: Json | undefined): Buffer {
  const declared = fields()[message];
  if (!declared || !properties) return Buffer.from(buf);
  const parts: Buffer[] = [];
  for (const f of readWire(buf)) {
    const decl = declared[String(f.id)];
    if (!decl) continue;
    const [name, label, type, valueType] = decl;
    const childType = label === 'map' ? valueType : type;
    const child = fields()[childType];
    const inline = !(name in properties) && !!child && Object.values(child).some((c) => c[0] in properties);
    if (!(name in properties) && !inline) continue;
    if (f.wireType !== 2 || !child) {
      parts.push(Buffer.from(buf.subarray(f.start, f.end)));
      continue;
    }
    const body = buf.subarray(f.valueStart, f.end);
    if (inline) parts.push(lengthDelimited(f.id, filterMessage(body, childType, properties)));
    else if (label === 'map') {
      const entry: Buffer[] = [];
      const valueProperties = definitionProperties(valueDefinition(properties[name]));
      for (const e of readWire(body)) {
        const value = body.subarray(e.valueStart, e.end);
        if (e.id === 2 && e.wireType === 2) entry.push(lengthDelimited(2, filterMessage(value, valueType, valueProperties)));
        else entry.push(Buffer.from(body.subarray(e.start, e.end)));
      }
      parts.push(lengthDelimited(f.id, Buffer.concat(entry)));
    } else parts.push(lengthDelimited(f.id, filterMessage(body, childType, definitionProperties(valueDefinition(properties[name])))));
  }
  return Buffer.concat(parts);
}

/**
 * The object's protobuf body (4-byte prefix + runtime.Unknown) with the fields 1.9 lacks removed from its raw
 * object.
 */
export function stripProtobufTo19(pb: Buffer, message: string): Buffer {
  const body = pb.subarray(4);
  const parts: Buffer[] = [Buffer.from(pb.subarray(0, 4))];
  for (const f of readWire(body)) {
    if (f.id === 2 && f.wireType === 2) {
      parts.push(lengthDelimited(2, filterMessage(body.subarray(f.valueStart, f.end), message, definitionProperties(definitionOf(message)))));
    } else parts.push(Buffer.from(body.subarray(f.start, f.end)));
  }
  return Buffer.concat(parts);
}
