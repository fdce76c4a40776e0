import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { goJsonForm as goJsonFormOf } from './go-json.ts';
import { decodeObject, encodeObject } from './protobuf.ts';
import { messageNameForKind, protobufKinds, protoMessage } from './protobuf-schema.ts';

type Json = Record<string, unknown>;

const goJsonForm = (apiVersion: string, kind: string, obj: object): Json => goJsonFormOf(apiVersion, kind, obj as Json);

test('a new ReplicationController, DaemonSet, ReplicaSet, StatefulSet, HPA and PDB show their non-omitempty status fields as 0', () => {
  assert.deepEqual(goJsonForm('v1', 'ReplicationController', { status: {} }).status, { replicas: 0 });
  assert.deepEqual(goJsonForm('apps/v1', 'DaemonSet', { status: {} }).status, {
    currentNumberScheduled: 0,
    numberMisscheduled: 0,
    desiredNumberScheduled: 0,
    numberReady: 0,
  });
  assert.deepEqual(goJsonForm('extensions/v1beta1', 'ReplicaSet', {}).status, { replicas: 0 });
  assert.deepEqual(goJsonForm('apps/v1', 'ReplicaSet', {}).status, { replicas: 0 });
  assert.deepEqual(goJsonForm('apps/v1', 'StatefulSet', {}).status, { replicas: 0 });
  assert.deepEqual(goJsonForm('autoscaling/v1', 'HorizontalPodAutoscaler', {}).status, { currentReplicas: 0, desiredReplicas: 0 });
  assert.deepEqual(goJsonForm('policy/v1beta1', 'PodDisruptionBudget', {}).status, {
    disruptedPods: {},
    disruptionsAllowed: 0,
    currentHealthy: 0,
    desiredHealthy: 0,
    expectedPods: 0,
  });
  // A ConfigMap has no status; a Namespace's is a struct with an omitempty phase.
  assert.equal('status' in goJsonForm('v1', 'ConfigMap', { data: { a: '1' } }), false);
  assert.deepEqual(goJsonForm('v1', 'Namespace', {}).status, {});
});

test('omitempty zero values go (volumeMounts[].subPath "", status.message ""), pointers stay when set, structs always show', () => {
  const pod = goJsonForm('v1', 'Pod', {
    metadata: { name: 'p', generation: 0, labels: {} },
    spec: {
      containers: [{ name: 'c', image: 'i', volumeMounts: [{ name: 'v', mountPath: '/m', subPath: '', readOnly: false }], ports: [] }],
      terminationGracePeriodSeconds: 0,
    },
    status: { phase: 'Pending', message: '' },
  });
  assert.deepEqual(pod.metadata, { name: 'p', creationTimestamp: null });
  const spec = pod.spec as Json;
  assert.deepEqual((spec.containers as Json[])[0], { name: 'c', image: 'i', volumeMounts: [{ name: 'v', mountPath: '/m' }], resources: {} });
  assert.equal(spec.terminationGracePeriodSeconds, 0, 'a pointer set to 0 is written');
  assert.deepEqual(pod.status, { phase: 'Pending' });
});

test('a template gets creationTimestamp null; inline structs (volume sources) are walked in their parent', () => {
  const d = goJsonForm('apps/v1', 'Deployment', {
    spec: {
      selector: { matchLabels: { a: 'b' } },
      template: { metadata: { labels: { a: 'b' } }, spec: { containers: [], volumes: [{ name: 'v', emptyDir: { medium: '' } }] } },
    },
  });
  const template = (d.spec as Json).template as Json;
  assert.deepEqual(template.metadata, { labels: { a: 'b' }, creationTimestamp: null });
  assert.deepEqual(((template.spec as Json).volumes as Json[])[0], { name: 'v', emptyDir: {} });
  assert.deepEqual(d.status, {});
  assert.deepEqual((d.spec as Json).strategy, {});
});

test('an object already in that form comes back as the same reference; fields the type lacks are kept', () => {
  const rc = { kind: 'ReplicationController', apiVersion: 'v1', metadata: { name: 'a', creationTimestamp: '2020-01-01T00:00:00Z' }, spec: {}, status: { replicas: 0 } };
  assert.equal(goJsonForm('v1', 'ReplicationController', rc), rc);
  const cm = { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a', creationTimestamp: null }, extra: '' };
  assert.equal(goJsonForm('v1', 'ConfigMap', cm), cm);
  const custom = { kind: 'Widget', apiVersion: 'example.com/v1', spec: {} };
  assert.equal(goJsonForm('example.com/v1', 'Widget', custom), custom);
});

test('the input is never changed (stored objects may be frozen)', () => {
  const rc = Object.freeze({ metadata: Object.freeze({ name: 'a', generation: 0 }), status: Object.freeze({}) });
  const out = goJsonForm('v1', 'ReplicationController', rc);
  assert.deepEqual(out.status, { replicas: 0 });
  assert.deepEqual(rc.status, {});
});

// ---- property: the same rules as the protobuf codec's decoder ----

// Sparse objects: any field may be absent, null or zero; the codec's decode of the encoded bytes is what a
// protobuf write of the object stores, so a JSON write must store the same (apart from key order).
const iso = (s: number): string => `${new Date(s * 1000).toISOString().slice(0, 19)}Z`;

function scalar(kind: string): fc.Arbitrary<unknown> {
  switch (kind) {
    case 'string': return fc.constantFrom('', 'x');
    case 'bool': return fc.boolean();
    case 'int32': case 'int64': case 'uint32': case 'uint64': return fc.constantFrom(0, 7);
    case 'bytes': return fc.constantFrom('', 'eA==');
    case 'time': return fc.constantFrom(null, iso(1_600_000_000));
    case 'microtime': return fc.constantFrom(null, '2020-09-13T12:26:40.000000Z');
    case 'intstr': return fc.constantFrom(0, 3, '', '25%');
    case 'quantity': return fc.constantFrom('0', '1Gi');
    case 'stringlist': return fc.constantFrom([], ['get']);
    case 'duration': return fc.constantFrom('0s', '30s');
    case 'raw': return fc.constantFrom(null, { a: 1 });
    default: throw new Error(kind);
  }
}

const cache = new Map<string, fc.Arbitrary<Json>>();

function sparse(name: string, depth: number): fc.Arbitrary<Json> {
  const key = `${name}@${depth}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const msg = protoMessage(name);
  assert.ok(msg, name);
  const arbs: Record<string, fc.Arbitrary<unknown>> = {};
  const inlines: Array<fc.Arbitrary<Json>> = [];
  for (const f of msg.fields) {
    if (f.inline) {
      inlines.push(sparse(f.messageName as string, depth + 1));
      continue;
    }
    if (f.kind === 'message' && depth >= 4) continue;
    const one = (): fc.Arbitrary<unknown> => (f.kind === 'message' ? sparse(f.messageName as string, depth + 1) : scalar(f.kind));
    if (f.mapKey) arbs[f.name] = fc.oneof(fc.constant(null), fc.dictionary(fc.constantFrom('k', 'l'), one().filter((v) => v !== null), { maxKeys: 2, noNullPrototype: true }));
    else if (f.repeated) arbs[f.name] = fc.oneof(fc.constant(null), fc.array(one().filter((v) => v !== null), { maxLength: 2 }));
    else arbs[f.name] = fc.oneof(fc.constant(null), one());
  }
  const own = fc.record(arbs, { requiredKeys: [], noNullPrototype: true }) as fc.Arbitrary<Json>;
  const arb = inlines.length === 0 ? own : fc.tuple(own, ...inlines).map((parts) => Object.assign({}, ...parts) as Json);
  cache.set(key, arb);
  return arb;
}

test('property: goJsonForm(x) equals what a protobuf write of x stores (decode of its bytes), for every kind', () => {
  for (const { apiVersion, kind } of protobufKinds()) {
    if (kind === 'WatchEvent') continue; // its object is an embedded kind
    const name = messageNameForKind(apiVersion, kind) as string;
    const arb = sparse(name, 0).map((fields) => ({ kind, apiVersion, ...fields }));
    fc.assert(
      fc.property(arb, (obj) => {
        assert.deepStrictEqual(goJsonForm(apiVersion, kind, obj), decodeObject(encodeObject(obj)));
      }),
      { numRuns: 15 },
    );
  }
});
