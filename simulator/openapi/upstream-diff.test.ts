// The served /openapi/v2 against the real 1.9.4 document, for every definition and path the simulator serves:
// properties, types and formats, required, patch strategies and merge keys, group-version-kinds, operations with
// their parameters, consumes, produces and responses (descriptions are the project's own words and are left out).
// Every difference is one line; the only ones allowed are in upstream-differences.ts, each with its reason. The
// protobuf form of the document is encoded from the same JSON (v2-protobuf.ts, documents.test.ts).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Registry } from '../api/registry.ts';
import { buildDocuments, documentedRegistry } from './documents.ts';
import { ALLOWED_DIFFERENCES } from './upstream-differences.ts';

type Json = { [k: string]: any };

const UPSTREAM = new URL('../../../shared/upstream-fixtures/openapi-v1.9.4-swagger.json', import.meta.url);

/** The value without descriptions, keys sorted, as one comparable text. */
function text(value: unknown): string {
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (v && typeof v === 'object') {
      const out: Json = {};
      for (const k of Object.keys(v).sort()) if (k !== 'description') out[k] = strip((v as Json)[k]);
      return out;
    }
    return v;
  };
  return JSON.stringify(strip(value));
}

function compareKeys(where: string, ours: Json | undefined, upstream: Json | undefined, out: string[]): void {
  for (const k of new Set([...Object.keys(ours ?? {}), ...Object.keys(upstream ?? {})])) {
    const a = text(ours?.[k]);
    const b = text(upstream?.[k]);
    if (a !== b) out.push(`${where}${k}: ours ${a} | 1.9 ${b}`);
  }
}

const byName = (params: Json[] | undefined): Json => Object.fromEntries((params ?? []).map((p) => [p.name, p]));

/** Every difference between the two documents over what `ours` serves. */
export function differences(ours: Json, upstream: Json): string[] {
  const out: string[] = [];
  for (const [name, def] of Object.entries<Json>(ours.definitions)) {
    const up = upstream.definitions[name];
    if (!up) {
      out.push(`def ${name}: not in 1.9`);
      continue;
    }
    compareKeys(`def ${name}.`, def.properties, up.properties, out);
    const { properties: _a, description: _c, ...restOurs } = def;
    const { properties: _b, description: _d, ...restUp } = up;
    compareKeys(`def ${name} `, restOurs, restUp, out);
  }
  for (const [path, item] of Object.entries<Json>(ours.paths)) {
    const up = upstream.paths[path];
    if (!up) {
      out.push(`path ${path}: not in 1.9`);
      continue;
    }
    compareKeys(`path ${path} param `, byName(item.parameters), byName(up.parameters), out);
    for (const method of new Set([...Object.keys(item), ...Object.keys(up)])) {
      if (method === 'parameters') continue;
      if (!item[method] || !up[method]) {
        out.push(`path ${path} ${method}: ours ${!!item[method]} 1.9 ${!!up[method]}`);
        continue;
      }
      const { parameters: pa, description: _c, ...opOurs } = item[method];
      const { parameters: pb, description: _d, ...opUp } = up[method];
      // schemes: the simulator says how it is reached (http on its plain port); 1.9 wrote https.
      delete opOurs.schemes;
      delete opUp.schemes;
      compareKeys(`path ${path} ${method} `, opOurs, opUp, out);
      compareKeys(`path ${path} ${method} param `, byName(pa), byName(pb), out);
    }
  }
  return out;
}

test('the served /openapi/v2 equals the real 1.9.4 document apart from the listed differences', () => {
  const docs = buildDocuments(documentedRegistry(new Registry()), { protobufMediaType: 'application/vnd.kubernetes.protobuf', scheme: 'https' });
  const ours = JSON.parse(docs.v2.json.toString('utf8')) as Json;
  const upstream = JSON.parse(readFileSync(UPSTREAM, 'utf8')) as Json;
  const diffs = differences(ours, upstream);
  const unexplained = diffs.filter((d) => !ALLOWED_DIFFERENCES.some((a) => a.match.test(d)));
  assert.deepEqual(unexplained, [], `${unexplained.length} differences from 1.9.4 that upstream-differences.ts does not allow`);
  const unused = ALLOWED_DIFFERENCES.filter((a) => !diffs.some((d) => a.match.test(d))).map((a) => a.reason);
  assert.deepEqual(unused, [], 'allowed differences that no longer occur: remove them');
});

test('the comparison catches what matters: a patch strategy, a required list, a response code, a consumes list', () => {
  const def = { properties: { strategy: { $ref: '#/x' } }, required: ['a'] };
  const up = { definitions: { T: { properties: { strategy: { $ref: '#/x', 'x-kubernetes-patch-strategy': 'retainKeys' } }, required: ['a', 'b'] } }, paths: {} };
  const found = differences({ definitions: { T: def }, paths: {} }, up);
  assert.equal(found.length, 2, found.join('\n'));
  const paths = (responses: Json, consumes: string[]) => ({ '/p': { delete: { consumes, responses, parameters: [] } } });
  const ops = differences({ definitions: {}, paths: paths({ 200: {}, 202: {} }, ['*/*']) }, { definitions: {}, paths: paths({ 200: {} }, ['application/json']) });
  assert.deepEqual(ops.map((l) => l.split(':')[0]), ['path /p delete consumes', 'path /p delete responses']);
});

test('the 1.9 facts the issue names hold in the served document', () => {
  const docs = buildDocuments(documentedRegistry(new Registry()), { protobufMediaType: 'application/vnd.kubernetes.protobuf' });
  const v2 = JSON.parse(docs.v2.json.toString('utf8')) as Json;
  assert.equal(v2.definitions['io.k8s.api.extensions.v1beta1.DeploymentSpec'].properties.strategy['x-kubernetes-patch-strategy'], 'retainKeys');
  assert.equal(v2.definitions['io.k8s.api.apps.v1.DeploymentSpec'].properties.strategy['x-kubernetes-patch-strategy'], undefined);
  assert.deepEqual(v2.definitions['io.k8s.api.core.v1.ConfigMapList'].required, ['items']);
  assert.deepEqual(v2.paths['/api/v1/'].get.consumes, ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf']);
  assert.deepEqual(Object.keys(v2.paths['/api/v1/namespaces/{namespace}/pods/{name}'].delete.responses), ['200', '401']);
  assert.equal(v2.definitions['io.k8s.api.core.v1.EventSeries'].properties.state.type, 'string');
});
