// The real project's fixtures (../shared/upstream-fixtures/k8s-api-testdata-v1.14.0/) through the server: each
// object, with the fields 1.9 lacks removed and system metadata the client does not send replaced by a name, is
// POSTed with dryRun=All as JSON, as YAML and as protobuf. The three bodies must get the same verdict (the fuzzed
// values are mostly invalid: the same 422 with the same causes, never a 400 of one decoder or a 500), and where the
// create is accepted the answer must be the same object whichever body format was sent and whichever answer format
// was asked for (JSON, YAML, protobuf), integers beyond 2^53 exact. Status and DeleteOptions are not resources
// (codec tests cover them).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer, type RunningApiServer } from './start.ts';
import { RESOURCES, type ResourceDef } from '../api/registry.ts';
import { decodeObject, encodeObject, PROTOBUF_MEDIA_TYPE } from '../codec/protobuf.ts';
import { messageNameForKind } from '../codec/protobuf-schema.ts';
import { dumpYaml, loadYaml } from '../codec/yaml.ts';
import { parseJson, stringifyJson } from '../util/int64-json.ts';
import { stripToDefinition, upstreamFixtures, type Fixture } from '../testing/upstream-fixtures.ts';

type Json = { [k: string]: any };

let server: RunningApiServer;
before(async () => {
  server = await startApiServer({});
});
after(async () => {
  await server?.close();
});

function resourceOf(f: Fixture): ResourceDef | undefined {
  const [group, version] = f.apiVersion.includes('/') ? f.apiVersion.split('/') : ['', f.apiVersion];
  return RESOURCES.find((d) => d.group === group && d.version === version && d.kind === f.kind && !d.virtual);
}

/** The fixture as a client would send it: 1.9 fields only, a valid name, no server-owned metadata. */
function body(f: Fixture): Json {
  const message = messageNameForKind(f.apiVersion, f.kind) as string;
  const obj = stripToDefinition(parseJson(f.json), `io.k8s.${message.slice('k8s.io.'.length)}`) as Json;
  const { labels, annotations } = obj.metadata ?? {};
  return { kind: f.kind, apiVersion: f.apiVersion, ...obj, metadata: { name: `fixture-${f.kind.toLowerCase()}`, labels, annotations } };
}

const MEDIA: Record<'json' | 'yaml' | 'protobuf', string> = { json: 'application/json', yaml: 'application/yaml', protobuf: PROTOBUF_MEDIA_TYPE };

async function post(path: string, obj: Json, format: keyof typeof MEDIA, accept: keyof typeof MEDIA = 'json'): Promise<{ status: number; body: Json }> {
  const payload = format === 'json' ? stringifyJson(obj) : format === 'yaml' ? dumpYaml(obj) : encodeObject(obj);
  const res = await fetch(`${server.url}${path}?dryRun=All`, { method: 'POST', headers: { 'content-type': MEDIA[format], accept: MEDIA[accept] }, body: payload });
  const bytes = Buffer.from(await res.arrayBuffer());
  const answer = accept === 'protobuf' && bytes[0] === 0x6b ? decodeObject(bytes) : accept === 'yaml' ? loadYaml(bytes.toString('utf8')) : parseJson(bytes.toString('utf8'));
  return { status: res.status, body: answer as Json };
}

/** Leaves out what differs between two creates of one object: its uid and the second it was made in. */
function unstamp(obj: Json): void {
  delete obj.metadata.uid;
  delete obj.metadata.creationTimestamp;
}

const served = upstreamFixtures().filter((f) => resourceOf(f));

test('the fixtures of every served kind are tried (Status and DeleteOptions are not resources)', () => {
  assert.deepEqual(upstreamFixtures().filter((f) => !resourceOf(f)).map((f) => f.name), ['core.v1.DeleteOptions', 'core.v1.Status']);
});

for (const f of served) {
  test(`${f.name}: the same verdict for a JSON, YAML and protobuf body; an accepted one reads the same in every format`, async () => {
    const def = resourceOf(f) as ResourceDef;
    const prefix = def.group === '' ? `/api/${def.version}` : `/apis/${def.group}/${def.version}`;
    const path = def.namespaced ? `${prefix}/namespaces/default/${def.resource}` : `${prefix}/${def.resource}`;
    const obj = body(f);
    const json = await post(path, obj, 'json');
    assert.ok(json.status === 201 || json.status === 422 || json.status === 409, `${json.status} ${stringifyJson(json.body).slice(0, 400)}`);
    for (const format of ['yaml', 'protobuf'] as const) {
      const other = await post(path, obj, format);
      assert.equal(other.status, json.status, `${format}: ${stringifyJson(other.body).slice(0, 400)}`);
      if (json.status === 201) {
        unstamp(other.body);
        unstamp(json.body);
      }
      assert.deepEqual(other.body, json.body, `${format} body`);
    }
    if (json.status !== 201) return;
    for (const accept of ['yaml', 'protobuf'] as const) {
      const answer = await post(path, obj, 'json', accept);
      assert.equal(answer.status, 201);
      unstamp(answer.body);
      assert.deepEqual(answer.body, json.body, `answered as ${accept}`);
    }
  });
}
