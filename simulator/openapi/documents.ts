// The OpenAPI documents: /openapi/v2 (one Swagger 2.0 document of everything) and /openapi/v3 (an index, and one
// OpenAPI 3.0 document per group/version and per discovery root: "api", "api/v1", "apis", "apis/apps",
// "apis/apps/v1", ...). Built from the registry (routes.ts) and the .proto reflection (schemas.ts).

import { createHash } from 'node:crypto';
import { Registry } from '../api/registry.ts';
import { apiVersionOf } from '../api/meta.ts';
import { messageNameForKind } from '../codec/protobuf-schema.ts';
import { buildClosure, PATCH, refPrefix, type Dialect, type GroupVersionKind, type Schema } from './schemas.ts';
import { groupCamel, groupVersions, groupWord, gvkIndex, routesOf, STRING_RESPONSE, type Operation, type Param, type Route } from './routes.ts';

export interface DocumentOptions {
  /** The protobuf media type of objects, application/vnd.<vendor>.protobuf. */
  protobufMediaType: string;
  /** info.version of the documents. */
  version?: string;
  /** The scheme the server is reached by (the operations' `schemes`): https unless it serves plain HTTP. */
  scheme?: 'http' | 'https';
}

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json'];
const RESPONSE_TEXT: Record<string, string> = { '200': 'OK', '201': 'Created', '202': 'Accepted' };

function produces(op: Operation, opts: DocumentOptions): string[] {
  if (op.produces) return op.produces;
  const types = ['application/json', 'application/yaml', opts.protobufMediaType];
  if (op.streams) types.push('application/json;stream=watch', `${opts.protobufMediaType};stream=watch`);
  return types;
}

function consumes(op: Operation, opts: DocumentOptions): string[] {
  if (op.body === PATCH) return PATCH_TYPES;
  // Discovery documents (no action) declare the three media types they are served in, as 1.9 does.
  return op.action === '' ? ['application/json', 'application/yaml', opts.protobufMediaType] : ['*/*'];
}

function extensions(op: Operation): Schema {
  if (!op.action) return {};
  const gvk: GroupVersionKind = { group: op.gvk.group, kind: op.gvk.kind, version: op.gvk.version };
  return { 'x-kubernetes-action': op.action, 'x-kubernetes-group-version-kind': gvk };
}

/** Definitions referred to by the operations of the routes. */
function operationRefs(routes: Route[]): Set<string> {
  const out = new Set<string>();
  for (const r of routes) {
    for (const op of r.operations) {
      if (op.body) out.add(op.body);
      for (const d of Object.values(op.responses)) if (d !== STRING_RESPONSE) out.add(d);
    }
  }
  return out;
}

function withGvk(definitions: Map<string, Schema>, gvks: Map<string, GroupVersionKind[]>): Record<string, Schema> {
  const out: Record<string, Schema> = {};
  for (const [name, schema] of definitions) {
    const list = gvks.get(name);
    out[name] = list ? { ...schema, 'x-kubernetes-group-version-kind': list.map((g) => ({ group: g.group, kind: g.kind, version: g.version })) } : schema;
  }
  return out;
}

function responseSchema(def: string, dialect: Dialect): Schema {
  return def === STRING_RESPONSE ? { type: 'string' } : { $ref: refPrefix(dialect) + def };
}

// ---- v2 ----

function v2Param(p: Param): Schema {
  const out: Schema = { uniqueItems: true, type: p.type, description: p.description, name: p.name, in: p.in };
  if (p.required) out.required = true;
  return out;
}

function v2Operation(op: Operation, opts: DocumentOptions): Schema {
  const parameters: Schema[] = op.query.map(v2Param);
  if (op.body) parameters.unshift({ name: 'body', in: 'body', required: true, schema: { $ref: refPrefix('v2') + op.body } });
  const responses: Schema = {};
  for (const [code, def] of Object.entries(op.responses)) responses[code] = { description: RESPONSE_TEXT[code] ?? 'OK', schema: responseSchema(def, 'v2') };
  responses['401'] = { description: 'Unauthorized' };
  return {
    description: op.description,
    consumes: consumes(op, opts),
    produces: produces(op, opts),
    schemes: [opts.scheme ?? 'https'],
    tags: [op.tag],
    operationId: op.operationId,
    parameters,
    responses,
    ...extensions(op),
  };
}

function v2Paths(routes: Route[], opts: DocumentOptions): Record<string, Schema> {
  const out: Record<string, Schema> = {};
  for (const r of routes) {
    const item: Schema = {};
    for (const op of r.operations) item[op.method] = v2Operation(op, opts);
    if (r.params.length) item.parameters = r.params.map(v2Param);
    out[r.path] = item;
  }
  return out;
}

/** The whole API as one Swagger 2.0 document (GET /openapi/v2). */
/**
 * The kinds the documents describe: every served kind with a type here. Custom resources are left out (1.9's
 * documents had none; their schemas live in their CRDs), and so is any kind without a .proto of its own
 * (CustomResourceDefinition, whose openAPIV3Schema field is free-form JSON).
 */
export function documentedRegistry(registry: Registry): Registry {
  return new Registry(registry.defs.filter((d) => !d.customResourceDefinition && messageNameForKind(apiVersionOf(d), d.kind) !== undefined));
}

export function buildV2Document(all: Registry, opts: DocumentOptions): Schema {
  const registry = documentedRegistry(all);
  const routes: Route[] = [...discoveryRoutes(registry).values()].flat();
  for (const { group, version } of groupVersions(registry)) routes.push(...routesOf(registry, group, version));
  routes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const gvks = gvkIndex(registry);
  const definitions = buildClosure([...operationRefs(routes), ...gvks.keys()], 'v2');
  return {
    swagger: '2.0',
    info: { title: 'Kubernetes', version: opts.version ?? 'v1.9.0' },
    paths: v2Paths(routes, opts),
    definitions: withGvk(definitions, gvks),
  };
}

// ---- v3 ----

function v3Param(p: Param): Schema {
  const out: Schema = { name: p.name, in: p.in, description: p.description, schema: { type: p.type, uniqueItems: true } };
  if (p.required) out.required = true;
  return out;
}

function v3Operation(op: Operation, opts: DocumentOptions): Schema {
  const responses: Schema = {};
  for (const [code, def] of Object.entries(op.responses)) {
    const content: Schema = {};
    for (const mt of produces(op, opts)) content[mt] = { schema: responseSchema(def, 'v3') };
    responses[code] = { description: RESPONSE_TEXT[code] ?? 'OK', content };
  }
  responses['401'] = { description: 'Unauthorized' };
  const out: Schema = { tags: [op.tag], description: op.description, operationId: op.operationId };
  if (op.query.length) out.parameters = op.query.map(v3Param);
  if (op.body) {
    const content: Schema = {};
    for (const mt of consumes(op, opts)) content[mt] = { schema: { $ref: refPrefix('v3') + op.body } };
    out.requestBody = { content, required: op.method !== 'delete' };
  }
  out.responses = responses;
  return { ...out, ...extensions(op) };
}

function v3Document(routes: Route[], gvks: Map<string, GroupVersionKind[]>, opts: DocumentOptions): Schema {
  const paths: Record<string, Schema> = {};
  for (const r of routes) {
    const item: Schema = {};
    for (const op of r.operations) item[op.method] = v3Operation(op, opts);
    if (r.params.length) item.parameters = r.params.map(v3Param);
    paths[r.path] = item;
  }
  const schemas = buildClosure(operationRefs(routes), 'v3');
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: opts.version ?? 'v1.9.0' },
    paths,
    components: { schemas: withGvk(schemas, gvks) },
  };
}

function discoveryRoute(path: string, operationId: string, tag: string, response: string): Route {
  return {
    path,
    params: [],
    operations: [{ method: 'get', operationId, description: path.startsWith('/apis/') && path.split('/').length === 4 ? 'get information of a group' : 'get available API versions', action: '', gvk: { group: '', version: '', kind: '' }, tag, query: [], responses: { '200': response }, streams: false }],
  };
}

/** The discovery roots of the v3 index ("api", "apis", "apis/<group>") and their one route each. */
function discoveryRoutes(registry: Registry): Map<string, Route[]> {
  const out = new Map<string, Route[]>();
  out.set('api', [discoveryRoute('/api/', 'getCoreAPIVersions', 'core', `${META}.APIVersions`)]);
  out.set('apis', [discoveryRoute('/apis/', 'getAPIVersions', 'apis', `${META}.APIGroupList`)]);
  for (const { group } of groupVersions(registry)) {
    if (group === '' || out.has(`apis/${group}`)) continue;
    out.set(`apis/${group}`, [discoveryRoute(`/apis/${group}/`, `get${groupWord(group)}APIGroup`, groupCamel(group), `${META}.APIGroup`)]);
  }
  return out;
}

/** One OpenAPI v3 document per index key ("api/v1", "apis/apps/v1", "apis/apps", "api", "apis"). */
export function buildV3Documents(all: Registry, opts: DocumentOptions): Map<string, Schema> {
  const registry = documentedRegistry(all);
  const gvks = gvkIndex(registry);
  const out = new Map<string, Schema>();
  for (const [key, routes] of discoveryRoutes(registry)) out.set(key, v3Document(routes, gvks, opts));
  for (const { group, version } of groupVersions(registry)) {
    const key = group === '' ? `api/${version}` : `apis/${group}/${version}`;
    out.set(key, v3Document(routesOf(registry, group, version), gvks, opts));
  }
  return new Map([...out.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

// ---- serialized, hashed, cached ----

/** The real server's hash of a document: SHA-512 of its JSON bytes, upper-case hex. */
export function documentHash(bytes: Buffer): string {
  return createHash('sha512').update(bytes).digest('hex').toUpperCase();
}

export interface SerializedDocument {
  json: Buffer;
  hash: string;
}

export interface OpenApiDocuments {
  v2: SerializedDocument;
  /** GET /openapi/v3: {"paths": {"api/v1": {"serverRelativeURL": "/openapi/v3/api/v1?hash=..."}, ...}}. */
  v3Index: SerializedDocument;
  v3: Map<string, SerializedDocument>;
  lastModified: Date;
}

function serialize(doc: unknown): SerializedDocument {
  const json = Buffer.from(JSON.stringify(doc));
  return { json, hash: documentHash(json) };
}

export function buildDocuments(registry: Registry, opts: DocumentOptions, now = new Date()): OpenApiDocuments {
  const v3 = new Map<string, SerializedDocument>();
  for (const [key, doc] of buildV3Documents(registry, opts)) v3.set(key, serialize(doc));
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const [key, doc] of v3) paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${doc.hash}` };
  return { v2: serialize(buildV2Document(registry, opts)), v3Index: serialize({ paths }), v3, lastModified: now };
}

export type { Dialect };
