// Defaults (spec 2.2-2.5, 8.1; wire facts 5), generated from the field rows of spec-tables/fields.yaml:
// one check per row with a default (a new default row gets a check without code changes), run over every
// kind the row names that the target serves. Each generated object leaves the field out (the default must
// appear) or sets it to a random valid value (that value must stay, an explicit 0 included). A default
// that is the zero value of its type (false, 0) may also be absent from the answer: the real server omits
// zero-valued non-pointer fields. imagePullPolicy follows the image tag rule over generated image names.
import fc from 'fast-check';
import type { FieldRow } from '../spec-tables/index.ts';
import type { KubeObject } from '../simulator/api/meta.ts';
import { check, type CheckContext } from './harness/check.ts';
import { describeResponse, expectTrue, fail, forRows } from './harness/expect.ts';
import { collectionPath, objectPath, fixture, type KindRef } from './harness/fixtures.ts';
import { NEEDS_NAMESPACES, needs } from './harness/objects.ts';
import { specTables } from './harness/spec.ts';
import type { JsonObject, JsonValue } from './harness/models/json.ts';
import { containerHosts, dnsLabelArb, getIn, kindLabel, kindRefOf, setIn, simpleContainers, type ContainerHost } from './harness/workloads.ts';

type Scalar = string | number | boolean;

interface Target {
  ref: KindRef;
  /** For Container rows: where the containers list sits; the field is set on every container. */
  containersPath?: string;
}

/** Value ranges the rows do not carry but validation needs (cross-field rules of the real server). */
const INTEGER_RANGE: Record<string, { min: number; max: number }> = {
  'field.DeploymentSpec.minReadySeconds': { min: 0, max: 300 }, // must stay below progressDeadlineSeconds (default 600)
  'field.DeploymentSpec.progressDeadlineSeconds': { min: 1, max: 3600 }, // must exceed minReadySeconds (default 0)
};

function explicitValue(row: FieldRow): fc.Arbitrary<Scalar> {
  if (row.enum) return fc.constantFrom(...row.enum);
  if (row.jsonType === 'boolean') return fc.boolean();
  if (row.jsonType === 'integer') {
    const range = INTEGER_RANGE[row.id] ?? { min: Math.max(0, row.minimum ?? 0), max: 20 };
    const any = fc.integer(range);
    return range.min <= 0 ? fc.oneof(fc.constant(0), any) : any;
  }
  if (row.jsonType?.includes('percentage')) {
    const max = row.name === 'maxUnavailable' ? 100 : 200;
    return fc.oneof(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max }).map((p) => `${p}%`));
  }
  if (row.jsonType === 'string') return dnsLabelArb(10).map((w) => `/tmp/${w}`);
  throw new Error(`defaults suite: no generator of explicit values for ${row.id} (${row.jsonType})`);
}

function isZero(v: unknown): boolean {
  return v === false || v === 0 || v === '';
}

/** The field's value in the answer matches what is expected; a zero-valued default may be absent. */
function valueMatches(actual: unknown, expected: Scalar, rowDefault: unknown): boolean {
  if (actual === undefined) return isZero(expected) && isZero(rowDefault);
  return actual === expected;
}

function targetsOf(row: FieldRow): Target[] {
  if (row.type === 'Container') {
    const hosts = containerHosts().filter((h) => row.kinds.includes(kindLabel(h.ref)));
    return hosts.map((h: ContainerHost) => ({ ref: h.ref, containersPath: h.containersPath }));
  }
  return row.kinds.map(kindRefOf).filter((r): r is KindRef => r !== undefined).map((ref) => ({ ref }));
}

function relatedRows(row: FieldRow): string[] {
  const t = specTables();
  const limits = t.limits.filter((l) => (l as { refs?: string[] | null }).refs?.includes(row.id)).map((l) => l.id);
  const rules = t.rules.filter((r) => r.refs?.includes(row.id) && /default/i.test(r.statement)).map((r) => r.id);
  return [row.id, ...(row.defaultRule ? [`defaultRule.${row.defaultRule}`] : []), ...limits, ...rules].filter((id) => t.byId(id)?.testable !== false);
}

interface Case {
  target: Target;
  /** One entry per container (Container rows) or one entry: undefined = omitted. */
  values: Array<Scalar | undefined>;
  containers: JsonObject[];
  strategyType?: string;
}

function caseArb(row: FieldRow, targets: Target[]): fc.Arbitrary<Case> {
  const value = fc.option(explicitValue(row), { nil: undefined, freq: 2 });
  return fc
    .record({ target: fc.constantFrom(...targets), containers: simpleContainers(1, 3), strategyType: fc.constantFrom(undefined, 'RollingUpdate') })
    .chain((c) =>
      fc
        .array(value, { minLength: c.target.containersPath ? c.containers.length : 1, maxLength: c.target.containersPath ? c.containers.length : 1 })
        .map((values) => ({ ...c, values })),
    );
}

function buildObject(row: FieldRow, c: Case, name: string, ns: string): JsonObject {
  const obj = fixture(c.target.ref, name, ns) as unknown as JsonObject;
  if (c.target.containersPath) {
    const containers = c.containers.map((container, i) => {
      const out: JsonObject = { ...container };
      const v = c.values[i];
      if (v !== undefined) out[row.name] = v;
      if (row.name === 'tty' && v === true) out.stdin = true; // tty needs stdin (2.2)
      return out;
    });
    setIn(obj, c.target.containersPath, containers);
  } else {
    // The fixture may set the field itself (replicas): leave it out unless the case sets it.
    setIn(obj, row.jsonPath, c.values[0] as JsonValue | undefined);
    if (row.type === 'RollingUpdateDeployment' && c.strategyType) setIn(obj, 'spec.strategy.type', c.strategyType);
  }
  return obj;
}

function expectDefaults(row: FieldRow, c: Case, obj: KubeObject, what: string): void {
  const expected = (v: Scalar | undefined) => (v === undefined ? (row.default as Scalar) : v);
  const at = c.target.containersPath;
  if (at) {
    const containers = getIn(obj, at);
    expectTrue(
      Array.isArray(containers) && containers.length === c.containers.length,
      `${what}: ${at} has ${Array.isArray(containers) ? containers.length : 'no'} containers, sent ${c.containers.length}`,
    );
    c.containers.forEach((sent, i) => {
      const got = (containers as JsonObject[]).find((x) => x.name === sent.name)?.[row.name];
      const want = expected(c.values[i]);
      const how = c.values[i] === undefined ? 'left out (default)' : 'set explicitly';
      if (!valueMatches(got, want, row.default))
        fail(`${what}: ${at}[name=${sent.name}].${row.name} ${how}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
    });
    return;
  }
  const got = getIn(obj, row.jsonPath);
  const want = expected(c.values[0]);
  const how = c.values[0] === undefined ? 'left out (default)' : 'set explicitly';
  if (!valueMatches(got, want, row.default)) fail(`${what}: ${row.jsonPath} ${how}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
}

async function createAndRead(ctx: CheckContext, ref: KindRef, ns: string, body: JsonObject, what: string): Promise<{ answer?: KubeObject; read: KubeObject }> {
  const name = (body.metadata as JsonObject).name as string;
  const res = await ctx.client.create(collectionPath(ref, ns), body);
  if (![200, 201, 202].includes(res.status)) fail(`${what}: create answered ${describeResponse(res)}`, 'rule.writes.create-codes');
  const read = await ctx.client.get(objectPath(ref, name, ns));
  if (read.status !== 200 || !read.object) fail(`${what}: GET after create answered ${describeResponse(read)}`);
  return { answer: res.object?.kind === ref.kind ? res.object : undefined, read: read.object };
}

for (const row of specTables().fields.filter((f) => f.default !== null && f.testable)) {
  const targets = targetsOf(row);
  if (targets.length === 0) continue;
  const rows = relatedRows(row);
  check(
    `defaults.${row.type}.${row.name}`,
    {
      rows,
      requires: [NEEDS_NAMESPACES],
      title: `${row.jsonPath} defaults to ${JSON.stringify(row.default)} when left out and keeps an explicit value (${targets.map((t) => kindLabel(t.ref)).join(', ')})`,
    },
    async (ctx) => {
      const served = targets.filter((t) => ctx.serves(needs(t.ref, ['create', 'get'])));
      if (served.length === 0) ctx.skip(`target serves none of ${targets.map((t) => kindLabel(t.ref)).join(', ')}`);
      const ns = await ctx.namespace();
      await ctx.forAll(caseArb(row, served), async (c) => {
        const name = ctx.uniqueName(c.target.ref.kind);
        const body = buildObject(row, c, name, ns);
        const what = `${kindLabel(c.target.ref)} ${name} (${row.jsonPath} ${c.values.map((v) => (v === undefined ? 'omitted' : JSON.stringify(v))).join(', ')})`;
        const { answer, read } = await createAndRead(ctx, c.target.ref, ns, body, what);
        await forRows(rows, () => {
          if (answer) expectDefaults(row, c, answer, `${what}, create answer`);
          expectDefaults(row, c, read, `${what}, GET`);
        });
      });
    },
  );
}

// ---- imagePullPolicy by image tag (defaultRule.image-tag) ----------------------------------------------

interface ImageRef {
  image: string;
  tag?: string;
  digest?: string;
}

const component = fc.stringMatching(/^[a-z0-9]{1,8}([._-][a-z0-9]{1,6})?$/);
const imageRef: fc.Arbitrary<ImageRef> = fc
  .record({
    host: fc.constantFrom(undefined, 'registry.example.com', 'localhost:5000', 'gcr.io', 'my-registry.local:443'),
    path: fc.array(component, { minLength: 1, maxLength: 3 }),
    tag: fc.oneof(
      fc.constant(undefined),
      fc.constant('latest'),
      fc.constantFrom('1.0', 'v2', 'LATEST', 'latest-1', 'stable'),
      fc.stringMatching(/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,12}$/),
    ),
    digest: fc.option(
      fc.stringMatching(/^[0-9a-f]{64}$/).map((h) => `sha256:${h}`),
      { nil: undefined, freq: 4 },
    ),
  })
  .map(({ host, path, tag, digest }) => ({
    image: `${host ? `${host}/` : ''}${path.join('/')}${tag !== undefined ? `:${tag}` : ''}${digest ? `@${digest}` : ''}`,
    tag,
    digest,
  }));

/** The model of the rule: Always for the tag latest, and for no tag and no digest (read as latest). */
export function expectedPullPolicy(ref: ImageRef): 'Always' | 'IfNotPresent' {
  if (ref.tag === 'latest') return 'Always';
  if (ref.tag === undefined && ref.digest === undefined) return 'Always';
  return 'IfNotPresent';
}

{
  const row = specTables().fieldRow('Container', 'imagePullPolicy');
  const hosts = containerHosts().filter((h) => row?.kinds.includes(kindLabel(h.ref)));
  if (row && hosts.length > 0) {
    const rows = [row.id, ...(row.defaultRule ? [`defaultRule.${row.defaultRule}`] : []), 'field.Container.image'];
    check(
      'defaults.Container.imagePullPolicy',
      { rows, requires: [NEEDS_NAMESPACES], title: 'imagePullPolicy defaults to Always for :latest or no tag, else IfNotPresent, over generated image names; an explicit value stays' },
      async (ctx) => {
        const served = hosts.filter((h) => ctx.serves(needs(h.ref, ['create', 'get'])));
        if (served.length === 0) ctx.skip('target serves none of the kinds that carry containers');
        const ns = await ctx.namespace();
        const arb = fc.record({
          host: fc.constantFrom(...served),
          containers: fc.uniqueArray(
            fc.record({ name: dnsLabelArb(10), image: imageRef, policy: fc.option(fc.constantFrom(...(row.enum ?? [])), { nil: undefined, freq: 4 }) }),
            { selector: (c) => c.name, minLength: 1, maxLength: 3 },
          ),
        });
        await ctx.forAll(arb, async ({ host, containers }) => {
          const name = ctx.uniqueName(host.ref.kind);
          const obj = fixture(host.ref, name, ns) as unknown as JsonObject;
          setIn(obj, host.containersPath, containers.map((c) => ({ name: c.name, image: c.image.image, ...(c.policy ? { imagePullPolicy: c.policy } : {}) })));
          const what = `${kindLabel(host.ref)} ${name}`;
          const { answer, read } = await createAndRead(ctx, host.ref, ns, obj, what);
          await forRows(rows, () => {
            for (const [label, o] of [['create answer', answer], ['GET', read]] as const) {
              if (!o) continue;
              const got = getIn(o, host.containersPath) as JsonObject[] | undefined;
              for (const c of containers) {
                const want = c.policy ?? expectedPullPolicy(c.image);
                const actual = got?.find((x) => x.name === c.name)?.imagePullPolicy;
                if (actual !== want)
                  fail(
                    `${what}, ${label}: container ${c.name} with image ${JSON.stringify(c.image.image)}${c.policy ? ` and imagePullPolicy ${c.policy}` : ''}: expected imagePullPolicy ${want}, got ${JSON.stringify(actual)}`,
                  );
              }
            }
          });
        });
      },
    );
  }
}

// ---- the 2.2 container defaults, every container-bearing kind, fixed examples ----------------------------------
// The property above draws its kinds and tags at random; this one tries the cases that matter on every kind the
// target serves, every run: :latest and no tag (Always), a version tag and a digest (IfNotPresent), and the other
// defaults of 2.2 (terminationMessagePath, terminationMessagePolicy; stdin, stdinOnce and tty false or absent).

const LATEST_CASES: Array<{ name: string; image: string; want: 'Always' | 'IfNotPresent' }> = [
  { name: 'latest', image: 'registry.example.com/app:latest', want: 'Always' },
  { name: 'untagged', image: 'busybox', want: 'Always' },
  { name: 'tagged', image: 'busybox:1.28', want: 'IfNotPresent' },
  { name: 'digest', image: `busybox@sha256:${'ab'.repeat(32)}`, want: 'IfNotPresent' },
];
const CONTAINER_DEFAULTS: Array<{ field: string; ok: (v: unknown) => boolean; text: string }> = [
  { field: 'terminationMessagePath', ok: (v) => v === '/dev/termination-log', text: '"/dev/termination-log"' },
  { field: 'terminationMessagePolicy', ok: (v) => v === 'File', text: '"File"' },
  { field: 'stdin', ok: (v) => v === undefined || v === false, text: 'false (or absent)' },
  { field: 'stdinOnce', ok: (v) => v === undefined || v === false, text: 'false (or absent)' },
  { field: 'tty', ok: (v) => v === undefined || v === false, text: 'false (or absent)' },
];

{
  const hosts = containerHosts();
  check(
    'defaults.container-defaults-every-kind',
    {
      rows: ['field.Container.imagePullPolicy', 'defaultRule.image-tag', ...CONTAINER_DEFAULTS.map((d) => `field.Container.${d.field}`)],
      requires: [NEEDS_NAMESPACES],
      title: 'on every kind that carries containers: imagePullPolicy Always for :latest and no tag, IfNotPresent for a version tag or digest; the other 2.2 defaults',
    },
    async (ctx) => {
      const served = hosts.filter((h) => ctx.serves(needs(h.ref, ['create', 'get'])));
      if (served.length === 0) ctx.skip('target serves none of the kinds that carry containers');
      const ns = await ctx.namespace();
      for (const host of served) {
        const name = ctx.uniqueName(host.ref.kind);
        const obj = fixture(host.ref, name, ns) as unknown as JsonObject;
        setIn(obj, host.containersPath, LATEST_CASES.map((c) => ({ name: c.name, image: c.image })));
        const what = `${kindLabel(host.ref)} ${name}`;
        const { answer, read } = await createAndRead(ctx, host.ref, ns, obj, what);
        for (const [label, o] of [['create answer', answer], ['GET', read]] as const) {
          if (!o) continue;
          const got = (getIn(o, host.containersPath) as JsonObject[] | undefined) ?? [];
          for (const c of LATEST_CASES) {
            const container = got.find((x) => x.name === c.name);
            await forRows(['field.Container.imagePullPolicy', 'defaultRule.image-tag'], () => {
              if (container?.imagePullPolicy !== c.want)
                fail(`${what}, ${label}: container ${c.name} with image ${JSON.stringify(c.image)}: expected imagePullPolicy ${c.want}, got ${JSON.stringify(container?.imagePullPolicy)}`);
            });
            for (const d of CONTAINER_DEFAULTS) {
              await forRows(`field.Container.${d.field}`, () => {
                if (!d.ok(container?.[d.field]))
                  fail(`${what}, ${label}: container ${c.name}: expected ${d.field} ${d.text} by default, got ${JSON.stringify(container?.[d.field])}`);
              });
            }
          }
        }
      }
    },
  );
}
