// Watch (spec 1.8, 3, 4.2, 4.3, 4.9, 6, 7, 8.1): model-based runs (fc.commands: create, replace, patch, delete,
// list, watch from a list's resourceVersion) against the target and a model kept by the harness. Every watch
// from a list's resourceVersion must show exactly the changes after it, in order, as ADDED / MODIFIED / DELETED
// with the full object at each change; a label-selector watch sees an object that stops matching as DELETED.
// Then every watch path of 4.9 (from the spec tables) and ?watch=true, timeoutSeconds, limit on a watch,
// protobuf streams, and 410 for a revision outside the history window with the relist-and-rewatch procedure.
import fc from 'fast-check';
import type { KubeObject, WatchEvent } from '../simulator/api/meta.ts';
import { check, type CheckContext } from './harness/check.ts';
import { describeResponse, expectStatusCode, expectTrue, fail, forRows } from './harness/expect.ts';
import { collectionPath, hasFixture, objectPath, type KindRef } from './harness/fixtures.ts';
import { CONFIGMAPS, NEEDS_NAMESPACES, createObject, needs } from './harness/objects.ts';
import { hasProtobuf } from './harness/protobuf.ts';
import { specTables } from './harness/spec.ts';
import { compareRv, essence, waitOutHistory, goneProblems, listAll, openWatch, readUntil, short } from './harness/list-watch.ts';

const CM_WATCH = [NEEDS_NAMESPACES, needs(CONFIGMAPS, ['create', 'get', 'list', 'update', 'patch', 'delete', 'watch'])];

const ORDER = ['rule.events.order-after-rv', 'rule.list.resource-version-no-gap', 'rule.lifecycle.watch-start'];
const TYPE_ROW: Record<string, string> = {
  ADDED: 'rule.events.create-is-add',
  MODIFIED: 'rule.events.update-is-modification',
  DELETED: 'rule.events.delete-is-removal',
};
const SHAPE = ['rule.events.watch-event-shape', 'field.WatchEvent.object', 'field.WatchEvent.type', 'bodyType.WatchEvent'];

// ----- model ------------------------------------------------------------------------------------------

type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';
interface Change {
  type: EventType;
  name: string;
  /** The object after the change (for DELETED: the last state). */
  object: KubeObject;
  /** The object before the change (MODIFIED, DELETED). */
  prev?: KubeObject;
}
interface Expected {
  type: EventType;
  object: KubeObject;
  /** A DELETED that only means "left the selector": the object may be the old or the new state. */
  leftSelector?: boolean;
  deleted?: boolean;
}

class Model {
  readonly objects = new Map<string, KubeObject>();
  readonly log: Change[] = [];
  readonly points: Array<{ rv: string; at: number }> = [];
  sentinel = 0;
}

interface Real {
  ctx: CheckContext;
  ns: string;
  protobuf: boolean;
}

const path = (r: Real) => collectionPath(CONFIGMAPS, r.ns);
const itemPath = (r: Real, name: string) => objectPath(CONFIGMAPS, name, r.ns);

function record(model: Model, type: EventType, name: string, object: KubeObject, prev?: KubeObject): void {
  model.log.push({ type, name, object, prev });
  if (type === 'DELETED') model.objects.delete(name);
  else model.objects.set(name, object);
}

/** A write answer that kept the resourceVersion changed nothing (the real server skips no-op writes). */
function recordWrite(model: Model, name: string, prev: KubeObject, next: KubeObject): void {
  if (next.metadata.resourceVersion !== prev.metadata.resourceVersion) record(model, 'MODIFIED', name, next, prev);
}

type Team = 'a' | 'b' | undefined;
const teamLabels = (team: Team): Record<string, string> => (team ? { team } : {});
const matchesTeam = (sel: Team, obj: KubeObject | undefined) => sel === undefined || obj?.metadata?.labels?.team === sel;

/** The events a watch from log position `at` with selector team=<sel> must show. */
function expectedAfter(model: Model, at: number, sel: Team): Expected[] {
  const out: Expected[] = [];
  for (const c of model.log.slice(at)) {
    const now = matchesTeam(sel, c.object);
    const before = c.prev !== undefined && matchesTeam(sel, c.prev);
    if (c.type === 'ADDED') {
      if (now) out.push({ type: 'ADDED', object: c.object });
    } else if (c.type === 'DELETED') {
      if (before) out.push({ type: 'DELETED', object: c.object, deleted: true });
    } else if (before && now) out.push({ type: 'MODIFIED', object: c.object });
    else if (!before && now) out.push({ type: 'ADDED', object: c.object });
    else if (before && !now) out.push({ type: 'DELETED', object: c.object, leftSelector: true });
  }
  return out;
}

function describeEvent(e: WatchEvent | Expected): string {
  const o = e.object as KubeObject | undefined;
  return `${e.type}:${o?.metadata?.name}@${o?.metadata?.resourceVersion}`;
}

/** Compares what a watch delivered with what the model says, naming the rule a difference breaks. */
function compareEvents(actual: WatchEvent[], expected: Expected[], what: string): void {
  const list = `expected [${expected.map(describeEvent).join(', ')}], got [${actual.map(describeEvent).join(', ')}]`;
  let lastRv: string | undefined;
  for (let i = 0; i < Math.max(actual.length, expected.length); i++) {
    const a = actual[i];
    const e = expected[i];
    if (!a) fail(`${what}: event ${i + 1} (${describeEvent(e)}) never came; ${list}`, ORDER);
    if (!e) fail(`${what}: unexpected extra event ${describeEvent(a)}; ${list}`, ORDER);
    if (a.type === 'ERROR') fail(`${what}: ERROR event ${short(a.object)}`, ORDER);
    const obj = a.object as KubeObject | undefined;
    if (!obj || typeof obj !== 'object' || !obj.metadata) fail(`${what}: event ${i + 1} has no object: ${short(a)}`, SHAPE);
    if (obj.metadata.name !== e.object.metadata.name)
      fail(`${what}: event ${i + 1} is about ${obj.metadata.name}, expected ${e.object.metadata.name}; ${list}`, ORDER);
    if (a.type !== e.type)
      fail(`${what}: event ${i + 1} for ${obj.metadata.name} has type ${a.type}, expected ${e.type}; ${list}`, [
        TYPE_ROW[e.type],
        'rule.events.types-shown',
        'field.WatchEvent.type',
      ]);
    if (obj.kind !== 'ConfigMap') fail(`${what}: event ${i + 1} carries an object of kind ${JSON.stringify(obj.kind)}, not the full ConfigMap`, SHAPE);
    const rv = obj.metadata.resourceVersion;
    if (lastRv !== undefined && compareRv(lastRv, rv) !== undefined && compareRv(lastRv, rv)! >= 0)
      fail(`${what}: event ${i + 1} has resourceVersion ${rv}, not after the previous event's ${lastRv}; ${list}`, ORDER);
    lastRv = rv;
    if (e.leftSelector) {
      if (obj.metadata.uid !== e.object.metadata.uid)
        fail(`${what}: event ${i + 1} (left the selector) has uid ${obj.metadata.uid}, expected ${e.object.metadata.uid}`, SHAPE);
      continue;
    }
    const want = essence(e.object);
    const got = essence(obj);
    if (e.deleted) {
      // The DELETED object is the last state; its resourceVersion is the deletion's, which no write answer told us.
      delete want.resourceVersion;
      delete got.resourceVersion;
      const c = compareRv(e.object.metadata.resourceVersion, rv);
      if (c !== undefined && c > 0)
        fail(`${what}: DELETED ${obj.metadata.name} carries resourceVersion ${rv}, older than its last write ${e.object.metadata.resourceVersion}`, ORDER);
    }
    if (JSON.stringify(got) !== JSON.stringify(want))
      fail(
        `${what}: event ${i + 1} (${a.type} ${obj.metadata.name}) object differs from the object at that change: expected ${short(want)}, got ${short(got)}`,
        SHAPE,
      );
  }
}

// ----- commands ---------------------------------------------------------------------------------------

const NAMES = ['a', 'b', 'c', 'd'];
const nameArb = fc.constantFrom(...NAMES);
const teamArb: fc.Arbitrary<Team> = fc.constantFrom<Team>('a', 'b', undefined);

type Cmd = fc.AsyncCommand<Model, Real>;

class CreateCmd implements Cmd {
  constructor(readonly name: string, readonly team: Team, readonly value: string) {}
  check = (m: Readonly<Model>) => !m.objects.has(this.name);
  async run(m: Model, r: Real): Promise<void> {
    const obj = await createObject(r.ctx, CONFIGMAPS, this.name, r.ns, {
      metadata: { name: this.name, labels: teamLabels(this.team) },
      data: { v: this.value },
    });
    record(m, 'ADDED', this.name, obj);
  }
  toString = () => `create(${this.name},team=${this.team ?? '-'},${JSON.stringify(this.value)})`;
}

class ReplaceCmd implements Cmd {
  constructor(readonly name: string, readonly team: Team, readonly value: string) {}
  check = (m: Readonly<Model>) => m.objects.has(this.name);
  async run(m: Model, r: Real): Promise<void> {
    const prev = m.objects.get(this.name)!;
    const body = { ...prev, metadata: { ...prev.metadata, labels: teamLabels(this.team) }, data: { v: this.value } };
    const res = await r.ctx.client.replace(itemPath(r, this.name), body);
    if (![200, 201].includes(res.status) || !res.object) fail(`setup: PUT ${this.name} with its current resourceVersion failed: ${describeResponse(res)}`);
    recordWrite(m, this.name, prev, res.object);
  }
  toString = () => `replace(${this.name},team=${this.team ?? '-'},${JSON.stringify(this.value)})`;
}

class PatchCmd implements Cmd {
  constructor(readonly name: string, readonly team: Team, readonly value: string) {}
  check = (m: Readonly<Model>) => m.objects.has(this.name);
  async run(m: Model, r: Real): Promise<void> {
    const prev = m.objects.get(this.name)!;
    const res = await r.ctx.client.patch(itemPath(r, this.name), { metadata: { labels: { team: this.team ?? null } }, data: { v: this.value } }, 'merge');
    if (res.status !== 200 || !res.object) fail(`setup: merge PATCH of ${this.name} failed: ${describeResponse(res)}`);
    recordWrite(m, this.name, prev, res.object);
  }
  toString = () => `patch(${this.name},team=${this.team ?? '-'},${JSON.stringify(this.value)})`;
}

class DeleteCmd implements Cmd {
  constructor(readonly name: string) {}
  check = (m: Readonly<Model>) => m.objects.has(this.name);
  async run(m: Model, r: Real): Promise<void> {
    const prev = m.objects.get(this.name)!;
    const res = await r.ctx.client.delete(itemPath(r, this.name));
    if (res.status !== 200 && res.status !== 202) fail(`setup: DELETE ${this.name} failed: ${describeResponse(res)}`);
    if (res.object && res.object.kind !== 'Status' && res.object.metadata?.deletionTimestamp)
      fail(`setup: DELETE of ConfigMap ${this.name} (no finalizers) left it pending: ${short(res.object)}`);
    record(m, 'DELETED', this.name, prev, prev);
  }
  toString = () => `delete(${this.name})`;
}

class ListCmd implements Cmd {
  check = () => true;
  async run(m: Model, r: Real): Promise<void> {
    const list = await listAll(r.ctx, path(r));
    const got = new Map(list.items.map((o) => [o.metadata.name!, essence(o)]));
    const want = new Map([...m.objects].map(([n, o]) => [n, essence(o)]));
    if (JSON.stringify([...got].sort()) !== JSON.stringify([...want].sort()))
      fail(`the list of ${r.ns} differs from the writes' answers: expected ${short([...want.values()])}, got ${short([...got.values()])}`);
    m.points.push({ rv: list.resourceVersion, at: m.log.length });
  }
  toString = () => 'list';
}

class WatchCmd implements Cmd {
  constructor(readonly pick: number, readonly via: 'path' | 'param', readonly selector: Team, readonly format: 'json' | 'protobuf') {}
  check = (m: Readonly<Model>) => m.points.length > 0;
  async run(m: Model, r: Real): Promise<void> {
    await watchFromPoint(m, r, m.points[this.pick % m.points.length], this.via, this.selector, this.format === 'protobuf' && r.protobuf ? 'protobuf' : 'json');
  }
  toString = () => `watch(point ${this.pick},${this.via},team=${this.selector ?? '*'},${this.format})`;
}

/** Opens a watch from a list point, writes a sentinel change, and compares everything up to the sentinel. */
async function watchFromPoint(m: Model, r: Real, point: { rv: string; at: number }, via: 'path' | 'param', sel: Team, format: 'json' | 'protobuf'): Promise<void> {
  const query: Record<string, string> = { resourceVersion: point.rv, ...(sel ? { labelSelector: `team=${sel}` } : {}) };
  const watchPath = via === 'path' ? `/api/v1/watch/namespaces/${r.ns}/configmaps` : path(r);
  if (via === 'param') query.watch = 'true';
  const what = `watch ${via === 'path' ? watchPath : `${watchPath}?watch=true`} from resourceVersion ${point.rv}${sel ? ` with labelSelector team=${sel}` : ''} (${format})`;
  const opened = await openWatch(r.ctx, watchPath, query, { format, rows: via === 'param' ? 'rule.watch.list-with-watch-param' : 'rule.ops.watch' });
  if (opened.gone)
    fail(`${what}: 410 for a resourceVersion a few seconds old (${short(opened.gone.status)})`, [
      'limit.watch-history-age',
      'rule.list.resource-version-no-gap',
    ]);
  const { stream } = opened;
  try {
    // The sentinel: one more change the watch must show last; it is labelled to match this watch's selector
    // (a model change like any other), so the read can stop there and anything missing or extra shows.
    const sname = 'sentinel';
    const prev = m.objects.get(sname);
    const team = sel ?? 'a';
    let sentinel: KubeObject;
    if (!prev) {
      sentinel = await createObject(r.ctx, CONFIGMAPS, sname, r.ns, { metadata: { name: sname, labels: { team } }, data: { n: '0' } });
      record(m, 'ADDED', sname, sentinel);
    } else {
      const res = await r.ctx.client.patch(itemPath(r, sname), { metadata: { labels: { team } }, data: { n: String(++m.sentinel) } }, 'merge');
      if (res.status !== 200 || !res.object) fail(`setup: PATCH of the sentinel failed: ${describeResponse(res)}`);
      sentinel = res.object;
      record(m, 'MODIFIED', sname, sentinel, prev);
    }
    const expected = expectedAfter(m, point.at, sel);
    const isSentinel = (e: WatchEvent) =>
      (e.object as KubeObject)?.metadata?.name === sname && (e.object as KubeObject).metadata.resourceVersion === sentinel.metadata.resourceVersion;
    const events = await readUntil(stream, (evs) => evs.some(isSentinel) || evs.length > expected.length + 5 || evs.some((e) => e.type === 'ERROR'), 4000);
    compareEvents(events, expected, what);
  } finally {
    stream.close();
  }
}

const commandArb = fc.commands(
  [
    fc.tuple(nameArb, teamArb, fc.string({ maxLength: 6 })).map(([n, t, v]) => new CreateCmd(n, t, v) as Cmd),
    fc.tuple(nameArb, teamArb, fc.string({ maxLength: 6 })).map(([n, t, v]) => new ReplaceCmd(n, t, v) as Cmd),
    fc.tuple(nameArb, teamArb, fc.string({ maxLength: 6 })).map(([n, t, v]) => new PatchCmd(n, t, v) as Cmd),
    nameArb.map((n) => new DeleteCmd(n) as Cmd),
    fc.constant(new ListCmd() as Cmd),
    fc
      .tuple(fc.nat(), fc.constantFrom('path' as const, 'param' as const), teamArb, fc.constantFrom('json' as const, 'protobuf' as const))
      .map(([p, v, s, f]) => new WatchCmd(p, v, s, f) as Cmd),
  ],
  { maxCommands: 16 },
);

/** Whether the target streams protobuf watch events for ConfigMaps (spec 4.1: list and watch endpoints do). */
async function protobufWatchServed(ctx: CheckContext, ns: string): Promise<boolean> {
  if (!hasProtobuf('v1', 'ConfigMap')) return false;
  // Only the answer's head is read (timeoutSeconds ends the stream): the client's limit is the usual 30 s, since a
  // 5 s one ran out before the headers under load (10-run repeat, load average ~30), failing a conformant target.
  const stream = await ctx.client.watch(collectionPath(CONFIGMAPS, ns), { query: { watch: 'true', timeoutSeconds: 1 }, format: 'protobuf' });
  stream.close();
  return stream.status === 200 && stream.mediaType === ctx.client.mediaType('protobuf');
}

check(
  'watch.model-commands',
  {
    upstream: [88, 89, 90, 91],
    rows: [
      'rule.ops.watch',
      ...ORDER,
      ...SHAPE,
      'rule.events.types-shown',
      'rule.events.create-is-add',
      'rule.events.update-is-modification',
      'rule.events.delete-is-removal',
      'query.list.watch',
      'query.list.resourceVersion',
      'query.list.labelSelector',
      'rule.watch.list-with-watch-param',
      'limit.watch-history-age',
      'field.ObjectMeta.resourceVersion',
      'endpoint.core.configmaps.namespaced.watch',
    ],
    requires: CM_WATCH,
    title:
      'random create/replace/patch/delete/list/watch sequences: every watch from a list resourceVersion shows exactly the later changes, in order, typed, with full objects',
  },
  async (ctx) => {
    const probeNs = await ctx.namespace();
    const protobuf = await protobufWatchServed(ctx, probeNs);
    await ctx.forAll(commandArb, async (cmds) => {
      const ns = await ctx.namespace();
      const real: Real = { ctx, ns, protobuf };
      const model = new Model();
      const initial = await listAll(ctx, collectionPath(CONFIGMAPS, ns));
      model.points.push({ rv: initial.resourceVersion, at: 0 });
      await fc.asyncModelRun(() => ({ model, real }), cmds);
      // Every run ends with a watch from the start: replaying it onto the empty state gives the final state.
      await watchFromPoint(model, real, model.points[0], 'param', undefined, 'json');
      await new ListCmd().run(model, real);
    });
  },
);

// ----- every watch path of 4.9, and ?watch=true on the list paths -----------------------------------------

function kindRef(row: { group: string; version: string; kind: string | null; resource: string | null; resourceNamespaced: boolean | null }): KindRef {
  return { group: row.group, version: row.version, kind: row.kind ?? '', resource: row.resource ?? '', namespaced: row.resourceNamespaced === true };
}

const WATCH_ROWS = specTables().endpoints.filter((e) => e.verb === 'watch' && e.testable && e.kind && hasFixture(e.kind));

for (const row of WATCH_ROWS) {
  const ref = kindRef(row);
  const byName = row.pathParams.includes('name');
  check(
    `watch.path.${row.id.replace(/^endpoint\./, '')}`,
    {
      rows: [
        row.id,
        'rule.watch.list-with-watch-param',
        'rule.watch.chunked-transfer',
        'rule.ops.watch',
        ...(row.kind === 'Event' ? ['rule.events.event-kind'] : []),
      ],
      requires: [NEEDS_NAMESPACES, needs(ref, ['create', 'list', 'patch', 'delete', 'watch'])],
      title: `GET ${row.specPath} and its ?watch=true list equivalent show ADDED, MODIFIED and DELETED of a ${row.kind}`,
    },
    async (ctx) => watchPathCheck(ctx, row, ref, byName),
  );
}

async function watchPathCheck(ctx: CheckContext, row: { id: string; path: string; scope: string }, ref: KindRef, byName: boolean): Promise<void> {
  const isNamespace = ref.kind === 'Namespace';
  const ns = isNamespace ? undefined : await ctx.namespace();
  const name = isNamespace ? ctx.namespaceName() : ctx.uniqueName(ref.kind);
  const watchPath = row.path.replace('{namespace}', ns ?? '').replace('{name}', name);
  const listPath = collectionPath(ref, row.scope === 'namespaced' ? ns : undefined);
  const start = await ctx.client.get<{ metadata?: { resourceVersion?: string } }>(listPath, { query: { limit: 1 } });
  expectStatusCode(start, 200, `GET ${listPath}?limit=1`);
  const rv = start.object?.metadata?.resourceVersion;
  expectTrue(rv, `GET ${listPath}: no metadata.resourceVersion`, 'field.ListMeta.resourceVersion');
  const viaPath = await forRows(row.id, () => openWatch(ctx, watchPath, { resourceVersion: rv }, { rows: row.id }));
  const viaParam = await forRows('rule.watch.list-with-watch-param', () =>
    openWatch(
      ctx,
      listPath,
      { watch: 'true', resourceVersion: rv, ...(byName ? { fieldSelector: `metadata.name=${name}` } : {}) },
      { rows: 'rule.watch.list-with-watch-param' },
    ),
  );
  const streams = [
    { what: `GET ${watchPath}?resourceVersion=${rv}`, opened: viaPath, row: row.id },
    {
      what: `GET ${listPath}?watch=true&resourceVersion=${rv}${byName ? `&fieldSelector=metadata.name=${name}` : ''}`,
      opened: viaParam,
      row: 'rule.watch.list-with-watch-param',
    },
  ];
  try {
    for (const s of streams) {
      if (s.opened.gone) fail(`${s.what}: 410 for the current resourceVersion`, s.row);
      await forRows('rule.watch.chunked-transfer', () =>
        expectTrue(
          s.opened.stream.headers['transfer-encoding'] === 'chunked',
          `${s.what}: response without Transfer-Encoding: chunked (${short(s.opened.stream.headers)})`,
        ),
      );
    }
    const objPath = objectPath(ref, name, ns);
    const created = await createObject(ctx, ref, name, ns);
    const patched = await ctx.client.patch(objPath, { metadata: { annotations: { 'conformance/touched': 'yes' } } }, 'merge');
    expectStatusCode(patched, 200, `merge PATCH ${objPath}`);
    const del = await ctx.client.delete(objPath, { body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' } });
    expectStatusCode(del, [200, 202], `DELETE ${objPath}`);
    if (isNamespace) await finalizeIfTerminating(ctx, name);
    const gone = (await ctx.client.get(objPath)).status === 404;
    const uid = created.metadata.uid;
    for (const s of streams) {
      const ours = (e: WatchEvent) => (e.object as KubeObject)?.metadata?.uid === uid;
      const all = await readUntil(
        s.opened.stream,
        (evs) => evs.some((e) => ours(e) && (gone ? e.type === 'DELETED' : Boolean((e.object as KubeObject).metadata.deletionTimestamp))),
        8000,
      );
      const mine = all.filter(ours);
      const types = mine.map((e) => e.type).join(', ');
      await forRows([s.row, 'rule.events.create-is-add', 'rule.events.update-is-modification', 'rule.events.delete-is-removal'], () => {
        if (all.some((e) => e.type === 'ERROR')) fail(`${s.what}: ERROR event ${short(all.find((e) => e.type === 'ERROR'))}`);
        expectTrue(mine.length >= 2, `${s.what}: expected ADDED, MODIFIED...${gone ? ', DELETED' : ''} for ${name}, got [${types}]`);
        expectTrue(mine[0].type === 'ADDED', `${s.what}: first event for ${name} is ${mine[0].type}, expected ADDED ([${types}])`);
        // Pending when we looked, an object may still go before the stream is read (a namespace controller
        // finishing): a trailing DELETED is fine then.
        const endsDeleted = mine.length > 1 && mine[mine.length - 1].type === 'DELETED';
        const middle = gone || endsDeleted ? mine.slice(1, -1) : mine.slice(1);
        expectTrue(
          middle.length >= 1 && middle.every((e) => e.type === 'MODIFIED'),
          `${s.what}: expected MODIFIED events between ADDED and the end for ${name}, got [${types}]`,
        );
        expectTrue(
          middle.some((e) => (e.object as KubeObject).metadata.annotations?.['conformance/touched'] === 'yes'),
          `${s.what}: no MODIFIED event carries the patched annotation ([${types}])`,
        );
        if (gone)
          expectTrue(
            mine[mine.length - 1].type === 'DELETED',
            `${s.what}: last event for ${name} is ${mine[mine.length - 1].type}, expected DELETED ([${types}])`,
          );
        for (const e of mine)
          expectTrue(
            (e.object as KubeObject).kind === ref.kind,
            `${s.what}: ${e.type} event object has kind ${JSON.stringify((e.object as KubeObject).kind)}, expected ${ref.kind}`,
          );
      });
      if (byName || row.scope !== 'cluster-wide') {
        // Scoped paths show only objects in their scope.
        const foreign = all.filter((e) => !ours(e) && (byName ? true : (e.object as KubeObject)?.metadata?.namespace !== ns && !isNamespace));
        if (foreign.length) fail(`${s.what}: events for objects outside the watched scope: ${foreign.map(describeEvent).join(', ')}`, s.row);
      }
    }
  } finally {
    viaPath.stream.close();
    viaParam.stream.close();
  }
}

/** Without a namespace controller a deleted namespace stays Terminating: empty its finalizers, as that controller would. */
async function finalizeIfTerminating(ctx: CheckContext, name: string): Promise<void> {
  const res = await ctx.client.get(`/api/v1/namespaces/${name}`);
  if (res.status !== 200 || !res.object) return;
  const body = { ...res.object, spec: { finalizers: [] } };
  await ctx.client.replace(`/api/v1/namespaces/${name}/finalize`, body);
  if ((await ctx.client.get(`/api/v1/namespaces/${name}`)).status === 200) await ctx.client.delete(`/api/v1/namespaces/${name}`);
}

// ----- timeoutSeconds, limit on a watch, protobuf --------------------------------------------------------

check(
  'watch.timeout-seconds',
  { rows: ['query.list.timeoutSeconds'], requires: CM_WATCH, title: 'a watch with timeoutSeconds ends by itself about then' },
  async (ctx) => {
    const ns = await ctx.namespace();
    const seconds = 1;
    await Promise.all([true, false].map(async (viaPath) => {
      const p = viaPath ? `/api/v1/watch/namespaces/${ns}/configmaps` : collectionPath(CONFIGMAPS, ns);
      const started = Date.now();
      const { stream, gone } = await openWatch(
        ctx,
        p,
        { ...(viaPath ? {} : { watch: 'true' }), timeoutSeconds: seconds },
        { timeoutMs: (seconds + 10) * 1000 },
      );
      expectTrue(!gone, `watch ${p} without resourceVersion got 410`);
      const events = await readUntil(stream, () => false, (seconds + 6) * 1000);
      const took = Date.now() - started;
      stream.close();
      expectTrue(stream.isEnded || took < (seconds + 6) * 1000, 'unreachable');
      if (took > (seconds + 5) * 1000 || !stream.isEnded) fail(`watch ${p}?timeoutSeconds=${seconds} was still open after ${took} ms`);
      if (events.some((e) => e.type === 'ERROR')) fail(`watch ${p}?timeoutSeconds=${seconds}: ERROR event ${short(events)}`);
    }));
  },
);

check(
  'watch.limit-ignored',
  { rows: ['rule.query.limit-continue-not-with-watch'], requires: CM_WATCH, title: 'limit has no effect on a watch (or the watch is refused): every change is delivered' },
  async (ctx) => {
    const ns = await ctx.namespace();
    const p = collectionPath(CONFIGMAPS, ns);
    const list = await listAll(ctx, p);
    const stream = await ctx.client.watch(p, { query: { watch: 'true', resourceVersion: list.resourceVersion, limit: 1 } });
    try {
      if (stream.status >= 400 && stream.status < 500) return; // refused: "not supported" either way
      expectStatusCode({ status: stream.status, mediaType: stream.mediaType, text: () => stream.receivedText() } as never, 200, `watch ${p}?limit=1`);
      const names = [ctx.uniqueName('l'), ctx.uniqueName('l'), ctx.uniqueName('l')];
      for (const n of names) await createObject(ctx, CONFIGMAPS, n, ns);
      const events = await readUntil(stream, (evs) => evs.length >= 3, 5000);
      const got = events.map((e) => (e.object as KubeObject)?.metadata?.name);
      if (JSON.stringify(got) !== JSON.stringify(names))
        fail(`watch ${p}?limit=1: expected ADDED for ${names.join(', ')}, got ${short(events.map(describeEvent))}`);
    } finally {
      stream.close();
    }
  },
);

check(
  'watch.protobuf-stream',
  { rows: ['media.protobuf-watch', 'rule.events.watch-event-shape', 'rule.ops.watch'], requires: CM_WATCH, title: 'a watch asked for as protobuf;stream=watch is length-delimited WatchEvents whose objects carry the k8s envelope' },
  async (ctx) => {
    const ns = await ctx.namespace();
    const p = collectionPath(CONFIGMAPS, ns);
    const list = await listAll(ctx, p);
    const accept = `${ctx.client.mediaType('protobuf')};stream=watch`;
    const stream = await ctx.client.watch(p, { query: { watch: 'true', resourceVersion: list.resourceVersion }, format: 'protobuf', accept });
    try {
      if (stream.status === 406) ctx.skip(`the target answers 406 to Accept: ${accept} on a watch`);
      expectStatusCode({ status: stream.status, mediaType: stream.mediaType, text: () => stream.receivedText() } as never, 200, `watch ${p} as protobuf`);
      const contentType = stream.headers['content-type'] ?? '';
      expectTrue(
        stream.mediaType === ctx.client.mediaType('protobuf') && /stream=watch/.test(contentType),
        `watch ${p} as protobuf: Content-Type ${JSON.stringify(contentType)}, expected ${accept}`,
        'media.protobuf-watch',
      );
      const name = ctx.uniqueName('pb');
      const created = await createObject(ctx, CONFIGMAPS, name, ns, { data: { k: 'v ✓' } });
      const patched = await ctx.client.patch(objectPath(CONFIGMAPS, name, ns), { data: { k: 'w' } }, 'merge');
      const del = await ctx.client.delete(objectPath(CONFIGMAPS, name, ns));
      expectStatusCode(del, 200, 'DELETE');
      const events = await readUntil(stream, (evs) => evs.length >= 3, 5000);
      compareEvents(events, [
        { type: 'ADDED', object: created },
        { type: 'MODIFIED', object: patched.object! },
        { type: 'DELETED', object: patched.object!, deleted: true },
      ], `protobuf watch ${p}`);
    } finally {
      stream.close();
    }
  },
);

// ----- 410 and the relist-and-rewatch procedure -------------------------------------------------------

check(
  'watch.gone-410-recovery',
  {
    rows: ['rule.watch.gone-410', 'error.410', 'rule.watch.gone-recovery'],
    requires: CM_WATCH,
    title: 'a watch from a revision outside the history window gets 410 (HTTP or ERROR event); relist and rewatch ends equal to the model',
    timeoutSeconds: 90,
    solo: true,
    historyWindow: true,
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    const churnNs = await ctx.namespace();
    const model = new Model();
    const real: Real = { ctx, ns, protobuf: false };
    for (const n of ['a', 'b', 'c']) await new CreateCmd(n, 'a', n).run(model, real);
    const old = await listAll(ctx, collectionPath(CONFIGMAPS, ns));
    const since = Date.now();
    await new PatchCmd('a', 'b', 'changed').run(model, real);
    const churn = ctx.uniqueName('churn');
    await createObject(ctx, CONFIGMAPS, churn, churnNs);
    let gone: Awaited<ReturnType<typeof openWatch>>['gone'];
    const forced = await waitOutHistory(ctx, objectPath(CONFIGMAPS, churn, churnNs), since, async () => {
      const probe = await openWatch(ctx, collectionPath(CONFIGMAPS, ns), { watch: 'true', resourceVersion: old.resourceVersion }, { probeMs: 2000 });
      probe.stream.close();
      if (probe.gone) {
        gone = probe.gone;
        return true;
      }
      // Still held: then it must still replay the change after that revision.
      if (!probe.first || (probe.first.object as KubeObject)?.metadata?.name !== 'a')
        fail(`a watch from ${old.resourceVersion} that the target still serves did not start with the change to a: ${short(probe.first)}`, ORDER);
      return false;
    });
    if (!forced.forced) {
      ctx.skip(
        ctx.historyWaitMs
          ? `the target still served a watch from resourceVersion ${old.resourceVersion} ${Math.round(forced.ms / 1000)} s after it (more than the 5 minutes of spec 8.1 and a margin): 410 could not be observed`
          : `could not push resourceVersion ${old.resourceVersion} out of the watch history: ${forced.writes} changes in ${forced.ms} ms and a watch from it still worked (the target keeps more history, e.g. 5 minutes by age); run against it as a --target to wait for the window`,
      );
    }
    await forRows(['rule.watch.gone-410', 'error.410'], () => {
      const problems = goneProblems(gone!);
      if (problems.length)
        fail(`the 410 for a watch from ${old.resourceVersion} (${gone!.via === 'http' ? 'HTTP 410' : 'ERROR event'}): ${problems.join(', ')}`);
    });
    await forRows('rule.watch.gone-recovery', async () => {
      // 4.3.5: clear the cache, list again, watch from the new resourceVersion; the watched state ends equal to the model.
      const fresh = await listAll(ctx, collectionPath(CONFIGMAPS, ns));
      const cache = new Map(fresh.items.map((o) => [o.metadata.name!, o]));
      const want = new Map([...model.objects].map(([n, o]) => [n, essence(o)]));
      if (JSON.stringify([...cache].map(([n, o]) => [n, essence(o)]).sort()) !== JSON.stringify([...want].sort()))
        fail(`the relist after 410 differs from the model: ${short([...cache.keys()])}`);
      const point = { rv: fresh.resourceVersion, at: model.log.length };
      for (const c of [new CreateCmd('d', 'a', 'new'), new ReplaceCmd('b', undefined, 'r'), new DeleteCmd('c'), new PatchCmd('d', 'a', 'p')])
        await c.run(model, real);
      const opened = await openWatch(ctx, collectionPath(CONFIGMAPS, ns), { watch: 'true', resourceVersion: point.rv });
      if (opened.gone) fail(`a watch from the fresh list's resourceVersion ${point.rv} got 410 too`);
      try {
        const expected = expectedAfter(model, point.at, undefined);
        const events = await readUntil(opened.stream, (evs) => evs.length >= expected.length, 5000);
        compareEvents(events, expected, `the watch from the relist's resourceVersion ${point.rv}`);
        for (const e of events) {
          const o = e.object as KubeObject;
          if (e.type === 'DELETED') cache.delete(o.metadata.name!);
          else cache.set(o.metadata.name!, o);
        }
      } finally {
        opened.stream.close();
      }
      const got = [...cache].map(([n, o]) => [n, essence(o)]).sort();
      const final = [...model.objects].map(([n, o]) => [n, essence(o)]).sort();
      if (JSON.stringify(got) !== JSON.stringify(final))
        fail(`the cache rebuilt from relist + watch differs from the model: expected ${short(final)}, got ${short(got)}`);
    });
  },
);
