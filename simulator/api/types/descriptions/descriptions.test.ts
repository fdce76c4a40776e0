// Every definition of the OpenAPI documents (v2 and every v3 document) and every property of each has a
// description (the tables beside this file), so `kubectl explain` prints text for every kind and field; the spec's
// words are used where the spec describes a field in its table form; descriptions are sentences, never copies of
// the field name; no table entry is left unused by the documents (a typo or a stale type).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from '../../registry.ts';
import { buildDocuments, documentedRegistry } from '../../../openapi/documents.ts';
import { loadSpecTables } from '../../../../spec-tables/index.ts';
import { describeField, describeType, TABLES } from './index.ts';

type Json = { [k: string]: any };

const docs = buildDocuments(documentedRegistry(new Registry()), { protobufMediaType: 'application/vnd.kubernetes.protobuf' });
const v2: Json = JSON.parse(docs.v2.json.toString('utf8'));
const v3 = [...docs.v3].map(([key, d]) => [key, JSON.parse(d.json.toString('utf8')) as Json] as const);

function missing(definitions: Record<string, Json>, where: string): string[] {
  const out: string[] = [];
  for (const [name, schema] of Object.entries(definitions)) {
    if (typeof schema.description !== 'string' || schema.description.trim() === '') out.push(`${where} ${name}`);
    for (const [prop, p] of Object.entries<Json>(schema.properties ?? {})) {
      if (typeof p.description !== 'string' || p.description.trim() === '') out.push(`${where} ${name}.${prop}`);
    }
  }
  return out;
}

const HOW_TO_FIX = 'add the description to the table of its API package in simulator/api/types/descriptions/ (one file per package)';

describe('OpenAPI descriptions', () => {
  it('every v2 definition and every property of it is described', () => {
    const gaps = missing(v2.definitions, 'v2');
    assert.deepEqual(gaps, [], `${gaps.length} without a description; ${HOW_TO_FIX}:\n${gaps.join('\n')}`);
    assert.ok(Object.keys(v2.definitions).length > 200, 'Object.keys(v2.definitions).length > 200');
  });

  it('every v3 document\'s schemas and their properties are described', () => {
    const gaps = v3.flatMap(([key, doc]) => missing(doc.components?.schemas ?? {}, `v3 ${key}`));
    assert.deepEqual(gaps, [], `${gaps.length} without a description; ${HOW_TO_FIX}:\n${gaps.join('\n')}`);
  });

  it('a described reference keeps its $ref where readers find it: beside the description in v2, inside allOf in v3', () => {
    const v2Strategy = v2.definitions['io.k8s.api.apps.v1.DeploymentSpec'].properties.strategy;
    assert.equal(v2Strategy.$ref, '#/definitions/io.k8s.api.apps.v1.DeploymentStrategy');
    assert.equal(typeof v2Strategy.description, 'string');
    const apps = v3.find(([k]) => k === 'apis/apps/v1')![1];
    const v3Strategy = apps.components.schemas['io.k8s.api.apps.v1.DeploymentSpec'].properties.strategy;
    assert.deepEqual(v3Strategy.allOf, [{ $ref: '#/components/schemas/io.k8s.api.apps.v1.DeploymentStrategy' }]);
    assert.equal(v3Strategy.$ref, undefined, 'no $ref sibling of the description');
    assert.equal(typeof v3Strategy.description, 'string');
  });

  it('the spec\'s own words are used where it describes a field as "name | type | description"', () => {
    let checked = 0;
    for (const row of loadSpecTables().fields) {
      const m = /^(\S+) \| [^|]+ \| (.+)$/.exec(row.spec ?? '');
      if (!m || m[1] !== row.name) continue;
      for (const name of Object.keys(v2.definitions)) {
        if (!name.endsWith(`.${row.type}`) || !(row.name in (v2.definitions[name].properties ?? {}))) continue;
        assert.equal(v2.definitions[name].properties[row.name].description, m[2].trim(), `${name}.${row.name}`);
        checked++;
      }
    }
    assert.ok(checked >= 40, `only ${checked} spec-described fields found`);
    assert.equal(describeField('io.k8s.api.apps.v1.DeploymentSpec', 'strategy'), 'How old pods are replaced.');
  });

  it('descriptions are sentences, not the field name again', () => {
    const bad: string[] = [];
    for (const [name, schema] of Object.entries<Json>(v2.definitions)) {
      for (const [prop, p] of Object.entries<Json>(schema.properties ?? {})) {
        const d = String(p.description ?? '');
        if (d.length < 6 || d.toLowerCase() === prop.toLowerCase() || !/[.)]$/.test(d)) bad.push(`${name}.${prop}: ${JSON.stringify(d)}`);
      }
    }
    assert.deepEqual(bad, []);
  });

  it('every table entry describes a type the documents have, and every field it names exists', () => {
    const stale: string[] = [];
    for (const table of TABLES) {
      for (const [short, entry] of Object.entries(table.types)) {
        const names = table.packages.map((p) => `${p}.${short}`).filter((n) => v2.definitions[n]);
        // Types of kinds another helper may not serve yet are allowed to wait (PersistentVolume...), never a typo of a served one.
        if (names.length === 0) continue;
        for (const field of Object.keys(entry.fields)) {
          if (!names.some((n) => field in (v2.definitions[n].properties ?? {}))) stale.push(`${short}.${field}`);
        }
      }
    }
    assert.deepEqual(stale, []);
    assert.equal(describeType('io.k8s.api.core.v1.NoSuchType'), undefined);
  });
});
