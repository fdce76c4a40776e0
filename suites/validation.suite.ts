// Validation (spec 2.2-2.5): for each rule, generated invalid values are refused with 422 and a cause that
// names the field under test (a server may report more causes; the one for the field must be there), and
// nothing is stored; generated valid values for the same field are accepted and stored as sent. A check
// that only tried invalid input would pass a server that refuses everything.
import fc from 'fast-check';
import type { KubeObject } from '../simulator/api/meta.ts';
import { check, type CheckContext } from './harness/check.ts';
import { labelKey } from './harness/arbitraries.ts';
import type { DecodedResponse } from './harness/client.ts';
import { describeResponse, expectEqual, expectStatusCode, fail, forRows } from './harness/expect.ts';
import { collectionPath, fixture, objectPath, type KindRef } from './harness/fixtures.ts';
import { DEPLOYMENTS, NEEDS_NAMESPACES, needs } from './harness/objects.ts';
import { specTables } from './harness/spec.ts';
import type { JsonObject, JsonValue } from './harness/models/json.ts';
import { containerHosts, dnsLabelArb, getIn, kindLabel, setIn, type ContainerHost } from './harness/workloads.ts';

const JOBS: KindRef = { group: 'batch', version: 'v1', kind: 'Job', resource: 'jobs', namespaced: true };
const CRONJOBS: KindRef = { group: 'batch', version: 'v1beta1', kind: 'CronJob', resource: 'cronjobs', namespaced: true };

interface Cause {
  reason?: string;
  message?: string;
  field?: string;
}

function causesOf(res: DecodedResponse): Cause[] {
  const body = res.object as { details?: { causes?: Cause[] } } | undefined;
  return Array.isArray(body?.details?.causes) ? body!.details!.causes! : [];
}

/**
 * Expects 422 with a cause whose field ends with one of the given paths (relative endings such as
 * `containers[1].name`, so the prefix of the kind does not matter), and that nothing was stored.
 */
async function expectInvalid(ctx: CheckContext, ref: KindRef, ns: string, body: JsonObject, fields: string[], what: string): Promise<void> {
  const res = await ctx.client.create(collectionPath(ref, ns), body);
  expectStatusCode(res, 422, what);
  const causes = causesOf(res);
  const named = causes.some((c) => typeof c.field === 'string' && fields.some((f) => c.field === f || c.field!.endsWith(`.${f}`)));
  if (!named) fail(`${what}: 422 without a cause naming ${fields.join(' or ')} (causes: ${JSON.stringify(causes.map((c) => c.field))})`);
  const name = (body.metadata as JsonObject).name as string;
  const after = await ctx.client.get(objectPath(ref, name, ns));
  expectStatusCode(after, 404, `${what}: GET after the refused create`);
}

async function expectValid(
  ctx: CheckContext,
  ref: KindRef,
  ns: string,
  body: JsonObject,
  checks: Array<[string, JsonValue | undefined]>,
  what: string,
): Promise<KubeObject> {
  const res = await ctx.client.create(collectionPath(ref, ns), body);
  expectStatusCode(res, [200, 201, 202], what);
  const name = (body.metadata as JsonObject).name as string;
  const read = await ctx.client.get(objectPath(ref, name, ns));
  if (read.status !== 200 || !read.object) fail(`${what}: GET after create answered ${describeResponse(read)}`);
  for (const [path, want] of checks) expectEqual(getIn(read.object, path), want, `${what}: ${path} read back`);
  return read.object;
}

/** Non-empty strings outside an enum: case variants, near misses and random words ("" means unset). */
function notInEnum(values: readonly string[]): fc.Arbitrary<string> {
  return fc
    .oneof(
      fc.constantFrom(...values).map((v) => v.toLowerCase()),
      fc.constantFrom(...values).map((v) => v.toUpperCase()),
      fc.constantFrom(...values).map((v) => `${v} `),
      fc.constantFrom(...values).map((v) => `${v}s`),
      fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,12}$/),
    )
    .filter((s) => s.trim() !== '' && !values.includes(s));
}

function enumOf(type: string, field: string): string[] {
  const row = specTables().fieldRow(type, field);
  if (!row?.enum) throw new Error(`validation suite: field row ${type}.${field} has no enum`);
  return [...row.enum];
}

function hostsServed(ctx: CheckContext): ContainerHost[] {
  const served = containerHosts().filter((h) => ctx.serves(needs(h.ref, ['create', 'get'])));
  if (served.length === 0) ctx.skip('target serves none of the kinds that carry containers');
  return served;
}

function withContainers(host: ContainerHost, name: string, ns: string, containers: JsonObject[]): JsonObject {
  const obj = fixture(host.ref, name, ns) as unknown as JsonObject;
  setIn(obj, host.containersPath, containers);
  return obj;
}

// ---- container enums: imagePullPolicy, terminationMessagePolicy --------------------------------------

for (const field of ['imagePullPolicy', 'terminationMessagePolicy'] as const) {
  const row = specTables().fieldRow('Container', field)!;
  check(
    `validation.Container.${field}`,
    { rows: [row.id, 'type.Container'], requires: [NEEDS_NAMESPACES], title: `container ${field} outside ${row.enum!.join(', ')} is 422 naming containers[i].${field}; each enum value is accepted` },
    async (ctx) => {
      const hosts = hostsServed(ctx);
      const ns = await ctx.namespace();
      const values = enumOf('Container', field);
      const arb = fc.record({
        host: fc.constantFrom(...hosts),
        names: fc.uniqueArray(dnsLabelArb(10), { minLength: 1, maxLength: 3 }),
        bad: fc.option(notInEnum(values), { nil: undefined }),
        good: fc.constantFrom(...values),
        at: fc.nat(),
      });
      await ctx.forAll(arb, async ({ host, names, bad, good, at }) => {
        const i = at % names.length;
        const containers: JsonObject[] = names.map((n, j) => ({ name: n, image: 'busybox:1.28', [field]: j === i && bad !== undefined ? bad : good }));
        const name = ctx.uniqueName(host.ref.kind);
        const body = withContainers(host, name, ns, containers);
        const what = `create ${kindLabel(host.ref)} ${name} with containers[${i}].${field} ${JSON.stringify(bad ?? good)}`;
        if (bad !== undefined) await expectInvalid(ctx, host.ref, ns, body, [`containers[${i}].${field}`], what);
        else {
          const read = await expectValid(ctx, host.ref, ns, body, [], what);
          const got = ((getIn(read, host.containersPath) as JsonObject[] | undefined) ?? []).map((c) => c[field]);
          expectEqual(got, names.map(() => good), `${what}: ${field} of each container read back`);
        }
      });
    },
  );
}

// ---- container name: DNS_LABEL and unique -------------------------------------------------------------

const badLabel: fc.Arbitrary<string> = fc.oneof(
  dnsLabelArb(10).map((s) => s.toUpperCase()).filter((s) => /[A-Z]/.test(s)),
  fc.tuple(dnsLabelArb(6), dnsLabelArb(6)).map(([a, b]) => `${a}_${b}`),
  fc.tuple(dnsLabelArb(6), dnsLabelArb(6)).map(([a, b]) => `${a}.${b}`),
  dnsLabelArb(8).map((s) => `-${s}`),
  dnsLabelArb(8).map((s) => `${s}-`),
  fc.integer({ min: 64, max: 80 }).map((n) => 'a'.repeat(n)),
  fc.constantFrom('', 'a b', 'ü', 'x/y'),
);

check(
  'validation.Container.name',
  { rows: ['field.Container.name', 'type.Container'], requires: [NEEDS_NAMESPACES], title: 'a container name that is not a DNS_LABEL, or repeats in the pod, is 422 naming containers[i].name; distinct DNS labels are accepted' },
  async (ctx) => {
    const hosts = hostsServed(ctx);
    const ns = await ctx.namespace();
    const arb = fc.record({
      host: fc.constantFrom(...hosts),
      names: fc.uniqueArray(dnsLabelArb(20), { minLength: 1, maxLength: 3 }),
      fault: fc.oneof(fc.constant<'none'>('none'), fc.constant<'duplicate'>('duplicate'), badLabel.map((b) => ({ bad: b }))),
      at: fc.nat(),
    });
    await ctx.forAll(arb, async ({ host, names, fault, at }) => {
      const list = [...names];
      const i = at % list.length;
      let fields: string[] = [];
      if (fault === 'duplicate') {
        list.push(list[i]);
        fields = [`containers[${list.length - 1}].name`, `containers[${i}].name`];
      } else if (fault !== 'none') {
        list[i] = fault.bad;
        fields = [`containers[${i}].name`];
      }
      const name = ctx.uniqueName(host.ref.kind);
      const body = withContainers(host, name, ns, list.map((n) => ({ name: n, image: 'busybox:1.28' })));
      const what = `create ${kindLabel(host.ref)} ${name} with container names ${JSON.stringify(list)}`;
      if (fields.length > 0) await forRows('field.Container.name', () => expectInvalid(ctx, host.ref, ns, body, fields, what));
      else {
        const read = await expectValid(ctx, host.ref, ns, body, [], what);
        expectEqual(((getIn(read, host.containersPath) as JsonObject[]) ?? []).map((c) => c.name), list, `${what}: container names read back`);
      }
    });
  },
);

// ---- tty needs stdin --------------------------------------------------------------------------------

check(
  'validation.Container.tty',
  { rows: ['field.Container.tty', 'field.Container.stdin'], requires: [NEEDS_NAMESPACES], title: 'tty without stdin is 422 naming containers[i].tty (or .stdin); tty with stdin, and stdin alone, are accepted' },
  async (ctx) => {
    const hosts = hostsServed(ctx);
    const ns = await ctx.namespace();
    const arb = fc.record({
      host: fc.constantFrom(...hosts),
      tty: fc.option(fc.boolean(), { nil: undefined }),
      stdin: fc.option(fc.boolean(), { nil: undefined }),
      sidecar: fc.boolean(),
    });
    await ctx.forAll(arb, async ({ host, tty, stdin, sidecar }) => {
      const c: JsonObject = { name: 'main', image: 'busybox:1.28' };
      if (tty !== undefined) c.tty = tty;
      if (stdin !== undefined) c.stdin = stdin;
      const containers = sidecar ? [{ name: 'side', image: 'busybox:1.28' }, c] : [c];
      const i = containers.length - 1;
      const name = ctx.uniqueName(host.ref.kind);
      const body = withContainers(host, name, ns, containers);
      const what = `create ${kindLabel(host.ref)} ${name} with containers[${i}] tty ${tty} stdin ${stdin}`;
      if (tty === true && stdin !== true) await expectInvalid(ctx, host.ref, ns, body, [`containers[${i}].tty`, `containers[${i}].stdin`], what);
      else await expectValid(ctx, host.ref, ns, body, [], what);
    });
  },
);

// ---- CronJob concurrencyPolicy and Deployment strategy type enums -------------------------------------

check(
  'validation.CronJobSpec.concurrencyPolicy',
  {
    rows: ['field.CronJobSpec.concurrencyPolicy', 'rule.lifecycle.cronjob-concurrency'],
    requires: [NEEDS_NAMESPACES, needs(CRONJOBS, ['create', 'get'])],
    title: 'concurrencyPolicy outside Allow, Forbid, Replace is 422 naming spec.concurrencyPolicy; each value is accepted and kept',
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    const values = enumOf('CronJobSpec', 'concurrencyPolicy');
    await ctx.forAll(fc.record({ bad: fc.option(notInEnum(values), { nil: undefined }), good: fc.constantFrom(...values) }), async ({ bad, good }) => {
      const name = ctx.uniqueName('cron');
      const body = fixture(CRONJOBS, name, ns) as unknown as JsonObject;
      setIn(body, 'spec.concurrencyPolicy', bad ?? good);
      const what = `create CronJob ${name} with spec.concurrencyPolicy ${JSON.stringify(bad ?? good)}`;
      if (bad !== undefined) await expectInvalid(ctx, CRONJOBS, ns, body, ['spec.concurrencyPolicy'], what);
      else await expectValid(ctx, CRONJOBS, ns, body, [['spec.concurrencyPolicy', good]], what);
    });
  },
);

function deployment(name: string, ns: string): JsonObject {
  return fixture(DEPLOYMENTS, name, ns) as unknown as JsonObject;
}

check(
  'validation.DeploymentStrategy.type',
  {
    rows: ['field.DeploymentStrategy.type', 'rule.lifecycle.deployment-strategy'],
    requires: [NEEDS_NAMESPACES, needs(DEPLOYMENTS, ['create', 'get'])],
    title: 'strategy.type outside Recreate, RollingUpdate is 422 naming spec.strategy.type; each value is accepted and kept',
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    const values = enumOf('DeploymentStrategy', 'type');
    await ctx.forAll(fc.record({ bad: fc.option(notInEnum(values), { nil: undefined }), good: fc.constantFrom(...values) }), async ({ bad, good }) => {
      const name = ctx.uniqueName('strategy');
      const body = deployment(name, ns);
      setIn(body, 'spec.strategy', { type: bad ?? good });
      const what = `create Deployment ${name} with spec.strategy.type ${JSON.stringify(bad ?? good)}`;
      if (bad !== undefined) await expectInvalid(ctx, DEPLOYMENTS, ns, body, ['spec.strategy.type'], what);
      else await expectValid(ctx, DEPLOYMENTS, ns, body, [['spec.strategy.type', good]], what);
    });
  },
);

// ---- maxSurge and maxUnavailable not both 0 -------------------------------------------------------------

const zero = fc.constantFrom<number | string>(0, '0%');
const surge = fc.oneof(zero, fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 200 }).map((p) => `${p}%`));
const unavailable = fc.oneof(zero, fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 100 }).map((p) => `${p}%`));
const isZeroValue = (v: number | string) => v === 0 || v === '0%';

check(
  'validation.RollingUpdateDeployment.not-both-zero',
  {
    rows: ['rule.fields.rolling-update-not-both-zero', 'field.RollingUpdateDeployment.maxSurge', 'field.RollingUpdateDeployment.maxUnavailable'],
    requires: [NEEDS_NAMESPACES, needs(DEPLOYMENTS, ['create', 'get'])],
    title: 'maxSurge and maxUnavailable both 0 (as 0 or 0%) is 422 naming one of them; any other pair is accepted and kept',
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    await ctx.forAll(fc.record({ maxSurge: surge, maxUnavailable: unavailable }), async (ru) => {
      const name = ctx.uniqueName('rolling');
      const body = deployment(name, ns);
      setIn(body, 'spec.strategy', { type: 'RollingUpdate', rollingUpdate: ru });
      const what = `create Deployment ${name} with rollingUpdate ${JSON.stringify(ru)}`;
      if (isZeroValue(ru.maxSurge) && isZeroValue(ru.maxUnavailable)) {
        await expectInvalid(ctx, DEPLOYMENTS, ns, body, ['spec.strategy.rollingUpdate.maxUnavailable', 'spec.strategy.rollingUpdate.maxSurge'], what);
      } else {
        await expectValid(
          ctx,
          DEPLOYMENTS,
          ns,
          body,
          [
            ['spec.strategy.rollingUpdate.maxSurge', ru.maxSurge],
            ['spec.strategy.rollingUpdate.maxUnavailable', ru.maxUnavailable],
          ],
          what,
        );
      }
    });
  },
);

// ---- Deployment selector must match the template labels ----------------------------------------------

const labelValueArb = fc.stringMatching(/^[a-z0-9]([a-z0-9._-]{0,8}[a-z0-9])?$/);
const labelMap = (min: number) => fc.dictionary(labelKey(), labelValueArb, { minKeys: min, maxKeys: 3 });

check(
  'validation.DeploymentSpec.selector-matches-template',
  {
    rows: ['rule.fields.deployment-selector-matches-template', 'field.DeploymentSpec.selector'],
    requires: [NEEDS_NAMESPACES, needs(DEPLOYMENTS, ['create', 'get'])],
    title: 'a selector that does not match the template labels is 422; template labels that include the selector are accepted',
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    const arb = fc.record({ selector: labelMap(1), extra: labelMap(0), drop: fc.nat(), change: fc.boolean(), mismatch: fc.boolean() });
    await ctx.forAll(arb, async ({ selector, extra, drop, change, mismatch }) => {
      const keys = Object.keys(selector);
      const template: Record<string, string> = { ...extra, ...selector };
      if (mismatch) {
        const k = keys[drop % keys.length];
        if (change) template[k] = `${selector[k]}x`.slice(-10).replace(/^[^a-z0-9]/, 'y');
        else delete template[k];
        if (template[k] === selector[k]) template[k] = 'other';
      }
      const name = ctx.uniqueName('selector');
      const body = deployment(name, ns);
      setIn(body, 'spec.selector', { matchLabels: selector });
      setIn(body, 'spec.template.metadata.labels', template);
      const what = `create Deployment ${name} with selector ${JSON.stringify(selector)} and template labels ${JSON.stringify(template)}`;
      if (mismatch) await expectInvalid(ctx, DEPLOYMENTS, ns, body, ['spec.template.metadata.labels', 'spec.selector'], what);
      else await expectValid(ctx, DEPLOYMENTS, ns, body, [['spec.selector.matchLabels', selector]], what);
    });
  },
);

// ---- Job activeDeadlineSeconds positive -------------------------------------------------------------

check(
  'validation.JobSpec.activeDeadlineSeconds',
  {
    rows: ['rule.fields.job-active-deadline-positive', 'field.JobSpec.activeDeadlineSeconds'],
    requires: [NEEDS_NAMESPACES, needs(JOBS, ['create', 'get'])],
    title: 'activeDeadlineSeconds 0 or negative is 422 naming spec.activeDeadlineSeconds; positive values are accepted and kept',
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    const value = fc.oneof(fc.constant(0), fc.integer({ min: -1_000_000, max: -1 }), fc.integer({ min: 1, max: 1_000_000 }));
    await ctx.forAll(value, async (seconds) => {
      const name = ctx.uniqueName('job');
      const body = fixture(JOBS, name, ns) as unknown as JsonObject;
      setIn(body, 'spec.activeDeadlineSeconds', seconds);
      const what = `create Job ${name} with spec.activeDeadlineSeconds ${seconds}`;
      if (seconds <= 0) await expectInvalid(ctx, JOBS, ns, body, ['spec.activeDeadlineSeconds'], what);
      else await expectValid(ctx, JOBS, ns, body, [['spec.activeDeadlineSeconds', seconds]], what);
    });
  },
);
