// Field shapes (spec 2.1-2.6), generated from the field rows of the spec tables: objects and lists the target
// returns carry each field with the type its row words, where present, plus the rules the rows state that
// can be seen on a stored object (names, identity, RFC 3339 UTC timestamps, the Job selector the system picks).
// The protobuf envelope is read with an independent minimal decoder (harness/pb-envelope.ts). Shapes of
// status that needs running pods are checked in lifecycle.suite.ts. Query parameters of 4.2 not covered
// elsewhere (fieldSelector, includeUninitialized, export, exact) are here too.

import type { KubeList, KubeObject } from '../simulator/api/meta.ts';
import type { FieldRow } from '../spec-tables/index.ts';
import { check, type CheckContext } from './harness/check.ts';
import { describeResponse, expectEqual, expectStatusCode, expectTrue, fail, forRows } from './harness/expect.ts';
import { CONFIGMAPS, DEPLOYMENTS, NEEDS_NAMESPACES, createObject, deploymentBody, needs } from './harness/objects.ts';
import type { KindRef } from './harness/fixtures.ts';
import { decodeEnvelope, readFields, stringAt, WireError } from './harness/pb-envelope.ts';
import { createOrFail } from './harness/progress.ts';
import { isRfc3339Utc, jsonFieldRows, shapeFindings, valuesAt, type Sample } from './harness/shapes.ts';
import { specTables } from './harness/spec.ts';
import { isObject } from './harness/models/json.ts';

const JOBS: KindRef = { group: 'batch', version: 'v1', kind: 'Job', resource: 'jobs', namespaced: true };
const CRONJOBS: KindRef = { group: 'batch', version: 'v1beta1', kind: 'CronJob', resource: 'cronjobs', namespaced: true };

/** The sampled kinds of the object-shapes check, in the spec tables' notation. */
const SHAPE_KINDS = [
  'v1 ConfigMap',
  'v1 ConfigMapList',
  'apps/v1 Deployment',
  'apps/v1 DeploymentList',
  'batch/v1 Job',
  'batch/v1 JobList',
  'batch/v1beta1 CronJob',
  'batch/v1beta1 CronJobList',
];

/** Rows the object-shapes check judges: every JSON field row of the sampled kinds. */
function shapeRows(): FieldRow[] {
  return jsonFieldRows(specTables(), SHAPE_KINDS);
}

/** A container that sets every Container field of the spec (2.2), valid on a server of that era. */
function fullContainer(configMap: string) {
  return {
    name: 'main',
    image: 'busybox:1.28',
    imagePullPolicy: 'IfNotPresent',
    command: ['sh', '-c'],
    args: ['sleep 1'],
    env: [{ name: 'GREETING', value: 'hello' }],
    envFrom: [{ configMapRef: { name: configMap } }],
    ports: [{ containerPort: 8080, protocol: 'TCP' }],
    lifecycle: { preStop: { exec: { command: ['true'] } } },
    livenessProbe: { exec: { command: ['true'] }, periodSeconds: 10 },
    readinessProbe: { exec: { command: ['true'] }, periodSeconds: 10 },
    resources: { limits: { cpu: '100m', memory: '64Mi' }, requests: { cpu: '50m', memory: '32Mi' } },
    securityContext: { runAsNonRoot: false },
    stdin: true,
    stdinOnce: true,
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
    tty: true,
    volumeDevices: [{ name: 'blk', devicePath: '/dev/xvda' }],
    volumeMounts: [{ name: 'data', mountPath: '/data' }],
    workingDir: '/tmp',
  };
}

/** Container fields a server may drop: volumeDevices is alpha (BlockVolume gate, off by default). */
const MAY_DROP = new Set(['volumeDevices']);

function podSpec(configMap: string, restartPolicy: string) {
  return {
    restartPolicy,
    containers: [fullContainer(configMap)],
    volumes: [
      { name: 'data', emptyDir: {} },
      { name: 'blk', persistentVolumeClaim: { claimName: 'blk' } },
    ],
  };
}

interface Created {
  kind: string;
  ref: KindRef;
  name: string;
  sent: KubeObject;
}

async function createShapes(ctx: CheckContext, ns: string): Promise<Created[]> {
  const cm = 'env-source';
  const cmSent = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: cm, labels: { role: 'shape' }, annotations: { note: 'shapes' } },
    data: { KEY: 'v' },
  };
  const deploy = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'shape-d', labels: { role: 'shape' }, annotations: { note: 'shapes' } },
    // replicas 0 and paused: the shapes need no pods; paused is sent so that the field is present.
    spec: {
      replicas: 0,
      paused: true,
      selector: { matchLabels: { app: 'shape-d' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: '25%' } },
      template: { metadata: { labels: { app: 'shape-d' } }, spec: podSpec(cm, 'Always') },
    },
  };
  const job = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'shape-j', labels: { role: 'shape' } },
    // parallelism 0: no pods are started.
    spec: { parallelism: 0, completions: 1, backoffLimit: 2, activeDeadlineSeconds: 600, template: { spec: podSpec(cm, 'Never') } },
  };
  const cron = {
    apiVersion: 'batch/v1beta1',
    kind: 'CronJob',
    metadata: { name: 'shape-c', labels: { role: 'shape' } },
    spec: {
      schedule: '*/5 * * * *',
      startingDeadlineSeconds: 100,
      suspend: true,
      concurrencyPolicy: 'Forbid',
      jobTemplate: { spec: { template: { spec: podSpec(cm, 'OnFailure') } } },
    },
  };
  const out: Created[] = [];
  for (const [kind, ref, body] of [
    ['v1 ConfigMap', CONFIGMAPS, cmSent],
    ['apps/v1 Deployment', DEPLOYMENTS, deploy],
    ['batch/v1 Job', JOBS, job],
    ['batch/v1beta1 CronJob', CRONJOBS, cron],
  ] as const) {
    const base = ref.group === '' ? `/api/${ref.version}` : `/apis/${ref.group}/${ref.version}`;
    await createOrFail(ctx, `${base}/namespaces/${ns}/${ref.resource}`, body, `${ref.kind} ${ns}/${body.metadata.name}`);
    out.push({ kind, ref, name: body.metadata.name, sent: body as unknown as KubeObject });
  }
  return out;
}

const basePath = (ref: KindRef) => (ref.group === '' ? `/api/${ref.version}` : `/apis/${ref.group}/${ref.version}`);

check(
  'fields.object-shapes',
  {
    rows: shapeRows().map((r) => r.id),
    requires: [NEEDS_NAMESPACES, needs(CONFIGMAPS, ['create', 'get', 'list']), needs(DEPLOYMENTS, ['create', 'get', 'list']), needs(JOBS, ['create', 'list']), needs(CRONJOBS, ['create', 'get', 'list'])],
    title: 'objects and lists of ConfigMap, Deployment, Job and CronJob carry every field of the spec tables with its documented type',
  },
  async (ctx) => {
    const tables = specTables();
    const rows = shapeRows();
    const ns = await ctx.namespace();
    const created = await createShapes(ctx, ns);
    const samples: Sample[] = [];
    const problems: Array<{ row: string; message: string }> = [];
    const uids = new Map<string, string>();
    for (const c of created) {
      const path = `${basePath(c.ref)}/namespaces/${ns}/${c.ref.resource}`;
      const got = await ctx.client.get(`${path}/${c.name}`);
      if (got.status !== 200 || !got.object) fail(`GET ${path}/${c.name}: ${describeResponse(got)}`);
      const obj = got.object;
      samples.push({ kind: c.kind, body: obj, where: `GET ${path}/${c.name}` });
      const list = await ctx.client.get<KubeList>(path);
      if (list.status !== 200 || !list.object) fail(`GET ${path}: ${describeResponse(list)}`);
      samples.push({ kind: `${c.kind}List`, body: list.object, where: `GET ${path}` });

      // Rules the rows state beyond types.
      const meta = obj.metadata ?? {};
      const [gv, kindName] = c.kind.split(' ');
      const push = (row: string, ok: unknown, message: string) => {
        if (!ok) problems.push({ row, message: `${c.kind} ${c.name}: ${message}` });
      };
      // Deployment, Job and CronJob have rows of their own for apiVersion and kind; other kinds the Object rows.
      const typeRow = (field: 'apiVersion' | 'kind') => (['Deployment', 'Job', 'CronJob'].includes(c.ref.kind) ? `field.${c.ref.kind}.${field}` : `field.Object.${field}`);
      push(typeRow('apiVersion'), obj.apiVersion === gv, `apiVersion ${JSON.stringify(obj.apiVersion)}, the object was created and read as ${gv}`);
      push(typeRow('kind'), obj.kind === kindName, `kind ${JSON.stringify(obj.kind)}, expected ${kindName}`);
      push('field.Object.metadata', isObject(obj.metadata), 'no metadata object');
      push('field.ObjectMeta.name', meta.name === c.name, `metadata.name ${JSON.stringify(meta.name)}, created as ${c.name}`);
      push('field.ObjectMeta.namespace', meta.namespace === ns, `metadata.namespace ${JSON.stringify(meta.namespace)}, created in ${ns}`);
      push('field.ObjectMeta.uid', typeof meta.uid === 'string' && meta.uid !== '', `metadata.uid ${JSON.stringify(meta.uid)} is not a non-empty string`);
      if (typeof meta.uid === 'string') {
        push('field.ObjectMeta.uid', !uids.has(meta.uid), `metadata.uid ${meta.uid} is also the uid of ${uids.get(meta.uid)}`);
        uids.set(meta.uid, c.name);
      }
      if (meta.selfLink !== undefined)
        push(
          'field.ObjectMeta.selfLink',
          typeof meta.selfLink === 'string' && meta.selfLink.endsWith(`/${c.name}`),
          `metadata.selfLink ${JSON.stringify(meta.selfLink)} does not name the object`,
        );
      push(
        'field.ObjectMeta.creationTimestamp',
        isRfc3339Utc(meta.creationTimestamp),
        `metadata.creationTimestamp ${JSON.stringify(meta.creationTimestamp)} is not an RFC 3339 UTC timestamp`,
      );
      push('field.ObjectMeta.labels', meta.labels?.role === 'shape', `metadata.labels ${JSON.stringify(meta.labels)} lost the label sent`);
      if (c.sent.metadata.annotations)
        push(
          'field.ObjectMeta.annotations',
          meta.annotations?.note === 'shapes',
          `metadata.annotations ${JSON.stringify(meta.annotations)} lost the annotation sent`,
        );
      if (c.ref.kind !== 'ConfigMap')
        push(
          'field.ObjectMeta.generation',
          Number.isInteger(meta.generation) && (meta.generation as number) >= 1,
          `metadata.generation ${JSON.stringify(meta.generation)} of a created ${c.ref.kind} is not a positive integer`,
        );
      if (c.ref.kind !== 'ConfigMap') push(`field.${c.ref.kind}.spec`, isObject(obj.spec), 'no spec object');
      const items = (list.object.items ?? []) as KubeObject[];
      const listRow = c.ref.kind === 'ConfigMap' ? 'field.List' : `field.${c.ref.kind}List`;
      push(`${listRow}.kind`, list.object.kind === `${kindName}List`, `list kind ${JSON.stringify(list.object.kind)}, expected ${kindName}List`);
      push(`${listRow}.apiVersion`, list.object.apiVersion === gv, `list apiVersion ${JSON.stringify(list.object.apiVersion)}, expected ${gv}`);
      push(`${listRow}.items`, Array.isArray(items) && items.some((i) => i.metadata?.name === c.name), `list items do not hold ${c.name}`);
      push(`${listRow}.metadata`, isObject(list.object.metadata), 'list has no metadata object');
      // Fields sent are present (except those a server may drop).
      for (const row of rows.filter((r) => r.type === 'Container' || ['CronJobSpec', 'JobSpec', 'DeploymentSpec'].includes(r.type))) {
        const sentValues = valuesAt(tables, row, c.kind, c.sent);
        if (sentValues.length === 0 || MAY_DROP.has(row.name)) continue;
        const gotValues = valuesAt(tables, row, c.kind, obj);
        push(row.id, gotValues.length >= sentValues.length, `${row.jsonPath} was sent but is not in the stored object`);
      }
    }
    const { findings } = shapeFindings(tables, rows, samples);
    problems.push(...findings);
    if (problems.length > 0) {
      const lines = problems.slice(0, 20).map((p) => `  ${p.row}: ${p.message}`);
      fail(`${problems.length} field(s) do not have the shape of the spec:\n${lines.join('\n')}`, [...new Set(problems.map((p) => p.row))]);
    }
  },
);

check(
  'fields.job-selector',
  {
    rows: ['rule.fields.job-manual-selector', 'field.JobSpec.selector', 'field.JobSpec.manualSelector', 'field.JobSpec.template'],
    requires: [NEEDS_NAMESPACES, needs(JOBS, ['create', 'get'])],
    title: 'without manualSelector the system picks the Job selector and adds its labels to the template; with it the user selector is kept',
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    const path = `/apis/batch/v1/namespaces/${ns}/jobs`;
    const tpl = (labels: Record<string, string>) => ({
      metadata: { labels },
      spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox:1.28' }] },
    });
    // parallelism 0: nothing runs; the selector is the subject.
    const auto = await createOrFail(
      ctx,
      path,
      { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'auto' }, spec: { parallelism: 0, template: tpl({ mine: 'yes' }) } },
      `Job ${ns}/auto`,
    );
    const spec = (auto.spec ?? {}) as {
      selector?: { matchLabels?: Record<string, string>; matchExpressions?: unknown[] };
      template?: { metadata?: { labels?: Record<string, string> } };
      manualSelector?: unknown;
    };
    const match = spec.selector?.matchLabels ?? {};
    await forRows(['rule.fields.job-manual-selector', 'field.JobSpec.selector'], () => {
      expectTrue(
        Object.keys(match).length > 0 || (spec.selector?.matchExpressions?.length ?? 0) > 0,
        `a Job created without a selector has a selector picked by the system (got ${JSON.stringify(spec.selector)})`,
      );
      const labels = spec.template?.metadata?.labels ?? {};
      for (const [k, v] of Object.entries(match)) expectEqual(labels[k], v, `template label ${k} of the picked selector`);
      expectEqual(labels.mine, 'yes', 'the user template label is kept next to the picked ones');
    });
    if (spec.manualSelector !== undefined)
      expectTrue(
        spec.manualSelector === false,
        `manualSelector of a Job created without it is unset or false (got ${JSON.stringify(spec.manualSelector)})`,
        'field.JobSpec.manualSelector',
      );
    // A second Job's picked selector is unique: it differs from the first's.
    const auto2 = await createOrFail(
      ctx,
      path,
      { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'auto2' }, spec: { parallelism: 0, template: tpl({ mine: 'yes' }) } },
      `Job ${ns}/auto2`,
    );
    expectTrue(
      JSON.stringify((auto2.spec as { selector?: unknown }).selector) !== JSON.stringify(spec.selector),
      `two Jobs with the same template get different selectors (both ${JSON.stringify(spec.selector)})`,
      'rule.fields.job-manual-selector',
    );

    // manualSelector true: the user's selector is kept as given.
    const manualSel = { matchLabels: { pick: `manual-${ns}` } };
    const manual = await ctx.client.create(path, {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'manual' },
      spec: { parallelism: 0, manualSelector: true, selector: manualSel, template: tpl({ pick: `manual-${ns}` }) },
    });
    expectStatusCode(manual, [200, 201, 202], 'creating a Job with manualSelector true and its own selector', [
      'rule.fields.job-manual-selector',
      'field.JobSpec.manualSelector',
    ]);
    const mspec = (manual.object?.spec ?? {}) as { selector?: unknown; manualSelector?: unknown };
    expectEqual(mspec.selector, manualSel, 'the selector of a manualSelector Job', ['rule.fields.job-manual-selector', 'field.JobSpec.selector']);
    expectEqual(mspec.manualSelector, true, 'manualSelector as stored', 'field.JobSpec.manualSelector');
    // manualSelector true without a selector: the user must supply one.
    const missing = await ctx.client.create(path, {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'noselector' },
      spec: { parallelism: 0, manualSelector: true, template: tpl({ a: 'b' }) },
    });
    expectTrue(
      missing.status >= 400 && missing.status < 500,
      `a Job with manualSelector true and no selector is refused with a 4xx: ${describeResponse(missing)}`,
      'rule.fields.job-manual-selector',
    );
  },
);

/** Field numbers the spec gives: ObjectMeta is field 1 of every object, name field 1 of ObjectMeta (wire facts). */
const METADATA_NAME = [1, 1];

check(
  'fields.protobuf-envelope',
  {
    rows: ['field.Unknown.typeMeta', 'field.Unknown.raw', 'field.Unknown.contentEncoding', 'field.Unknown.contentType', 'field.TypeMeta.apiVersion', 'field.TypeMeta.kind'],
    requires: [NEEDS_NAMESPACES, needs(CONFIGMAPS, ['create', 'get', 'list']), needs(DEPLOYMENTS, ['create', 'get', 'list'])],
    title: 'protobuf bodies decode (independent reader) to Unknown{typeMeta, raw, no contentEncoding, contentType unset or the protobuf type} naming the object',
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    await createObject(ctx, CONFIGMAPS, 'pb', ns, { data: { k: 'v' } } as Partial<KubeObject>);
    await createOrFail(ctx, `/apis/apps/v1/namespaces/${ns}/deployments`, deploymentBody('pb'), `Deployment ${ns}/pb`);
    const cases = [
      { path: `/api/v1/namespaces/${ns}/configmaps/pb`, apiVersion: 'v1', kind: 'ConfigMap', name: 'pb' as string | undefined },
      { path: `/apis/apps/v1/namespaces/${ns}/deployments/pb`, apiVersion: 'apps/v1', kind: 'Deployment', name: 'pb' },
      { path: `/apis/apps/v1/namespaces/${ns}/deployments`, apiVersion: 'apps/v1', kind: 'DeploymentList', name: undefined },
    ];
    for (const c of cases) {
      const res = await ctx.client.get(c.path, { accept: 'protobuf' });
      expectStatusCode(res, 200, `GET ${c.path} with Accept protobuf`);
      expectEqual(res.mediaType, `application/vnd.${ctx.vendor}.protobuf`, `Content-Type of GET ${c.path} with Accept protobuf`, 'field.Unknown.typeMeta');
      let env;
      try {
        env = decodeEnvelope(res.body);
      } catch (e) {
        if (e instanceof WireError) fail(`GET ${c.path}: the protobuf body is not a well-formed envelope: ${e.message}`);
        throw e;
      }
      await forRows(['field.Unknown.typeMeta', 'field.TypeMeta.apiVersion', 'field.TypeMeta.kind'], () =>
        expectTrue(env.typeMeta !== undefined, `GET ${c.path}: the envelope has no typeMeta (field 1)`),
      );
      expectEqual(env.typeMeta?.apiVersion, c.apiVersion, `typeMeta.apiVersion (field 1.1) of GET ${c.path}`, 'field.TypeMeta.apiVersion');
      expectEqual(env.typeMeta?.kind, c.kind, `typeMeta.kind (field 1.2) of GET ${c.path}`, 'field.TypeMeta.kind');
      await forRows('field.Unknown.raw', () => {
        expectTrue(env.raw !== undefined && env.raw.length > 0, `GET ${c.path}: the envelope has no raw bytes (field 2)`);
        try {
          readFields(env.raw);
        } catch (e) {
          fail(`GET ${c.path}: raw (field 2) is not a serialised message: ${(e as Error).message}`);
        }
        if (c.name) expectEqual(stringAt(env.raw, METADATA_NAME), c.name, `metadata.name (fields 1.1) inside raw of GET ${c.path}`);
      });
      expectTrue(
        !env.contentEncoding,
        `GET ${c.path}: contentEncoding (field 3) is ${JSON.stringify(env.contentEncoding)}; unset or empty means no encoding, and none was asked for`,
        'field.Unknown.contentEncoding',
      );
      // 2.6: unset or empty means the protobuf media type, so naming that type is the same message.
      const pbType = `application/vnd.${ctx.vendor}.protobuf`;
      expectTrue(
        !env.contentType || env.contentType === pbType,
        `GET ${c.path}: contentType (field 4) is ${JSON.stringify(env.contentType)}; it must be unset, empty or ${pbType} (the body is protobuf)`,
        'field.Unknown.contentType',
      );
    }
  },
);

// ---- 4.2 query parameters ----------------------------------------------------------------------------

/** fieldSelector metadata.name=/!= restricts a list; absent means everything. */
async function fieldSelector(ctx: CheckContext, ns: string): Promise<void> {
  {
    const names = ['one', 'two', 'three'];
    for (const n of names) await createObject(ctx, CONFIGMAPS, n, ns, { data: { k: n } } as Partial<KubeObject>);
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const namesOf = (res: { object?: KubeList }) =>
      (res.object?.items ?? [])
        .map((i) => i.metadata.name)
        .filter((n): n is string => names.includes(n ?? ''))
        .sort();
    const all = await ctx.client.get<KubeList>(path);
    expectStatusCode(all, 200, `GET ${path}`);
    expectEqual(namesOf(all), [...names].sort(), 'a list without fieldSelector holds every object');
    const eq = await ctx.client.get<KubeList>(path, { query: { fieldSelector: 'metadata.name=two' } });
    expectStatusCode(eq, 200, `GET ${path}?fieldSelector=metadata.name=two`);
    expectEqual((eq.object?.items ?? []).map((i) => i.metadata.name), ['two'], 'items of fieldSelector metadata.name=two');
    const ne = await ctx.client.get<KubeList>(path, { query: { fieldSelector: 'metadata.name!=two' } });
    expectStatusCode(ne, 200, `GET ${path}?fieldSelector=metadata.name!=two`);
    expectEqual(namesOf(ne), ['one', 'three'], 'items of fieldSelector metadata.name!=two');
    const other = await ctx.client.get<KubeList>(path, { query: { fieldSelector: `metadata.namespace!=${ns}` } });
    expectStatusCode(other, 200, `GET ${path}?fieldSelector=metadata.namespace!=${ns}`);
    expectEqual(namesOf(other), [], `items of fieldSelector metadata.namespace!=${ns} in namespace ${ns}`);
  }
}

/** includeUninitialized=true is accepted on lists and still lists the initialised objects. */
async function includeUninitialized(ctx: CheckContext, ns: string): Promise<void> {
  {
    await createObject(ctx, CONFIGMAPS, 'init', ns, { data: { k: 'v' } } as Partial<KubeObject>);
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    for (const value of ['true', 'false']) {
      const res = await ctx.client.get<KubeList>(path, { query: { includeUninitialized: value } });
      expectStatusCode(res, 200, `GET ${path}?includeUninitialized=${value}`);
      expectTrue(
        (res.object?.items ?? []).some((i) => i.metadata.name === 'init'),
        `GET ${path}?includeUninitialized=${value} lists the (initialised) object init`,
      );
    }
  }
}

/** export=true strips uid, resourceVersion, creationTimestamp, selfLink and the namespace; exact=true keeps the namespace. */
async function exportExact(ctx: CheckContext, ns: string): Promise<void> {
  {
    await createObject(ctx, CONFIGMAPS, 'exp', ns, { metadata: { name: 'exp', labels: { keep: 'me' } }, data: { k: 'v' } } as Partial<KubeObject>);
    const path = `/api/v1/namespaces/${ns}/configmaps/exp`;
    const unset = (v: unknown) => v === undefined || v === null || v === '';
    for (const exact of [false, true]) {
      const query: Record<string, string> = exact ? { export: 'true', exact: 'true' } : { export: 'true' };
      const res = await ctx.client.get(path, { query });
      const rows = exact ? ['query.get.exact'] : ['query.get.export'];
      expectStatusCode(res, 200, `GET ${path}?${new URLSearchParams(query)}`, rows);
      const obj = res.object!;
      const meta = (obj.metadata ?? {}) as Record<string, unknown>;
      await forRows(exact ? ['query.get.exact', 'query.get.export'] : ['query.get.export'], () => {
        expectEqual(meta.name, 'exp', 'metadata.name of an export');
        expectEqual((obj as unknown as { data?: unknown }).data, { k: 'v' }, 'data of an export');
        expectEqual(meta.labels, { keep: 'me' }, 'labels of an export');
        for (const f of ['uid', 'resourceVersion', 'creationTimestamp', 'selfLink'])
          expectTrue(unset(meta[f]), `an export strips metadata.${f}, which a user cannot specify (got ${JSON.stringify(meta[f])})`);
      });
      if (exact) expectEqual(meta.namespace, ns, 'metadata.namespace of an exact export (a cluster-specific field it keeps)', 'query.get.exact');
      else expectTrue(unset(meta.namespace), `an export without exact strips the namespace (got ${JSON.stringify(meta.namespace)})`, 'query.get.export');
    }
  }
}

check(
  'fields.query-parameters',
  {
    rows: ['query.list.fieldSelector', 'query.list.includeUninitialized', 'query.get.export', 'query.get.exact'],
    requires: [NEEDS_NAMESPACES, needs(CONFIGMAPS, ['create', 'get', 'list'])],
    title: 'fieldSelector restricts lists; includeUninitialized=true is harmless; export strips what a user cannot set, exact keeps the namespace',
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    await forRows('query.list.fieldSelector', () => fieldSelector(ctx, ns));
    await forRows('query.list.includeUninitialized', () => includeUninitialized(ctx, ns));
    await exportExact(ctx, ns);
  },
);

check(
  'fields.subresources-are-sub-paths',
  {
    rows: ['rule.service.subresources-exist'],
    requires: [NEEDS_NAMESPACES, needs(DEPLOYMENTS, ['create', 'get']), needs(DEPLOYMENTS, ['get'], 'status'), needs(DEPLOYMENTS, ['get'], 'scale')],
    title: 'status and scale of a Deployment are sub-paths of its path and answer for that object',
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    const d = await createOrFail(ctx, `/apis/apps/v1/namespaces/${ns}/deployments`, deploymentBody('sub'), `Deployment ${ns}/sub`);
    const path = `/apis/apps/v1/namespaces/${ns}/deployments/sub`;
    const status = await ctx.client.get(`${path}/status`);
    expectStatusCode(status, 200, `GET ${path}/status`);
    expectEqual(status.object?.metadata?.uid, d.metadata.uid, `uid of the object GET ${path}/status answers with`);
    const scale = await ctx.client.get(`${path}/scale`);
    expectStatusCode(scale, 200, `GET ${path}/scale`);
    expectEqual(scale.object?.metadata?.name, 'sub', `metadata.name of the Scale at ${path}/scale`);
    expectEqual((scale.object?.spec as { replicas?: number } | undefined)?.replicas ?? 0, 0, `spec.replicas of the Scale at ${path}/scale`);
  },
);

// ---- timestamps stay UTC, also after a write that sent another offset --------------------------------------------
// 2.1: responses carry RFC 3339 UTC timestamps. A client may send a timestamp with another offset (the same instant);
// what the server answers and shows in later reads must still be UTC, never the text as sent.

/** Every string value under a key ending in "Timestamp" or "Time", with its path. */
function timestampsOf(value: unknown, path = ''): Array<[string, unknown]> {
  if (Array.isArray(value)) return value.flatMap((v, i) => timestampsOf(v, `${path}[${i}]`));
  if (!isObject(value)) return [];
  return Object.entries(value).flatMap(([k, v]) => (/(Timestamp|Time)$/.test(k) && !isObject(v) ? [[`${path}.${k}`, v] as [string, unknown]] : timestampsOf(v, `${path}.${k}`)));
}

check(
  'fields.timestamps-utc-after-update',
  {
    rows: ['field.ObjectMeta.creationTimestamp'],
    requires: [NEEDS_NAMESPACES, needs(CONFIGMAPS, ['create', 'get', 'list', 'update', 'patch'])],
    title: 'after a PUT and a merge patch that send creationTimestamp with a +02:00 offset, every answer and later read carries RFC 3339 UTC timestamps',
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    const name = ctx.uniqueName('utc');
    const created = await createObject(ctx, CONFIGMAPS, name, ns);
    const path = `/api/v1/namespaces/${ns}/configmaps/${name}`;
    const offset = '2001-02-03T06:05:06+02:00';
    const answers: Array<[string, unknown]> = [['create answer', created]];
    const put = await ctx.client.replace(path, { ...created, metadata: { ...created.metadata, creationTimestamp: offset }, data: { step: 'put' } });
    expectStatusCode(put, [200, 201], `PUT ${path} with creationTimestamp ${offset}`);
    answers.push(['PUT answer', put.object]);
    const patch = await ctx.client.patch(path, { metadata: { creationTimestamp: offset }, data: { step: 'patch' } }, 'merge');
    expectStatusCode(patch, 200, `merge patch of ${path} with creationTimestamp ${offset}`);
    answers.push(['merge patch answer', patch.object]);
    const read = await ctx.client.get(path);
    expectStatusCode(read, 200, `GET ${path}`);
    answers.push(['GET after the writes', read.object]);
    const list = await ctx.client.get<KubeList>(`/api/v1/namespaces/${ns}/configmaps`);
    expectStatusCode(list, 200, `list of ${ns} configmaps`);
    answers.push(['list after the writes', list.object?.items?.find((i) => i.metadata.name === name)]);
    await forRows('field.ObjectMeta.creationTimestamp', () => {
      for (const [what, obj] of answers) {
        const found = timestampsOf(obj);
        expectTrue(found.some(([p]) => p === '.metadata.creationTimestamp'), `${what}: no metadata.creationTimestamp`);
        for (const [p, v] of found) expectTrue(isRfc3339Utc(v), `${what}: ${p.slice(1)} ${JSON.stringify(v)} is not an RFC 3339 UTC timestamp (a write sent ${offset})`);
      }
    });
  },
);
