// Custom resource types (spec 4.1: "Object types that are defined by custom resource definitions or API
// extensions do not support protobuf. A client spanning all types sends an Accept header with the protobuf type
// followed by application/json."). Run when the target serves apiextensions.k8s.io: each check defines its own
// CustomResourceDefinition in a group unique to the run, waits until the type is served, probes its instances,
// and deletes the definition again. Skipped, with the reason, on a target without apiextensions.
import { check, type CheckContext } from './harness/check.ts';
import type { RawResponse } from './harness/client.ts';
import type { Requirement } from './harness/discovery.ts';
import { expectEqual, expectStatusCode, expectTrue, fail } from './harness/expect.ts';
import { NEEDS_NAMESPACES } from './harness/objects.ts';

const CRDS: Requirement = { group: 'apiextensions.k8s.io', version: 'v1beta1', resource: 'customresourcedefinitions', verbs: ['create', 'delete', 'get'] };
const JSON_TYPE = { 'Content-Type': 'application/json' };

interface CustomType {
  group: string;
  collection: (ns: string) => string;
  object: (ns: string, name: string) => string;
  remove(): Promise<void>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- wire JSON
const parse = (res: RawResponse): Record<string, any> => {
  try {
    return JSON.parse(res.text());
  } catch {
    return {};
  }
};

/** Defines a namespaced type in a group of this check's own and waits (time budget) until its instances are served. */
async function defineType(ctx: CheckContext): Promise<CustomType> {
  const group = `${ctx.uniqueName('g')}.conformance.example.com`;
  const name = `widgets.${group}`;
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1beta1',
    kind: 'CustomResourceDefinition',
    metadata: { name },
    spec: { group, version: 'v1', scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget' } },
  };
  const res = await ctx.client.raw({ method: 'POST', path: '/apis/apiextensions.k8s.io/v1beta1/customresourcedefinitions', headers: JSON_TYPE, body: JSON.stringify(crd) });
  // A create may answer 200, 201 or 202 (spec 1.8); a CRD is not judged here, only set up.
  if (![200, 201, 202].includes(res.status)) fail(`setup: creating CustomResourceDefinition ${name}: HTTP ${res.status} ${res.text().slice(0, 300)}`);
  const remove = async () => {
    await ctx.client.raw({ method: 'DELETE', path: `/apis/apiextensions.k8s.io/v1beta1/customresourcedefinitions/${name}` }).catch(() => undefined);
  };
  // Established is asynchronous on a real server too: poll discovery of the new group version within a budget.
  const deadline = Date.now() + 30_000;
  for (;;) {
    const d = await ctx.client.raw({ method: 'GET', path: `/apis/${group}/v1` });
    if (d.status === 200 && (parse(d).resources ?? []).some((r: { name?: string }) => r.name === 'widgets')) break;
    if (Date.now() > deadline) {
      await remove();
      fail(`setup: ${name} was not served within 30 s (GET /apis/${group}/v1: HTTP ${d.status})`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    group,
    collection: (ns) => `/apis/${group}/v1/namespaces/${ns}/widgets`,
    object: (ns, n) => `/apis/${group}/v1/namespaces/${ns}/widgets/${n}`,
    remove,
  };
}

async function createWidget(ctx: CheckContext, t: CustomType, ns: string, name: string, size = 1): Promise<Record<string, unknown>> {
  const res = await ctx.client.raw({ method: 'POST', path: t.collection(ns), headers: JSON_TYPE, body: JSON.stringify({ apiVersion: `${t.group}/v1`, kind: 'Widget', metadata: { name }, spec: { size } }) });
  expectStatusCode(res, [200, 201, 202], `POST ${t.collection(ns)}`);
  return parse(res);
}

check(
  'crd.no-protobuf',
  {
    rows: ['rule.media.custom-types-no-protobuf'],
    requires: [NEEDS_NAMESPACES, CRDS],
    title: 'a custom type is never answered in protobuf: protobuf alone in Accept is 406, protobuf then JSON is JSON',
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    const t = await defineType(ctx);
    try {
      await createWidget(ctx, t, ns, 'w1');
      const pb = `application/vnd.${ctx.vendor}.protobuf`;
      for (const path of [t.object(ns, 'w1'), t.collection(ns)]) {
        const only = await ctx.client.raw({ method: 'GET', path, headers: { Accept: pb } });
        expectStatusCode(only, 406, `GET ${path} with Accept ${pb}`);
        const both = await ctx.client.raw({ method: 'GET', path, headers: { Accept: `${pb}, application/json` } });
        expectStatusCode(both, 200, `GET ${path} with Accept ${pb}, application/json`);
        expectEqual(both.mediaType, 'application/json', `GET ${path} with Accept ${pb}, application/json: Content-Type`);
        expectTrue(both.body[0] === 0x7b, `GET ${path} with Accept ${pb}, application/json: the body is not JSON`);
      }
    } finally {
      await t.remove();
    }
  },
);

check(
  'crd.generic-behaviour',
  {
    rows: ['rule.chunking.limit-and-continue'],
    requires: [NEEDS_NAMESPACES, CRDS],
    title: 'instances of a custom type are created, read, listed in chunks, watched from a resourceVersion, JSON- and merge-patched, and deleted',
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    const t = await defineType(ctx);
    try {
      for (let i = 0; i < 3; i++) await createWidget(ctx, t, ns, `w${i}`, i);
      // Chunks of at most 2 (a server may send fewer, or ignore the limit): every object exactly once.
      const names: string[] = [];
      let token: string | undefined;
      let listRv: string | undefined;
      for (let pages = 0; pages < 10; pages++) {
        const res = await ctx.client.raw({ method: 'GET', path: t.collection(ns), query: { limit: '2', ...(token ? { continue: token } : {}) } });
        expectStatusCode(res, 200, `GET ${t.collection(ns)}?limit=2${token ? '&continue=...' : ''}`);
        const page = parse(res);
        listRv ??= String(page.metadata?.resourceVersion);
        for (const item of page.items ?? []) names.push(item.metadata?.name);
        token = page.metadata?.continue || undefined;
        if (!token) break;
      }
      expectEqual([...names].sort(), ['w0', 'w1', 'w2'], 'the objects over all chunks');
      // Watch from the list's resourceVersion sees a later change.
      const watch = await ctx.client.watch(t.collection(ns), { query: { watch: 'true', resourceVersion: listRv! }, timeoutMs: 15_000 });
      try {
        const patched = await ctx.client.raw({ method: 'PATCH', path: t.object(ns, 'w0'), headers: { 'Content-Type': 'application/merge-patch+json' }, body: JSON.stringify({ spec: { size: 10 } }) });
        expectStatusCode(patched, 200, 'merge patch of a custom resource');
        expectEqual(parse(patched).spec?.size, 10, 'spec.size after the merge patch');
        let seen = false;
        for (let i = 0; i < 10 && !seen; i++) {
          const ev = await watch.next(10_000);
          if (!ev) break;
          const obj = ev.object as { metadata?: { name?: string }; spec?: { size?: number } };
          seen = ev.type === 'MODIFIED' && obj.metadata?.name === 'w0' && obj.spec?.size === 10;
        }
        expectTrue(seen, 'the watch from the list resourceVersion delivered the MODIFIED event of w0');
      } finally {
        watch.close();
      }
      const jp = await ctx.client.raw({ method: 'PATCH', path: t.object(ns, 'w1'), headers: { 'Content-Type': 'application/json-patch+json' }, body: JSON.stringify([{ op: 'replace', path: '/spec/size', value: 7 }]) });
      expectStatusCode(jp, 200, 'JSON patch of a custom resource');
      const del = await ctx.client.raw({ method: 'DELETE', path: t.object(ns, 'w2') });
      expectTrue(del.status === 200 || del.status === 202, `DELETE of a custom resource: HTTP ${del.status}`);
      const gone = await ctx.client.raw({ method: 'GET', path: t.object(ns, 'w2') });
      expectStatusCode(gone, 404, 'GET after DELETE');
    } finally {
      await t.remove();
    }
  },
);
