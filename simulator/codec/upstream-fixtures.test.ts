// The real project's fixtures of every kind (../shared/upstream-fixtures/k8s-api-testdata-v1.14.0/, written by the
// v1.14.0 code from one fuzzed object per kind), with the fields 1.9 does not have removed on both sides
// (simulator/testing/upstream-fixtures.ts): protobuf -> JSON equals the JSON fixture, JSON -> protobuf is
// byte-identical to the .pb fixture, and the YAML reads equal to the JSON. Integers beyond 2^53 (metadata.generation
// 8071137005907523419, deletionGracePeriodSeconds, ...) are compared exactly: they are BigInts on every side
// (util/int64-json.ts, codec/yaml.ts), and the JSON text written from the decoded protobuf is the fixture's digits.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeObject, encodeObject } from './protobuf.ts';
import { messageNameForKind } from './protobuf-schema.ts';
import { loadYaml } from './yaml.ts';
import { parseJson, stringifyJson } from '../util/int64-json.ts';
import { stripProtobufTo19, stripToDefinition, upstreamFixtures, type Fixture } from '../testing/upstream-fixtures.ts';

type Json = { [k: string]: any };

const definitionOf = (message: string) => `io.k8s.${message.slice('k8s.io.'.length)}`;

function fixtureObject(f: Fixture): Json {
  return parseJson(f.json) as Json;
}

function stripped(f: Fixture, obj: unknown): Json {
  const message = messageNameForKind(f.apiVersion, f.kind);
  assert.ok(message, `${f.name}: no type`);
  const out = stripToDefinition(obj, definitionOf(message)) as Json;
  // kind and apiVersion are TypeMeta: the envelope carries them in protobuf.
  return { kind: f.kind, apiVersion: f.apiVersion, ...out };
}

const fixtures = upstreamFixtures().filter((f) => messageNameForKind(f.apiVersion, f.kind));

test('int64 beyond 2^53 is exact: metadata.generation of the Pod fixture, read from JSON, YAML and protobuf', () => {
  const pod = fixtures.find((f) => f.name === 'core.v1.Pod');
  assert.ok(pod, 'the Pod fixture');
  assert.match(pod.json, /"generation": ?8071137005907523419\b/);
  for (const obj of [fixtureObject(pod), loadYaml(pod.yaml) as Json, decodeObject(pod.pb) as Json]) {
    assert.equal(obj.metadata.generation, 8071137005907523419n);
    assert.match(stringifyJson(obj), /"generation":8071137005907523419[,}]/);
  }
});

test('every fixture is of a kind the codec knows', () => {
  assert.deepEqual(upstreamFixtures().filter((f) => !messageNameForKind(f.apiVersion, f.kind)).map((f) => f.name), []);
  assert.equal(fixtures.length, 22);
});

for (const f of fixtures) {
  test(`${f.name}: protobuf -> JSON equals the JSON fixture (1.9 fields)`, () => {
    assert.deepStrictEqual(stripped(f, decodeObject(f.pb)), stripped(f, fixtureObject(f)));
  });

  test(`${f.name}: JSON -> protobuf is byte-identical to the .pb fixture (1.9 fields)`, () => {
    const message = messageNameForKind(f.apiVersion, f.kind) as string;
    const expected = stripProtobufTo19(f.pb, message);
    const ours = encodeObject(stripped(f, fixtureObject(f)));
    if (!ours.equals(expected)) {
      // Say where: the JSON of both sides.
      assert.deepStrictEqual(decodeObject(ours), decodeObject(expected));
      assert.equal(ours.toString('hex'), expected.toString('hex'));
    }
  });

  test(`${f.name}: the YAML fixture reads equal to the JSON fixture`, () => {
    assert.deepStrictEqual(loadYaml(f.yaml), fixtureObject(f));
  });
}
