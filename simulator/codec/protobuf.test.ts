import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  decodeObject,
  decodeWatchEvent,
  encodeObject,
  encodeWatchEvent,
  ProtobufDecodeError,
  ProtobufEncodeError,
  watchFrame,
  WatchFrameDecoder,
} from './protobuf.ts';
import { formatDurationNanos as formatGoDuration, parseDurationNanos as parseGoDuration, parseRfc3339 } from './time-text.ts';
import { protobufKinds, protoMessage, messageNameForKind, type ProtoField } from './protobuf-schema.ts';

type Json = Record<string, unknown>;

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');

// ---------------------------------------------------------------------------------------------
// bytes written out by hand from the wire rules (tag = field number << 3 | wire type)

// ObjectMeta as gogo writes it: every non-pointer field, even when empty, in field-number order.
//   0a <name>  12 00 generateName  1a <namespace>  22 00 selfLink  2a 00 uid  32 00 resourceVersion
//   38 00 generation  42 00 creationTimestamp (zero Time: empty)  ...maps 5a/62...  7a 00 clusterName
const CONFIGMAP_BYTES = hex(`
  6b 38 73 00
  0a 0f   0a 02 76 31   12 09 43 6f 6e 66 69 67 4d 61 70
  12 27
    0a 15   0a 01 63   12 00   1a 02 6e 73   22 00   2a 00   32 00   38 00   42 00   7a 00
    12 06   0a 01 61   12 01 31
    12 06   0a 01 62   12 01 32
  1a 00
  22 00`);

const NAMESPACE_BYTES = hex(`
  6b 38 73 00
  0a 0f   0a 02 76 31   12 09 4e 61 6d 65 73 70 61 63 65
  12 37
    0a 1d   0a 03 6e 73 31   12 00   1a 00   22 00   2a 00   32 00   38 00   42 00
            5a 06 0a 01 78 12 01 79
            7a 00
    12 0c   0a 0a 6b 75 62 65 72 6e 65 74 65 73
    1a 08   0a 06 41 63 74 69 76 65
  1a 00
  22 00`);

test('a ConfigMap encodes to the bytes the real server writes', () => {
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns' }, data: { b: '2', a: '1' } };
  assert.equal(encodeObject(cm).toString('hex'), CONFIGMAP_BYTES.toString('hex'));
  assert.deepEqual(decodeObject(CONFIGMAP_BYTES), {
    kind: 'ConfigMap',
    apiVersion: 'v1',
    metadata: { name: 'c', namespace: 'ns', creationTimestamp: null },
    data: { a: '1', b: '2' },
  });
});

test('a Namespace encodes to the bytes the real server writes', () => {
  const ns = {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'ns1', labels: { x: 'y' } },
    spec: { finalizers: ['kubernetes'] },
    status: { phase: 'Active' },
  };
  assert.equal(encodeObject(ns).toString('hex'), NAMESPACE_BYTES.toString('hex'));
  assert.deepEqual(decodeObject(NAMESPACE_BYTES), {
    kind: 'Namespace',
    apiVersion: 'v1',
    metadata: { name: 'ns1', creationTimestamp: null, labels: { x: 'y' } },
    spec: { finalizers: ['kubernetes'] },
    status: { phase: 'Active' },
  });
});

/** The bytes of the object's own message (inside the envelope's raw field). */
function rawOf(obj: object): Buffer {
  const b = encodeObject(obj);
  // 4 magic + 0a 0f <typeMeta> for "v1": tests below use v1 kinds with a one-byte raw length varint or two.
  let pos = 4;
  assert.equal(b[pos], 0x0a);
  pos += 2 + b[pos + 1];
  assert.equal(b[pos], 0x12);
  pos += 1;
  let len = 0;
  let shift = 0;
  for (;;) {
    const byte = b[pos++];
    len |= (byte & 0x7f) << shift;
    shift += 7;
    if (byte < 0x80) break;
  }
  return b.subarray(pos, pos + len);
}

test('Time: seconds and a zero nanos when set, an empty body when zero, absent when a nil pointer', () => {
  // 2018-01-02T03:04:05Z = 1514862245 s = varint a5 ed ab d2 05
  const meta = rawOf({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', creationTimestamp: '2018-01-02T03:04:05Z' } });
  assert.ok(meta.includes(hex('42 08 08 a5 ed ab d2 05 10 00')), meta.toString('hex'));
  const withOffset = rawOf({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', creationTimestamp: '2018-01-02T04:04:05.9+01:00' } });
  assert.ok(withOffset.includes(hex('42 08 08 a5 ed ab d2 05 10 00')), "withOffset.includes(hex('42 08 08 a5 ed ab d2 05 10 00'))");
  const deleting = rawOf({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { deletionTimestamp: '2018-01-02T03:04:05Z' } });
  assert.ok(deleting.includes(hex('42 00 4a 08 08 a5 ed ab d2 05 10 00')), deleting.toString('hex'));
  const back = decodeObject(encodeObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { creationTimestamp: '2018-01-02T04:04:05.9+01:00' } })) as Json;
  assert.deepEqual(back.metadata, { creationTimestamp: '2018-01-02T03:04:05Z' });
});

test('IntOrString writes all three fields; Quantity its string; pointers only when set', () => {
  const raw = rawOf({
    apiVersion: 'v1',
    kind: 'Service',
    spec: { ports: [{ port: 80, targetPort: 'http' }, { port: 81, targetPort: 8080 }] },
  });
  // ServicePort: 0a 00 name, 12 00 protocol, 18 50 port, 22 <IntOrString>, 28 00 nodePort
  assert.ok(raw.includes(hex('0a 00 12 00 18 50 22 0a 08 01 10 00 1a 04 68 74 74 70 28 00')), raw.toString('hex'));
  assert.ok(raw.includes(hex('0a 00 12 00 18 51 22 07 08 00 10 90 3f 1a 00 28 00')), raw.toString('hex'));
  // ServiceSpec has sessionAffinityConfig (pointer, field 14 = 0x72): absent when not set.
  assert.ok(!raw.includes(hex('72 00')), "!raw.includes(hex('72 00'))");

  const pod = rawOf({
    apiVersion: 'v1',
    kind: 'Pod',
    spec: { containers: [{ name: 'c', resources: { limits: { cpu: '100m' } } }] },
  });
  // resources = 42 <ResourceRequirements>: limits entry 0a 0d { 0a 03 "cpu" 12 06 { 0a 04 "100m" } }
  assert.ok(pod.includes(hex('42 0f 0a 0d 0a 03 63 70 75 12 06 0a 04 31 30 30 6d')), pod.toString('hex'));
});

test('Secret data is bytes on the wire and base64 in JSON', () => {
  const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { k: Buffer.from([0, 1, 255]).toString('base64') }, type: 'Opaque' };
  const raw = rawOf(secret);
  assert.ok(raw.includes(hex('12 08 0a 01 6b 12 03 00 01 ff')), raw.toString('hex'));
  assert.deepEqual(decodeObject(encodeObject(secret)), {
    kind: 'Secret',
    apiVersion: 'v1',
    metadata: { name: 's', creationTimestamp: null },
    data: { k: 'AAH/' },
    type: 'Opaque',
  });
  assert.throws(() => encodeObject({ ...secret, data: { k: 'not base64!' } }), ProtobufEncodeError);
});

test('a Deployment as the server shows it survives JSON -> protobuf -> JSON unchanged', () => {
  const deployment = {
    kind: 'Deployment',
    apiVersion: 'apps/v1',
    metadata: {
      name: 'web',
      namespace: 'default',
      selfLink: '/apis/apps/v1/namespaces/default/deployments/web',
      uid: '5b6f3e6e-1b0a-11e8-9a5e-0800270d9e1c',
      resourceVersion: '1234',
      generation: 2,
      creationTimestamp: '2018-02-26T10:00:00Z',
      labels: { app: 'web' },
      annotations: { 'deployment.kubernetes.io/revision': '1' },
    },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }] },
      template: {
        metadata: { creationTimestamp: null, labels: { app: 'web' } },
        spec: {
          volumes: [{ name: 'cfg', configMap: { name: 'web-cfg', defaultMode: 420 } }, { name: 'tmp', emptyDir: {} }],
          containers: [
            {
              name: 'web',
              image: 'nginx:1.13',
              command: ['nginx'],
              args: ['-g', 'daemon off;'],
              ports: [{ name: 'http', containerPort: 80, protocol: 'TCP' }],
              env: [
                { name: 'A', value: 'x' },
                { name: 'POD', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
                { name: 'MEM', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '0' } } },
                { name: 'KEY', valueFrom: { configMapKeyRef: { name: 'web-cfg', key: 'k', optional: false } } },
              ],
              resources: { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '250m' } },
              volumeMounts: [{ name: 'cfg', readOnly: true, mountPath: '/etc/web' }],
              livenessProbe: {
                httpGet: { path: '/healthz', port: 'http', scheme: 'HTTP' },
                initialDelaySeconds: 5,
                timeoutSeconds: 1,
                periodSeconds: 10,
                successThreshold: 1,
                failureThreshold: 3,
              },
              readinessProbe: { tcpSocket: { port: 80 }, timeoutSeconds: 1 },
              lifecycle: { preStop: { exec: { command: ['sleep', '5'] } } },
              terminationMessagePath: '/dev/termination-log',
              terminationMessagePolicy: 'File',
              imagePullPolicy: 'IfNotPresent',
              securityContext: { privileged: false, runAsUser: 0, capabilities: { add: ['NET_ADMIN'] } },
            },
          ],
          restartPolicy: 'Always',
          terminationGracePeriodSeconds: 30,
          dnsPolicy: 'ClusterFirst',
          securityContext: {},
          schedulerName: 'default-scheduler',
          tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
          affinity: {
            nodeAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: {
                nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }],
              },
            },
          },
        },
      },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: 1 } },
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
    },
    status: {
      observedGeneration: 2,
      replicas: 3,
      updatedReplicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
      conditions: [
        {
          type: 'Available',
          status: 'True',
          lastUpdateTime: '2018-02-26T10:00:05Z',
          lastTransitionTime: '2018-02-26T10:00:05Z',
          reason: 'MinimumReplicasAvailable',
          message: 'Deployment has minimum availability.',
        },
      ],
    },
  };
  assert.deepEqual(decodeObject(encodeObject(deployment)), deployment);
});

test('decoding shows what Go JSON shows for absent non-pointer fields, and never more', () => {
  const pod = decodeObject(encodeObject({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c' }] } })) as Json;
  assert.deepEqual(pod, {
    kind: 'Pod',
    apiVersion: 'v1',
    metadata: { name: 'p', creationTimestamp: null },
    spec: { containers: [{ name: 'c', resources: {} }] },
    status: {},
  });
  const status = decodeObject(encodeObject({ apiVersion: 'v1', kind: 'Status', status: 'Failure', code: 404, reason: 'NotFound' }));
  assert.deepEqual(status, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'NotFound', code: 404 });
  const list = decodeObject(encodeObject({ apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '7' } }));
  assert.deepEqual(list, { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '7' }, items: [] });
});

test('lists carry bare items; discovery documents keep their array shapes', () => {
  const list = {
    apiVersion: 'v1',
    kind: 'NamespaceList',
    metadata: { resourceVersion: '10', continue: 'abc' },
    items: [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a' } }],
  };
  const back = decodeObject(encodeObject(list)) as Json;
  assert.deepEqual(back.items, [{ metadata: { name: 'a', creationTimestamp: null }, spec: {}, status: {} }]);
  const resources = {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: 'apps/v1',
    resources: [
      { name: 'deployments', singularName: '', namespaced: true, kind: 'Deployment', verbs: ['create', 'get'], shortNames: ['deploy'], categories: ['all'] },
      { name: 'deployments/scale', singularName: '', namespaced: true, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: [] },
    ],
  };
  assert.deepEqual(decodeObject(encodeObject(resources)), resources);
  const versions = {
    kind: 'APIVersions',
    apiVersion: 'v1',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '10.0.0.1:6443' }],
  };
  assert.deepEqual(decodeObject(encodeObject(versions)), versions);
});

test('decoding skips unknown fields and accepts packed repeated scalars', () => {
  const raw = rawOf({ apiVersion: 'v1', kind: 'Pod', spec: { securityContext: { supplementalGroups: [1, 2] } } });
  // Unpacked as gogo writes proto2: PodSecurityContext field 4 once per value.
  assert.ok(raw.includes(hex('72 04 20 01 20 02')), raw.toString('hex'));
  // Hand-built Pod: metadata, spec{securityContext{supplementalGroups packed [1,2], unknown field 99}}.
  const podMsg = hex('0a 00   12 09   72 07 22 02 01 02 98 06 07');
  const envelope = Buffer.concat([hex('6b 38 73 00 0a 09 0a 02 76 31 12 03 50 6f 64 12'), Buffer.from([podMsg.length]), podMsg]);
  const pod = decodeObject(envelope) as Json;
  assert.deepEqual((pod.spec as Json).securityContext, { supplementalGroups: [1, 2] });
});

test('encode errors name the field and never write a partial body', () => {
  assert.throws(() => encodeObject({ apiVersion: 'v1', kind: 'Nope' }), (e: unknown) => e instanceof ProtobufEncodeError && /Kind=Nope/.test(e.message));
  assert.throws(() => encodeObject({ kind: 'ConfigMap' }), ProtobufEncodeError);
  assert.throws(
    () => encodeObject({ apiVersion: 'apps/v1', kind: 'Deployment', spec: { template: { spec: { containers: [{ name: 'a' }, { name: 5 }] } } } }),
    (e: unknown) => e instanceof ProtobufEncodeError && e.message === 'spec.template.spec.containers[1].name: expected a string, got number',
  );
  assert.throws(
    () => encodeObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { creationTimestamp: '2018-13-01T00:00:00Z' } }),
    (e: unknown) => e instanceof ProtobufEncodeError && /metadata\.creationTimestamp/.test(e.message),
  );
  assert.throws(() => encodeObject({ apiVersion: 'v1', kind: 'ConfigMap', data: ['x'] }), /data: expected an object \(map\), got array/);
  assert.throws(() => encodeObject({ apiVersion: 'apps/v1', kind: 'Deployment', spec: { replicas: 1.5 } }), /spec\.replicas/);
});

test('decode errors: missing prefix, broken envelope, unknown kind', () => {
  assert.throws(() => decodeObject(Buffer.from('{"kind":"Pod"}')), (e: unknown) => e instanceof ProtobufDecodeError && /prefix/.test(e.message));
  assert.throws(() => decodeObject(hex('6b 38 73 00 0a 05 0a 02 76')), ProtobufDecodeError);
  assert.throws(
    () => decodeObject(hex('6b 38 73 00 0a 09 0a 02 76 31 12 03 46 6f 6f 12 00')),
    (e: unknown) => e instanceof ProtobufDecodeError && /v1, Kind=Foo/.test(e.message),
  );
  assert.throws(() => decodeObject(hex('6b 38 73 00 0a 09 0a 02 76 31 12 03 50 6f 64 1a 04 67 7a 69 70')), /content encoding/);
  // Wrong wire type for metadata (varint instead of a message).
  assert.throws(() => decodeObject(hex('6b 38 73 00 0a 09 0a 02 76 31 12 03 50 6f 64 12 02 08 01')), /wire type/);
});

// ---------------------------------------------------------------------------------------------
// random objects of every kind, in the canonical JSON form the decoder produces

const iso = (s: number): string => new Date(s * 1000).toISOString().slice(0, 19);
const MIN_S = -62135596799; // one second after Go's zero time
const MAX_S = 253402300799;
const text = fc.string({ unit: 'grapheme', maxLength: 6 });
const nonEmptyText = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 6 });
const int32 = fc.integer({ min: -2147483648, max: 2147483647 });
const int64 = fc.maxSafeInteger();

function scalarArb(kind: string, nonZero: boolean): fc.Arbitrary<unknown> {
  switch (kind) {
    case 'string':
      return nonZero ? nonEmptyText : text;
    case 'bool':
      return nonZero ? fc.constant(true) : fc.boolean();
    case 'int32':
      return nonZero ? int32.filter((n) => n !== 0) : int32;
    case 'int64':
      return nonZero ? int64.filter((n) => n !== 0) : int64;
    case 'bytes':
      return fc.uint8Array({ minLength: nonZero ? 1 : 0, maxLength: 6 }).map((b) => Buffer.from(b).toString('base64'));
    case 'time':
      return fc.oneof(fc.constant(null), fc.integer({ min: MIN_S, max: MAX_S }).map((s) => `${iso(s)}Z`));
    case 'microtime':
      return fc.oneof(
        fc.constant(null),
        fc.tuple(fc.integer({ min: MIN_S, max: MAX_S }), fc.integer({ min: 0, max: 999999 })).map(([s, us]) => `${iso(s)}.${String(us).padStart(6, '0')}Z`),
      );
    case 'intstr':
      return fc.oneof(int32, text);
    case 'quantity':
      return fc.constantFrom('0', '100m', '1Gi', '2', '1.5', '500Mi', '1e3');
    case 'stringlist':
      return fc.array(text, { maxLength: 3 });
    case 'duration':
      return fc.constantFrom('30s', '1m0s', '1h2m3s', '0s');
    case 'raw':
      // Embedded JSON (ControllerRevision.data): carried as its JSON bytes.
      return fc
        .dictionary(fc.constantFrom('spec', 'template', 'a'), fc.oneof(text, int32), { minKeys: 1, maxKeys: 2 })
        .map((d) => JSON.parse(JSON.stringify(d)) as unknown);
    default:
      throw new Error(`no arbitrary for ${kind}`);
  }
}

const MAX_DEPTH = 5;

function fieldArbs(
  messageName: string,
  depth: number,
): { arbs: Record<string, fc.Arbitrary<unknown>>; required: string[]; inlines: Array<fc.Arbitrary<Json>> } {
  const msg = protoMessage(messageName);
  assert.ok(msg, messageName);
  const arbs: Record<string, fc.Arbitrary<unknown>> = {};
  const required: string[] = [];
  const inlines: Array<fc.Arbitrary<Json>> = [];
  const deep = depth >= MAX_DEPTH;
  for (const f of msg.fields) {
    if (f.inline) {
      inlines.push(messageArb(f.messageName as string, depth + 1));
      continue;
    }
    const element = (): fc.Arbitrary<unknown> => (f.kind === 'message' ? messageArb(f.messageName as string, depth + 1) : scalarArb(f.kind, false));
    if (f.mapKey) {
      if (f.emitEmpty) required.push(f.name);
      else if (deep) continue;
      arbs[f.name] = fc.dictionary(text, element(), { minKeys: f.emitEmpty ? 0 : 1, maxKeys: 3, noNullPrototype: true });
    } else if (f.repeated) {
      if (f.emitEmpty) required.push(f.name);
      else if (deep) continue;
      arbs[f.name] = fc.array(element(), { minLength: f.emitEmpty ? 0 : 1, maxLength: 2 });
    } else if (f.pointer) {
      if (f.emitEmpty) required.push(f.name);
      else if (deep) continue;
      // JSON null on a pointer means nil, which is not written: a set pointer is never null.
      arbs[f.name] = element().filter((v) => v !== null);
    } else if (f.kind === 'message' || !['string', 'bool', 'int32', 'int64', 'bytes'].includes(f.kind)) {
      required.push(f.name); // Go always shows a non-pointer struct
      arbs[f.name] = element();
    } else if (f.emitEmpty) {
      required.push(f.name);
      arbs[f.name] = scalarArb(f.kind, false);
    } else {
      if (deep) continue;
      arbs[f.name] = scalarArb(f.kind, true); // omitempty: present only when non-zero
    }
  }
  return { arbs, required, inlines };
}

const messageArbCache = new Map<string, fc.Arbitrary<Json>>();

function messageArb(messageName: string, depth: number): fc.Arbitrary<Json> {
  const key = `${messageName}@${Math.min(depth, MAX_DEPTH)}`;
  const cached = messageArbCache.get(key);
  if (cached) return cached;
  const { arbs, required, inlines } = fieldArbs(messageName, depth);
  const own = fc.record(arbs, { requiredKeys: required, noNullPrototype: true }) as fc.Arbitrary<Json>;
  const arb = inlines.length === 0 ? own : fc.tuple(own, ...inlines).map((parts) => Object.assign({}, ...parts) as Json);
  messageArbCache.set(key, arb);
  return arb;
}

const SKIP_PROPERTY = new Set(['WatchEvent']); // its object is an embedded kind: covered by the watch tests

test('property: JSON -> protobuf -> JSON is the identity on canonical objects of every kind', () => {
  for (const { apiVersion, kind } of protobufKinds()) {
    if (SKIP_PROPERTY.has(kind)) continue;
    const name = messageNameForKind(apiVersion, kind) as string;
    const arb = messageArb(name, 0).map((fields) => ({ kind, apiVersion, ...fields }));
    fc.assert(
      fc.property(arb, (obj) => {
        assert.deepStrictEqual(decodeObject(encodeObject(obj)), obj);
      }),
      { numRuns: 25 },
    );
  }
});

test('property: encoding is deterministic and map entries are sorted', () => {
  fc.assert(
    fc.property(fc.dictionary(fc.string({ unit: 'grapheme-ascii', maxLength: 5 }), fc.string({ maxLength: 3 }), { noNullPrototype: true }), (data) => {
      const a = encodeObject({ apiVersion: 'v1', kind: 'ConfigMap', data });
      const reversed = Object.fromEntries(Object.entries(data).reverse());
      assert.deepEqual(encodeObject({ apiVersion: 'v1', kind: 'ConfigMap', data: reversed }), a);
    }),
    { numRuns: 50 },
  );
});

// ---------------------------------------------------------------------------------------------
// robustness

function onlyDecodeErrors(fn: () => unknown): void {
  try {
    fn();
  } catch (e) {
    if (!(e instanceof ProtobufDecodeError)) throw new Error(`threw ${(e as Error)?.name}: ${(e as Error)?.message}`);
  }
}

const sample = encodeObject({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'd', labels: { a: 'b' }, creationTimestamp: '2018-01-01T00:00:00Z' },
  spec: {
    replicas: 2,
    template: { spec: { containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '1' } } }] } },
    strategy: { rollingUpdate: { maxSurge: '25%' } },
  },
});

test('property: random bytes never make the decoder throw anything but ProtobufDecodeError', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 200 }), fc.boolean(), (bytes, prefixed) => {
      const input = prefixed ? Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0x00]), bytes]) : Buffer.from(bytes);
      onlyDecodeErrors(() => decodeObject(input));
      onlyDecodeErrors(() => decodeWatchEvent(bytes));
      onlyDecodeErrors(() => new WatchFrameDecoder(1024).push(bytes));
    }),
    { numRuns: 2000 },
  );
});

test('property: corrupted and truncated valid bodies fail cleanly', () => {
  fc.assert(
    fc.property(fc.nat({ max: sample.length - 1 }), fc.integer({ min: 0, max: 255 }), fc.nat({ max: sample.length }), (at, byte, cut) => {
      const flipped = Buffer.from(sample);
      flipped[at] = byte;
      onlyDecodeErrors(() => decodeObject(flipped));
      onlyDecodeErrors(() => decodeObject(sample.subarray(0, cut)));
    }),
    { numRuns: 2000 },
  );
  assert.ok(decodeObject(sample), 'decodeObject(sample)');
});

test('deeply nested garbage ends as ProtobufDecodeError', () => {
  // Start-group tags without ends force recursion in the skipper.
  const groups = Buffer.alloc(200000, 0x0b);
  const body = Buffer.concat([hex('6b 38 73 00 0a 09 0a 02 76 31 12 03 50 6f 64 12'), hex('ff ff 03'), groups]);
  assert.throws(() => decodeObject(body), ProtobufDecodeError);
});

// ---------------------------------------------------------------------------------------------
// watch frames

test('a watch frame is a big-endian length and a WatchEvent without prefix or envelope', () => {
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns' }, data: { b: '2', a: '1' } };
  const frame = encodeWatchEvent('ADDED', cm);
  const inner = CONFIGMAP_BYTES;
  // WatchEvent: 0a 05 "ADDED", 12 <RawExtension: 0a <len> inner>
  const rawExt = Buffer.concat([hex('0a'), Buffer.from([inner.length]), inner]);
  const body = Buffer.concat([hex('0a 05 41 44 44 45 44 12'), Buffer.from([rawExt.length]), rawExt]);
  assert.equal(frame.readUInt32BE(0), body.length);
  assert.equal(frame.subarray(4).toString('hex'), body.toString('hex'));
  assert.deepEqual(watchFrame('ADDED', encodeObject(cm)), frame);
});

test('property: frames split at any point decode to the same events', () => {
  const events = [
    { type: 'ADDED', object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a', creationTimestamp: null }, data: { x: 'y' } } },
    {
      type: 'MODIFIED',
      object: { kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'n', creationTimestamp: null }, spec: {}, status: { phase: 'Active' } },
    },
    {
      type: 'ERROR',
      object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'too old resource version: 1 (2)', reason: 'Gone', code: 410 },
    },
    { type: 'DELETED', object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a', creationTimestamp: null } } },
  ];
  const stream = Buffer.concat(events.map((e) => encodeWatchEvent(e.type, e.object)));
  fc.assert(
    fc.property(fc.uniqueArray(fc.integer({ min: 1, max: stream.length - 1 }), { maxLength: 12 }), (cuts) => {
      const points = [0, ...cuts.sort((a, b) => a - b), stream.length];
      const decoder = new WatchFrameDecoder();
      const got = [];
      for (let i = 0; i + 1 < points.length; i++) got.push(...decoder.push(stream.subarray(points[i], points[i + 1])));
      assert.deepStrictEqual(got, events);
      assert.equal(decoder.bufferedBytes, 0);
    }),
    { numRuns: 200 },
  );
});

test('an oversized frame is refused', () => {
  const decoder = new WatchFrameDecoder(16);
  assert.throws(() => decoder.push(hex('00 00 01 00 0a')), (e: unknown) => e instanceof ProtobufDecodeError && /exceeds/.test(e.message));
});

test('a WatchEvent kind embeds the object as enveloped protobuf', () => {
  const ev = { apiVersion: 'v1', kind: 'WatchEvent', type: 'ADDED', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } } };
  assert.deepEqual(decodeObject(encodeObject(ev)), {
    kind: 'WatchEvent',
    apiVersion: 'v1',
    type: 'ADDED',
    object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'c', creationTimestamp: null } },
  });
});

// ---------------------------------------------------------------------------------------------
// JSON conventions of special types

test('RFC 3339 parsing and MicroTime', () => {
  assert.deepEqual(parseRfc3339('2018-01-02T03:04:05Z'), { seconds: 1514862245, nanos: 0 });
  assert.deepEqual(parseRfc3339('0099-01-01T00:00:00Z').seconds, -59042995200);
  assert.deepEqual(parseRfc3339('2018-01-02T03:04:05.123456789-00:30'), { seconds: 1514864045, nanos: 123456789 });
  for (const bad of ['2018-02-30T00:00:00Z', '2018-01-02 03:04:05Z', '2018-01-02T24:00:00Z', '2018-01-02T03:04:05', '']) {
    assert.throws(() => parseRfc3339(bad), ProtobufEncodeError, bad);
  }
  const ev = { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e' }, involvedObject: {}, source: {}, eventTime: '2018-01-02T03:04:05.123456Z' };
  const back = decodeObject(encodeObject(ev)) as Json;
  assert.equal(back.eventTime, '2018-01-02T03:04:05.123456Z');
  assert.equal(back.firstTimestamp, null);
  assert.equal(back.reportingComponent, '');
});

test('Go durations', () => {
  const cases: Array<[number, string]> = [
    [0, '0s'],
    [1, '1ns'],
    [1500, '1.5µs'],
    [500e6, '500ms'],
    [1.5e9, '1.5s'],
    [15e9, '15s'],
    [60e9, '1m0s'],
    [90e9, '1m30s'],
    [3600e9, '1h0m0s'],
    [12 * 3600e9, '12h0m0s'],
    [8760 * 3600e9, '8760h0m0s'],
    [-2e9, '-2s'],
  ];
  for (const [nanos, s] of cases) {
    assert.equal(formatGoDuration(nanos), s);
    assert.equal(parseGoDuration(s), nanos, s);
  }
  assert.equal(parseGoDuration('1h30m'), 5400e9);
  assert.equal(parseGoDuration('0'), 0);
  assert.throws(() => parseGoDuration('5'), ProtobufEncodeError);
  assert.throws(() => parseGoDuration('1d'), ProtobufEncodeError);
});

test('pointer fields are absent from the wire when unset, non-pointer ones always written', () => {
  const raw = rawOf({ apiVersion: 'apps/v1', kind: 'Deployment' });
  // metadata: the zero ObjectMeta (9 empty non-pointer fields, 18 bytes)
  assert.equal(raw.subarray(0, 20).toString('hex'), hex('0a 12  0a 00 12 00 1a 00 22 00 2a 00 32 00 38 00 42 00 7a 00').toString('hex'));
  // spec: replicas (08), selector (12), revisionHistoryLimit (30) and progressDeadlineSeconds (48) are
  // pointers and stay out; template (1a), strategy (22), minReadySeconds (28), paused (38) are written.
  assert.equal(raw[20], 0x12);
  const spec = raw.subarray(22, 22 + raw[21]);
  const tags: number[] = [];
  for (let i = 0; i < spec.length; ) {
    tags.push(spec[i]);
    i += spec[i] === 0x1a || spec[i] === 0x22 ? 2 + spec[i + 1] : 2;
  }
  assert.deepEqual(tags, [0x1a, 0x22, 0x28, 0x38]);
  const specFields = protoMessage('k8s.io.api.apps.v1.DeploymentSpec')?.fields as ProtoField[];
  assert.deepEqual(specFields.filter((f) => !f.pointer).map((f) => f.id).sort(), [3, 4, 5, 7]);
});
