// PATCH (spec 1.8, 4.1; wire facts 4): the three patch types on ConfigMaps, Deployments and their status
// and scale, each random patch document checked against an independent model (suites/harness/models):
// RFC 7386 merge patch, RFC 6902 JSON patch, and strategic merge patch with the merge keys of the spec
// tables (env name, ports containerPort, volumeMounts mountPath, conditions type; containers name from the
// wire facts), lists without a key (args, command) replaced. Merged keyed lists are compared as sets
// (merging does not keep order). Last write wins without a resourceVersion; a stale resourceVersion in the
// patch is a conflict; unsupported patch types are 415; failing or malformed patches are 400/422, never 5xx.
import fc from 'fast-check';
import type { KubeObject } from '../simulator/api/meta.ts';
import { check, type CheckContext } from './harness/check.ts';
import { configMapData, labelKey, labels as labelSets } from './harness/arbitraries.ts';
import type { DecodedResponse } from './harness/client.ts';
import { describeResponse, expectEqual, expectStatusCode, expectTrue, fail, forRows } from './harness/expect.ts';
import { collectionPath, objectPath } from './harness/fixtures.ts';
import { CONFIGMAPS, DEPLOYMENTS, NEEDS_NAMESPACES, deploymentBody, needs, readObject } from './harness/objects.ts';
import { applyJsonPatch, escapePointerToken, type JsonPatchOp } from './harness/models/json-patch.ts';
import { applyMergePatch } from './harness/models/merge-patch.ts';
import { applyStrategicMerge, type MergeKeys } from './harness/models/strategic-merge.ts';
import { canonicalJson, isObject, type JsonObject, type JsonValue } from './harness/models/json.ts';
import { projectConditions, projectContainers, stringMap } from './harness/models/projection.ts';
import { getIn, mergeKeysFor } from './harness/workloads.ts';
import { RetryBudget, isConflict, replaceWithRetry } from './harness/retry.ts';

type PatchType = 'merge' | 'json' | 'strategic';
const PATCH_ROW: Record<PatchType, string> = { merge: 'media.merge-patch', json: 'media.json-patch', strategic: 'media.strategic-merge-patch' };
const CM_PATCH = [NEEDS_NAMESPACES, needs(CONFIGMAPS, ['create', 'get', 'patch'])];
const DEPLOY_PATCH = [NEEDS_NAMESPACES, needs(DEPLOYMENTS, ['create', 'get', 'patch'])];
const CONTAINERS = 'spec.template.spec.containers';

function mergeKeyNames(keys: MergeKeys) {
  return { containers: keys[CONTAINERS], env: keys[`${CONTAINERS}[].env`], ports: keys[`${CONTAINERS}[].ports`], volumeMounts: keys[`${CONTAINERS}[].volumeMounts`] };
}

async function create(ctx: CheckContext, path: string, body: unknown, what: string): Promise<KubeObject> {
  const res = await ctx.client.create(path, body);
  if (![200, 201, 202].includes(res.status) || !res.object) fail(`setup: ${what}: ${describeResponse(res)}`);
  return res.object;
}

/**
 * What a refused patch of a workload must leave as it was. Its status belongs to a controller, and so may some
 * annotations (a deployment controller records the revision there), so those are not compared.
 */
function userParts(o: KubeObject): JsonValue {
  return { spec: (o as { spec?: JsonValue }).spec ?? null, labels: o.metadata.labels ?? {}, generation: o.metadata.generation ?? null };
}

function expectPatched(res: DecodedResponse, what: string, rows?: string | string[]): KubeObject {
  expectStatusCode(res, 200, what, rows);
  if (!res.object) fail(`${what}: 200 without a decodable object (${res.decodeError ?? 'no body'})`, rows);
  return res.object;
}

// ---- ConfigMaps: merge and strategic merge patches of data and labels --------------------------------

function mapPatch(existing: string[], freshKey: fc.Arbitrary<string>, values: fc.Arbitrary<string>): fc.Arbitrary<Record<string, string | null>> {
  const fresh = fc.array(freshKey, { maxLength: 3 });
  return fresh.chain((freshKeys) => {
    const pool = [...new Set([...existing, ...freshKeys])];
    if (pool.length === 0) return fc.constant({});
    return fc.dictionary(fc.constantFrom(...pool), fc.oneof(values, fc.constant(null)), { maxKeys: 4 }) as fc.Arbitrary<Record<string, string | null>>;
  });
}

const cmScenario = fc
  .record({ data: configMapData(4), labels: labelSets(3), type: fc.constantFrom<PatchType>('merge', 'strategic') })
  .chain((orig) =>
    fc.record({
      orig: fc.constant(orig),
      data: fc.option(fc.oneof({ weight: 5, arbitrary: mapPatch(Object.keys(orig.data), configMapData(1).map((d) => Object.keys(d)[0] ?? 'k'), fc.string({ maxLength: 10 })) }, { weight: 1, arbitrary: fc.constant(null) }), { nil: undefined }),
      directive: fc.option(fc.constantFrom('replace', 'delete'), { nil: undefined, freq: 4 }),
      labels: fc.option(mapPatch(Object.keys(orig.labels), labelKey(), fc.constantFrom('a', 'b', 'x-1', 'Z.z')), { nil: undefined }),
    }),
  );

check(
  'patch.configmap-merge-and-strategic',
  {
    rows: ['media.merge-patch', 'media.strategic-merge-patch', 'rule.media.patch-types', 'bodyType.Patch', 'rule.ops.patch-merge-per-field', 'endpoint.core.configmaps.namespaced.patch', 'field.ObjectMeta.labels'],
    requires: CM_PATCH,
    title: 'merge and strategic merge patches of ConfigMap data and labels: null deletes, maps merge, $patch replace/delete directives in a map',
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    await ctx.forAll(cmScenario, async ({ orig, data, labels, directive }) => {
      const name = ctx.uniqueName('cm');
      const created = await create(ctx, collectionPath(CONFIGMAPS, ns), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: orig.labels }, data: orig.data }, `create ConfigMap ${name}`);
      const patch: JsonObject = {};
      // With a directive the map's other members are set (replace) or ignored (delete); nulls next to a
      // directive have no defined meaning, so they are left out.
      const withoutNulls = (m: Record<string, string | null>) => Object.fromEntries(Object.entries(m).filter(([, v]) => v !== null));
      if (data !== undefined) patch.data = directive && orig.type === 'strategic' && data !== null ? { ...withoutNulls(data), $patch: directive } : data;
      if (labels !== undefined) patch.metadata = { labels };
      const expected = (orig.type === 'strategic' ? applyStrategicMerge(created as unknown as JsonValue, patch, {}) : applyMergePatch(created as unknown as JsonValue, patch)) as JsonObject;
      const what = `${orig.type} PATCH of ConfigMap ${name} with ${JSON.stringify(patch)}`;
      const res = await forRows([PATCH_ROW[orig.type], 'rule.media.patch-types'], async () => expectPatched(await ctx.client.patch(objectPath(CONFIGMAPS, name, ns), patch, orig.type), what));
      const read = await readObject(ctx, CONFIGMAPS, name, ns);
      await forRows([PATCH_ROW[orig.type], 'rule.ops.patch-merge-per-field'], () => {
        for (const [label, obj] of [['answer', res], ['GET after', read]] as const) {
          expectEqual(canonicalJson(stringMap(obj.data)), canonicalJson(stringMap(expected.data)), `${what}: data in the ${label}`);
          expectEqual(canonicalJson(stringMap(obj.metadata.labels)), canonicalJson(stringMap(getIn(expected, 'metadata.labels'))), `${what}: labels in the ${label}`);
        }
      });
    });
  },
);

// ---- ConfigMaps: JSON patch, success and refusal both decided by the model ----------------------------

const jsonPatchScenario = fc.record({ data: configMapData(3).filter((d) => Object.keys(d).length > 0), fresh: configMapData(2) }).chain(({ data, fresh }) => {
  const keys = [...new Set([...Object.keys(data), ...Object.keys(fresh)])];
  const key = fc.constantFrom(...keys);
  const value = fc.oneof(fc.constantFrom(...Object.values(data)), fc.string({ maxLength: 8 }));
  const at = (k: string) => `/data/${escapePointerToken(k)}`;
  const op: fc.Arbitrary<JsonPatchOp> = fc.oneof(
    fc.record({ k: key, value }).map(({ k, value: v }) => ({ op: 'add' as const, path: at(k), value: v })),
    fc.record({ k: key, value }).map(({ k, value: v }) => ({ op: 'replace' as const, path: at(k), value: v })),
    key.map((k) => ({ op: 'remove' as const, path: at(k) })),
    fc.record({ k: key, value }).map(({ k, value: v }) => ({ op: 'test' as const, path: at(k), value: v })),
    fc.record({ from: key, to: key }).map(({ from, to }) => ({ op: 'copy' as const, from: at(from), path: at(to) })),
    fc.record({ from: key, to: key }).map(({ from, to }) => ({ op: 'move' as const, from: at(from), path: at(to) })),
  );
  return fc.record({ data: fc.constant(data), ops: fc.array(op, { minLength: 1, maxLength: 5 }) });
});

check(
  'patch.configmap-json-patch',
  {
    rows: ['media.json-patch', 'rule.media.patch-types', 'bodyType.Patch', 'endpoint.core.configmaps.namespaced.patch'],
    requires: CM_PATCH,
    title: 'JSON patches (add, remove, replace, test, copy, move) apply as RFC 6902 says; one that cannot apply is 422/400 and changes nothing',
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    await ctx.forAll(jsonPatchScenario, async ({ data, ops }) => {
      const name = ctx.uniqueName('jp');
      const created = await create(ctx, collectionPath(CONFIGMAPS, ns), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data }, `create ConfigMap ${name}`);
      const model = applyJsonPatch(created as unknown as JsonValue, ops);
      const what = `JSON patch ${JSON.stringify(ops)} of ConfigMap ${name} with data ${JSON.stringify(data)}`;
      const res = await ctx.client.patch(objectPath(CONFIGMAPS, name, ns), ops, 'json');
      const read = await readObject(ctx, CONFIGMAPS, name, ns);
      if (model.ok) {
        const obj = expectPatched(res, `${what} (the model applies it)`);
        expectEqual(canonicalJson(stringMap(obj.data)), canonicalJson(stringMap((model.doc as JsonObject).data)), `${what}: data in the answer`);
        expectEqual(canonicalJson(stringMap(read.data)), canonicalJson(stringMap((model.doc as JsonObject).data)), `${what}: data read back`);
      } else {
        expectStatusCode(res, [422, 400], `${what} (cannot apply: ${model.reason})`);
        expectEqual(read.metadata.resourceVersion, created.metadata.resourceVersion, `${what}: resourceVersion after the refused patch`);
        expectEqual(canonicalJson(stringMap(read.data)), canonicalJson(stringMap(created.data)), `${what}: data after the refused patch`);
      }
    });
  },
);

// ---- Deployments: containers by strategic merge (keys) and merge patch (replace) ---------------------

const ENV_NAMES = ['A', 'B', 'C', 'D', 'E'];
const PORTS = [80, 81, 443, 8080, 9090];
const MOUNTS = ['/a', '/b', '/c', '/d'];
const VOLUMES = ['data', 'cache'];
const CONTAINER_NAMES = ['main', 'side', 'extra', 'four'];
const IMAGES = ['busybox:1.28', 'nginx:1.13', 'alpine:3.7', 'registry.example.com/app/web:2.0'];
const word = fc.string({ minLength: 1, maxLength: 6, unit: fc.constantFrom(...'abcxyz019-_=$()'.split('')) });

const envVar = fc.record({ name: fc.constantFrom(...ENV_NAMES), value: word });
const port = fc.record({ containerPort: fc.constantFrom(...PORTS) });
const mount: fc.Arbitrary<JsonObject> = fc.record({ mountPath: fc.constantFrom(...MOUNTS), name: fc.constantFrom(...VOLUMES), readOnly: fc.boolean() }, { requiredKeys: ['mountPath', 'name'] });

/** A full valid container (used for originals, new containers and merge-patch replacement lists). */
function fullContainer(name: string): fc.Arbitrary<JsonObject> {
  return fc
    .record(
      {
        image: fc.constantFrom(...IMAGES),
        args: fc.array(word, { maxLength: 3 }),
        command: fc.array(word, { minLength: 1, maxLength: 2 }),
        env: fc.uniqueArray(envVar, { selector: (e) => e.name, maxLength: 3 }),
        ports: fc.uniqueArray(port, { selector: (p) => p.containerPort, maxLength: 3 }),
        volumeMounts: fc.uniqueArray(mount, { selector: (m) => m.mountPath, maxLength: 3 }),
      },
      { requiredKeys: ['image'] },
    )
    .map((c) => ({ name, ...c }) as JsonObject);
}

function containerList(): fc.Arbitrary<JsonObject[]> {
  return fc.uniqueArray(fc.constantFrom(...CONTAINER_NAMES), { minLength: 1, maxLength: 3 }).chain((names) => fc.tuple(...names.map(fullContainer)));
}

/** A keyed-list patch: elements to merge or add, deletes of existing keys, sometimes a replace directive. */
function keyedListPatch<T extends JsonObject>(element: fc.Arbitrary<T>, key: keyof T & string, existing: JsonValue[]): fc.Arbitrary<JsonValue[]> {
  const existingKeys = existing.filter(isObject).map((e) => e[key]);
  const deletes: fc.Arbitrary<JsonObject[]> =
    existingKeys.length > 0 ? fc.subarray(existingKeys, { maxLength: Math.min(2, existingKeys.length) }).map((ks) => ks.map((k) => ({ [key]: k, $patch: 'delete' }) as JsonObject)) : fc.constant([]);
  return fc.record({ upserts: fc.uniqueArray(element, { selector: (e) => e[key], maxLength: 3 }), deletes }).map(({ upserts, deletes: dels }) => {
    const deleted = new Set(dels.map((d) => d[key]));
    return [...upserts.filter((u) => !deleted.has(u[key])), ...dels] as JsonValue[];
  });
}

/** An env element of a patch; for a name the container already has, value may be null (deleted). */
function envPatchElement(original: JsonObject): fc.Arbitrary<JsonObject> {
  const existing = new Set(((original.env as JsonObject[] | undefined) ?? []).map((e) => e.name));
  return fc.record({ name: fc.constantFrom(...ENV_NAMES), value: fc.oneof({ weight: 4, arbitrary: word }, { weight: 1, arbitrary: fc.constant(null) }) }).map((e) => (e.value === null && !existing.has(e.name) ? { ...e, value: 'v' } : e));
}

function containerPatch(original: JsonObject | undefined, name: string): fc.Arbitrary<JsonObject> {
  if (!original) return fullContainer(name);
  return fc
    .record(
      {
        image: fc.constantFrom(...IMAGES),
        args: fc.oneof(fc.array(word, { maxLength: 3 }), fc.constant(null)),
        command: fc.oneof(fc.array(word, { minLength: 1, maxLength: 2 }), fc.constant(null)),
        env: fc.oneof({ weight: 4, arbitrary: keyedListPatch(envPatchElement(original), 'name', (original.env as JsonValue[]) ?? []) }, { weight: 1, arbitrary: fc.uniqueArray(envVar, { selector: (e) => e.name, maxLength: 2 }).map((l) => [{ $patch: 'replace' }, ...l] as JsonValue[]) }),
        ports: keyedListPatch(port, 'containerPort', (original.ports as JsonValue[]) ?? []),
        volumeMounts: keyedListPatch(mount, 'mountPath', (original.volumeMounts as JsonValue[]) ?? []),
      },
      { requiredKeys: [] },
    )
    .map((c) => ({ name, ...c }) as JsonObject);
}

const deploymentScenario = containerList().chain((containers) => {
  const existing = containers.map((c) => c.name as string);
  const patchNames = fc.uniqueArray(fc.constantFrom(...CONTAINER_NAMES), { minLength: 1, maxLength: 3 });
  return fc.record({
    containers: fc.constant(containers),
    type: fc.constantFrom<PatchType>('strategic', 'merge'),
    replicas: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
    strategic: patchNames.chain((names) => fc.tuple(...names.map((n) => containerPatch(containers.find((c) => c.name === n), n)))),
    replacement: containerList(),
    existing: fc.constant(existing),
  });
});

check(
  'patch.deployment-containers',
  {
    rows: [
      'media.strategic-merge-patch', 'media.merge-patch', 'rule.ops.patch-merge-per-field', 'rule.media.patch-types',
      'field.Container.env', 'field.Container.ports', 'field.Container.volumeMounts', 'field.Container.args', 'field.Container.command', 'type.Container',
    ],
    requires: DEPLOY_PATCH,
    title: 'strategic merge patches merge containers, env, ports and volumeMounts by key and replace args and command; merge patches replace lists',
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    const keys = mergeKeysFor([CONTAINERS]);
    const names = mergeKeyNames(keys);
    await ctx.forAll(deploymentScenario, async (s) => {
      const name = ctx.uniqueName('dp');
      const body = {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name },
        spec: {
          replicas: 0,
          selector: { matchLabels: { app: name } },
          template: { metadata: { labels: { app: name } }, spec: { containers: s.containers, volumes: VOLUMES.map((v) => ({ name: v, emptyDir: {} })) } },
        },
      };
      const created = await create(ctx, collectionPath(DEPLOYMENTS, ns), body, `create Deployment ${name}`);
      const patch: JsonObject = { spec: { template: { spec: { containers: s.type === 'strategic' ? s.strategic : s.replacement } } } };
      if (s.replicas !== undefined) (patch.spec as JsonObject).replicas = s.replicas;
      const expected = s.type === 'strategic' ? applyStrategicMerge(created as unknown as JsonValue, patch, keys) : applyMergePatch(created as unknown as JsonValue, patch);
      const what = `${s.type} PATCH ${JSON.stringify(patch)} of Deployment ${name} with containers ${JSON.stringify(s.containers)}`;
      const rows = [PATCH_ROW[s.type], 'rule.ops.patch-merge-per-field'];
      const res = await forRows(rows, async () => expectPatched(await ctx.client.patch(objectPath(DEPLOYMENTS, name, ns), patch, s.type), what));
      const read = await readObject(ctx, DEPLOYMENTS, name, ns);
      await forRows(rows, () => {
        const want = projectContainers(getIn(expected, CONTAINERS), names);
        for (const [label, obj] of [['answer', res], ['GET after', read]] as const) {
          expectEqual(canonicalJson(projectContainers(getIn(obj, CONTAINERS), names)), canonicalJson(want), `${what}: containers in the ${label} (keyed lists compared as sets)`);
          expectEqual(getIn(obj, 'spec.replicas'), getIn(expected, 'spec.replicas'), `${what}: spec.replicas in the ${label}`);
        }
      });
    });
  },
);

// ---- Deployment status conditions (merge key type) and scale -----------------------------------------

const CONDITION_TYPES = ['ConformanceAlpha', 'ConformanceBeta', 'ConformanceGamma', 'ConformanceDelta'];
const condition = fc.record({ type: fc.constantFrom(...CONDITION_TYPES), status: fc.constantFrom('True', 'False', 'Unknown'), reason: fc.constantFrom('Because', 'Why', 'NoReason'), message: word });

const conditionScenario = fc.uniqueArray(condition, { selector: (c) => c.type, minLength: 1, maxLength: 3 }).chain((initial) =>
  fc.record({
    initial: fc.constant(initial),
    type: fc.constantFrom<PatchType>('strategic', 'merge'),
    strategic: keyedListPatch(condition, 'type', initial),
    replacement: fc.uniqueArray(condition, { selector: (c) => c.type, maxLength: 3 }),
  }),
);

check(
  'patch.deployment-status-conditions',
  {
    rows: ['field.DeploymentStatus.conditions', 'media.strategic-merge-patch', 'media.merge-patch', 'rule.ops.patch-merge-per-field', 'endpoint.apps.deployments.status.namespaced.patch', 'rule.writes.subresource-only-part'],
    requires: [...DEPLOY_PATCH, needs(DEPLOYMENTS, ['update', 'patch'], 'status')],
    title: 'status conditions merge by type under strategic merge patch of /status and are replaced under merge patch; spec untouched',
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    const keys = mergeKeysFor([], ['DeploymentStatus']);
    const key = keys['status.conditions'];
    await ctx.forAll(conditionScenario, async (s) => {
      const name = ctx.uniqueName('cond');
      await create(ctx, collectionPath(DEPLOYMENTS, ns), deploymentBody(name), `create Deployment ${name}`);
      const path = objectPath(DEPLOYMENTS, name, ns);
      // Read-modify-write of /status retried on 409: the deployment controller writes status too. It keeps
      // conditions of types it does not own; only ours (Conformance*) are compared below.
      const patch = { status: { conditions: s.type === 'strategic' ? s.strategic : s.replacement } };
      const what = `${s.type} PATCH ${path}/status ${JSON.stringify(patch)} over conditions ${JSON.stringify(s.initial)}`;
      // The patch carries the resourceVersion of the setup write's answer, so that it applies to exactly that
      // state (a controller writing status in between, perhaps from a stale cache, makes it 409: set up again).
      let before: KubeObject | undefined;
      let sent: DecodedResponse | undefined;
      const budget = new RetryBudget();
      while (!sent && budget.next()) {
        const { res: put } = await replaceWithRetry<KubeObject & { status?: JsonObject }>(ctx, `${path}/status`, (cur) => ({ ...cur, status: { ...(cur.status ?? {}), conditions: s.initial } }));
        expectStatusCode(put, [200, 201], `setup: PUT ${path}/status with conditions ${JSON.stringify(s.initial)}`, 'endpoint.apps.deployments.status.namespaced.update');
        before = put.object!;
        const r = await ctx.client.patch(`${path}/status`, { metadata: { resourceVersion: before.metadata.resourceVersion }, ...patch }, s.type);
        if (!isConflict(r) || budget.last) sent = r;
      }
      const expected = s.type === 'strategic' ? applyStrategicMerge(before as unknown as JsonValue, patch, keys) : applyMergePatch(before as unknown as JsonValue, patch);
      const res = await forRows([PATCH_ROW[s.type], 'endpoint.apps.deployments.status.namespaced.patch'], async () => expectPatched(sent!, what));
      await forRows([PATCH_ROW[s.type], 'field.DeploymentStatus.conditions', 'rule.ops.patch-merge-per-field'], () =>
        expectEqual(
          canonicalJson(projectConditions(getIn(res, 'status.conditions'), CONDITION_TYPES, key)),
          canonicalJson(projectConditions(getIn(expected, 'status.conditions'), CONDITION_TYPES, key)),
          `${what}: conditions in the answer (compared as a set by type)`,
        ),
      );
      expectEqual(canonicalJson(res.spec), canonicalJson(before!.spec), `${what}: spec in the answer`, 'rule.writes.subresource-only-part');
    });
  },
);

check(
  'patch.scale',
  {
    rows: ['endpoint.apps.deployments.scale.namespaced.patch', 'rule.ops.scale', 'media.merge-patch', 'media.json-patch', 'media.strategic-merge-patch', 'rule.writes.subresource-only-part'],
    requires: [...DEPLOY_PATCH, needs(DEPLOYMENTS, ['get', 'patch'], 'scale')],
    title: 'each patch type on /scale sets spec.replicas of the Deployment and nothing else',
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    await ctx.forAll(fc.record({ from: fc.integer({ min: 0, max: 3 }), to: fc.integer({ min: 0, max: 5 }), type: fc.constantFrom<PatchType>('merge', 'json', 'strategic') }), async ({ from, to, type }) => {
      const name = ctx.uniqueName('scale');
      const created = await create(ctx, collectionPath(DEPLOYMENTS, ns), deploymentBody(name, from), `create Deployment ${name}`);
      const path = `${objectPath(DEPLOYMENTS, name, ns)}/scale`;
      const patch = type === 'json' ? [{ op: 'replace', path: '/spec/replicas', value: to }] : { spec: { replicas: to } };
      const what = `${type} PATCH ${path} ${JSON.stringify(patch)}`;
      const res = await forRows(PATCH_ROW[type], async () => expectPatched(await ctx.client.patch(path, patch, type), what));
      expectEqual(getIn(res, 'spec.replicas'), to, `${what}: Scale spec.replicas in the answer`, 'rule.ops.scale');
      const read = await readObject(ctx, DEPLOYMENTS, name, ns);
      expectEqual(getIn(read, 'spec.replicas'), to, `${what}: Deployment spec.replicas after`, 'rule.ops.scale');
      const rest = (o: KubeObject) => canonicalJson({ ...(o.spec as JsonObject), replicas: undefined });
      expectEqual(rest(read), rest(created), `${what}: the rest of the Deployment spec`, 'rule.writes.subresource-only-part');
    });
  },
);

// ---- last write wins, stale resourceVersion, 415, malformed patches -----------------------------------

function dataPatch(type: PatchType, value: string): unknown {
  return type === 'json' ? [{ op: 'add', path: '/data/key', value }] : { data: { key: value } };
}

check(
  'patch.concurrent-last-write-wins',
  { rows: ['rule.ops.patch-no-optimistic-lock', 'error.optimistic-lock'], requires: CM_PATCH, title: 'concurrent patches without a resourceVersion all succeed; the stored value is the last one written' },
  async (ctx) => {
    const ns = await ctx.namespace();
    const writes = fc.uniqueArray(fc.record({ value: fc.string({ maxLength: 8 }), type: fc.constantFrom<PatchType>('merge', 'json', 'strategic') }), { selector: (w) => w.value, minLength: 2, maxLength: 6 });
    await ctx.forAll(writes, async (ws) => {
      const name = ctx.uniqueName('race');
      await create(ctx, collectionPath(CONFIGMAPS, ns), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { key: 'start' } }, `create ConfigMap ${name}`);
      const path = objectPath(CONFIGMAPS, name, ns);
      const answers = await Promise.all(ws.map((w) => ctx.client.patch(path, dataPatch(w.type, w.value), w.type)));
      const stored: Array<{ value: string; rv: string | undefined }> = [];
      answers.forEach((res, i) => {
        const obj = expectPatched(res, `${ws[i].type} PATCH ${i + 1} of ${ws.length} sent at once (no resourceVersion)`);
        expectEqual((obj.data as Record<string, string> | undefined)?.key, ws[i].value, `${ws[i].type} PATCH ${i + 1}: data.key in its own answer`);
        stored.push({ value: ws[i].value, rv: obj.metadata.resourceVersion });
      });
      const read = await readObject(ctx, CONFIGMAPS, name, ns);
      const last = stored.find((s) => s.rv === read.metadata.resourceVersion);
      expectTrue(last !== undefined, `after ${ws.length} concurrent patches the object's resourceVersion ${read.metadata.resourceVersion} is none of the answers' (${stored.map((s) => s.rv).join(', ')})`);
      expectEqual((read.data as Record<string, string> | undefined)?.key, last.value, 'data.key after the concurrent patches (the write whose resourceVersion is stored)');
    });
  },
);

check(
  'patch.stale-resource-version-conflict',
  { rows: ['error.optimistic-lock', 'rule.ops.replace-optimistic-lock'], requires: CM_PATCH, title: 'a patch that carries a stale metadata.resourceVersion is 409 and changes nothing' },
  async (ctx) => {
    const ns = await ctx.namespace();
    await ctx.forAll(fc.record({ type: fc.constantFrom<PatchType>('merge', 'json', 'strategic'), updates: fc.integer({ min: 1, max: 3 }), value: fc.string({ maxLength: 8 }) }), async ({ type, updates, value }) => {
      const name = ctx.uniqueName('stale');
      const created = await create(ctx, collectionPath(CONFIGMAPS, ns), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { key: 'v0' } }, `create ConfigMap ${name}`);
      const path = objectPath(CONFIGMAPS, name, ns);
      let current = created;
      for (let i = 1; i <= updates; i++) current = expectPatched(await ctx.client.patch(path, { data: { key: `v${i}` } }, 'merge'), `setup: merge PATCH ${i}`);
      const stale = created.metadata.resourceVersion!;
      const patch =
        type === 'json'
          ? [{ op: 'replace', path: '/metadata/resourceVersion', value: stale }, { op: 'add', path: '/data/key', value }]
          : { metadata: { resourceVersion: stale }, data: { key: value } };
      const res = await ctx.client.patch(path, patch, type);
      expectStatusCode(res, 409, `${type} PATCH carrying the stale resourceVersion ${stale} (current ${current.metadata.resourceVersion})`);
      const read = await readObject(ctx, CONFIGMAPS, name, ns);
      expectEqual(read.metadata.resourceVersion, current.metadata.resourceVersion, 'resourceVersion after the refused patch');
      expectEqual((read.data as Record<string, string>).key, `v${updates}`, 'data.key after the refused patch');
    });
  },
);

const unsupportedType = fc
  .oneof(
    fc.constantFrom('application/json', 'application/yaml', 'text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'application/octet-stream', 'application/vnd.kubernetes.protobuf'),
    fc.stringMatching(/^[a-z]{1,10}$/).map((w) => `application/${w}-patch+json`),
    fc.stringMatching(/^[a-z]{1,10}$/).map((w) => `application/${w}+json`),
  )
  .filter((t) => !['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+json'].includes(t));

check(
  'patch.unsupported-type-415',
  { rows: ['rule.media.patch-types', 'bodyType.Patch'], requires: CM_PATCH, title: 'a PATCH whose Content-Type is none of the three patch types is 415 and changes nothing' },
  async (ctx) => {
    const ns = await ctx.namespace();
    const name = ctx.uniqueName('ct');
    const created = await create(ctx, collectionPath(CONFIGMAPS, ns), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { key: 'v0' } }, `create ConfigMap ${name}`);
    const path = objectPath(CONFIGMAPS, name, ns);
    await ctx.forAll(unsupportedType, async (contentType) => {
      const res = await ctx.client.request('PATCH', path, Buffer.from(JSON.stringify({ data: { key: 'changed' } })), { contentType });
      expectStatusCode(res, 415, `PATCH with Content-Type ${contentType}`);
      const read = await readObject(ctx, CONFIGMAPS, name, ns);
      expectEqual(read.metadata.resourceVersion, created.metadata.resourceVersion, `resourceVersion after the ${contentType} PATCH`);
    });
  },
);

interface Malformed {
  type: PatchType;
  target: 'configmap' | 'deployment';
  body: string;
  why: string;
}

const malformed: fc.Arbitrary<Malformed> = fc.oneof(
  fc.record({ type: fc.constantFrom<PatchType>('merge', 'json', 'strategic'), text: fc.string({ maxLength: 10 }) }).map(({ type, text }) => ({ type, target: 'configmap' as const, body: `{"data": ${JSON.stringify(text)}`, why: 'not JSON (unterminated object)' })),
  fc.constantFrom<Malformed>(
    { type: 'json', target: 'configmap', body: '{"op":"add","path":"/data/x","value":"y"}', why: 'a JSON patch that is not an array' },
    { type: 'json', target: 'configmap', body: '[{"op":"frobnicate","path":"/data/x"}]', why: 'an unknown JSON patch op' },
    { type: 'json', target: 'configmap', body: '[{"op":"add","value":"y"}]', why: 'a JSON patch op without path' },
    { type: 'json', target: 'configmap', body: '[{"op":"add","path":"data/x","value":"y"}]', why: 'a path that is not a JSON pointer' },
    { type: 'json', target: 'configmap', body: '[{"op":"remove","path":"/data/no-such-key"}]', why: 'removing a missing member' },
    { type: 'json', target: 'configmap', body: '[{"op":"test","path":"/data/key","value":"not-the-value"}]', why: 'a failing test op' },
    { type: 'strategic', target: 'deployment', body: '{"spec":{"template":{"spec":{"containers":[{"image":"busybox:1.29"}]}}}}', why: 'a containers element without its merge key name' },
    { type: 'strategic', target: 'deployment', body: '{"spec":{"template":{"spec":{"containers":[{"$patch":"merge"}]}}}}', why: 'a $patch: merge list directive' },
    { type: 'strategic', target: 'configmap', body: '{"data":{"$patch":"frobnicate"}}', why: 'an unknown $patch directive' },
  ),
);

check(
  'patch.malformed-4xx',
  { rows: ['rule.media.patch-types', 'media.json-patch', 'media.strategic-merge-patch', 'bodyType.Patch'], requires: [...CM_PATCH, needs(DEPLOYMENTS, ['create', 'get', 'patch'])], title: 'malformed or inapplicable patches are 400 or 422 (never 5xx) and change nothing' },
  async (ctx) => {
    const ns = await ctx.namespace();
    const cm = ctx.uniqueName('bad');
    const dp = ctx.uniqueName('bad');
    await create(ctx, collectionPath(CONFIGMAPS, ns), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: cm }, data: { key: 'v0' } }, `create ConfigMap ${cm}`);
    await create(ctx, collectionPath(DEPLOYMENTS, ns), deploymentBody(dp), `create Deployment ${dp}`);
    await ctx.forAll(malformed, async (m) => {
      const ref = m.target === 'configmap' ? CONFIGMAPS : DEPLOYMENTS;
      const name = m.target === 'configmap' ? cm : dp;
      const before = await readObject(ctx, ref, name, ns);
      const contentType = { merge: 'application/merge-patch+json', json: 'application/json-patch+json', strategic: 'application/strategic-merge-patch+json' }[m.type];
      const res = await ctx.client.request('PATCH', objectPath(ref, name, ns), Buffer.from(m.body), { contentType });
      expectStatusCode(res, [400, 422], `${m.type} PATCH of ${m.target} ${name} with ${m.why}: ${m.body}`, PATCH_ROW[m.type]);
      const after = await readObject(ctx, ref, name, ns);
      if (m.target === 'configmap') expectEqual(after.metadata.resourceVersion, before.metadata.resourceVersion, `resourceVersion after the refused patch (${m.why})`);
      // The deployment controller writes the Deployment's status meanwhile: what the patch could have changed
      // (spec, labels, generation) must be as it was.
      else expectEqual(userParts(after), userParts(before), `spec, labels and generation after the refused patch (${m.why})`);
    });
  },
);
