// Discovery and endpoints (spec 4.4-4.9): one check per endpoint row of the spec tables, generated from the
// row. Each sets up what the endpoint needs (a namespace, an object of the kind), calls the endpoint the way
// the row describes, and holds the answer to the row's status codes and response type.
import type { EndpointRow } from '../spec-tables/index.ts';
import type { KubeObject } from '../simulator/api/meta.ts';
import { check, type CheckContext } from './harness/check.ts';
import { groupVersionKey, type Requirement } from './harness/discovery.ts';
import { replaceWithRetry } from './harness/retry.ts';
import { describeResponse, expectEqual, expectStatusCode, expectTrue, fail } from './harness/expect.ts';
import { describeWatchRefusal } from './harness/list-watch.ts';
import { collectionPath, fixture, hasFixture } from './harness/fixtures.ts';
import { specTables } from './harness/spec.ts';

const NAMESPACE_CREATE: Requirement = { group: '', version: 'v1', resource: 'namespaces', verbs: ['create'] };

function fillPath(row: EndpointRow, ns: string | undefined, name: string | undefined): string {
  return row.path.replace('{namespace}', encodeURIComponent(ns ?? '')).replace('{name}', encodeURIComponent(name ?? ''));
}

function requirementsOf(row: EndpointRow): Requirement[] {
  if (row.resource === null) return [{ group: row.group, version: row.version }];
  const reqs: Requirement[] = [];
  const needsObject = row.pathParams.includes('name') || row.verb === 'watch';
  const usesNamespace = row.pathParams.includes('namespace') || row.resource === 'namespaces' || row.verb === 'watch';
  if (usesNamespace) reqs.push(NAMESPACE_CREATE);
  if (needsObject && row.resource !== 'namespaces') reqs.push({ group: row.group, version: row.version, resource: row.resource, verbs: ['create'] });
  reqs.push({ group: row.group, version: row.version, resource: row.resource, subresource: row.subresource ?? undefined, verbs: [row.verb] });
  return reqs;
}

interface Subject {
  ns?: string;
  name?: string;
  /** The object as created (for PUT bodies). */
  created?: KubeObject;
}

/** Creates the object a by-name endpoint acts on: a namespace of the run, or a fixture in a fresh namespace. */
async function createSubject(ctx: CheckContext, row: EndpointRow): Promise<Subject> {
  const ref = { group: row.group, version: row.version, kind: row.kind ?? '', resource: row.resource ?? '' };
  if (row.resource === 'namespaces') {
    const name = await ctx.namespace();
    return { name };
  }
  if (!hasFixture(ref.kind)) ctx.skip(`the harness has no fixture for kind ${ref.kind}`);
  const ns = await ctx.namespace();
  const name = ctx.uniqueName(ref.kind);
  const res = await ctx.client.create(collectionPath(ref, ns), fixture(ref, name, ns));
  if (![200, 201, 202].includes(res.status)) fail(`setup: creating ${ref.kind} ${ns}/${name} failed: ${describeResponse(res)}`);
  return { ns, name, created: res.object };
}

function expectKind(body: unknown, expected: string, what: string): void {
  const kind = (body as { kind?: unknown } | undefined)?.kind;
  expectEqual(kind, expected, `${what}: kind of the response body`);
}

function expectDeleteBody(row: EndpointRow, body: KubeObject | undefined, what: string): void {
  const kind = body?.kind;
  // The spec says Status; the real server answers a pending (graceful or finalized) delete with the object
  // carrying deletionTimestamp, and a collection delete with the list of what it deleted (wire facts 2).
  if (kind === 'Status') {
    expectEqual((body as unknown as { status?: string }).status, 'Success', `${what}: Status.status`);
    return;
  }
  if (row.verb === 'delete' && kind === row.kind && body?.metadata?.deletionTimestamp) return;
  if (row.verb === 'deletecollection' && kind === `${row.kind}List`) return;
  fail(`${what}: expected a Status body, got kind ${JSON.stringify(kind)}`);
}

async function callEndpoint(ctx: CheckContext, row: EndpointRow): Promise<void> {
  const what = `${row.method} ${row.specPath}`;
  const needsName = row.pathParams.includes('name');
  const needsNamespaceOnly = row.pathParams.includes('namespace') && !needsName;

  if (row.verb === 'watch') return watchEndpoint(ctx, row, what);

  let subject: Subject = {};
  if (needsName) subject = await createSubject(ctx, row);
  else if (needsNamespaceOnly) subject = { ns: await ctx.namespace() };
  const path = fillPath(row, subject.ns, subject.name);

  switch (row.verb) {
    case 'get':
    case 'list': {
      const res = await ctx.client.get(path);
      expectStatusCode(res, row.responseCodes, what);
      expectKind(res.object, row.responseType, what);
      if (row.verb === 'list') expectTrue(Array.isArray((res.object as { items?: unknown })?.items), `${what}: the list has no items array`);
      if (row.verb === 'get' && subject.name && row.responseType === row.kind) {
        expectEqual(res.object?.metadata?.name, subject.name, `${what}: metadata.name`);
      }
      if (row.responseApiVersion) expectEqual(res.object?.apiVersion, row.responseApiVersion, `${what}: apiVersion`);
      return;
    }
    case 'create': {
      const ref = { group: row.group, version: row.version, kind: row.kind ?? '' };
      if (!hasFixture(ref.kind)) ctx.skip(`the harness has no fixture for kind ${ref.kind}`);
      const name = row.resource === 'namespaces' ? ctx.namespaceName() : ctx.uniqueName(ref.kind);
      const res = await ctx.client.create(path, fixture(ref, name, subject.ns));
      expectStatusCode(res, row.responseCodes, what);
      expectKind(res.object, row.responseType, what);
      expectEqual(res.object?.metadata?.name, name, `${what}: metadata.name of the created object`);
      return;
    }
    case 'update': {
      // Read what is there (object, status or scale) and send it back with a harmless change.
      // Retried on 409 Conflict with a fresh read: a controller may write the object between our GET and PUT.
      const readPath = row.subresource === 'finalize' ? path.replace(/\/finalize$/, '') : path;
      const { res } = await replaceWithRetry<KubeObject & { spec?: { replicas?: number } }>(
        ctx,
        path,
        (body) => {
          if (row.subresource === 'scale') body.spec = { ...(body.spec ?? {}), replicas: 2 };
          else body.metadata = { ...body.metadata, annotations: { ...(body.metadata.annotations ?? {}), 'conformance/updated': 'true' } };
          return body;
        },
        { readPath, what: `setup: ${what}` },
      );
      expectStatusCode(res, row.responseCodes, what);
      expectKind(res.object, row.responseType, what);
      if (row.responseApiVersion) expectEqual(res.object?.apiVersion, row.responseApiVersion, `${what}: apiVersion`);
      return;
    }
    case 'patch': {
      const patch = row.subresource === 'scale' ? { spec: { replicas: 2 } } : { metadata: { annotations: { 'conformance/patched': 'true' } } };
      const res = await ctx.client.patch(path, patch, 'merge');
      expectStatusCode(res, row.responseCodes, what);
      expectKind(res.object, row.responseType, what);
      if (row.responseApiVersion) expectEqual(res.object?.apiVersion, row.responseApiVersion, `${what}: apiVersion`);
      return;
    }
    case 'delete': {
      const res = await ctx.client.delete(path, { body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' } });
      expectStatusCode(res, row.responseCodes, what);
      expectDeleteBody(row, res.object, what);
      return;
    }
    case 'deletecollection': {
      const ref = { group: row.group, version: row.version, kind: row.kind ?? '', resource: row.resource ?? '' };
      const madeNames: string[] = [];
      if (hasFixture(ref.kind)) {
        const madeName = ctx.uniqueName(ref.kind);
        const made = await ctx.client.create(collectionPath(ref, subject.ns), fixture(ref, madeName, subject.ns));
        if (![200, 201, 202].includes(made.status)) fail(`setup: creating a ${ref.kind} to delete failed: ${describeResponse(made)}`);
        madeNames.push(madeName);
      }
      const res = await ctx.client.delete(path);
      expectStatusCode(res, row.responseCodes, what);
      expectDeleteBody(row, res.object, what);
      // Objects that existed at the delete must be gone (or pending with a deletionTimestamp); a controller
      // may create new ones of its own afterwards (events, a CA bundle ConfigMap), so only ours are judged.
      const after = await ctx.client.get(collectionPath(ref, subject.ns));
      const left = ((after.object as { items?: KubeObject[] } | undefined)?.items ?? []).filter((o) => !o.metadata?.deletionTimestamp && madeNames.includes(o.metadata?.name ?? ''));
      expectEqual(left.map((o) => o.metadata.name), [], `${what}: objects left in the namespace after the collection delete`);
      return;
    }
  }
}

/** A watch endpoint answers 200 and streams a WatchEvent for a change made after the watch started. */
async function watchEndpoint(ctx: CheckContext, row: EndpointRow, what: string): Promise<void> {
  const ref = { group: row.group, version: row.version, kind: row.kind ?? '', resource: row.resource ?? '' };
  if (!hasFixture(ref.kind)) ctx.skip(`the harness has no fixture for kind ${ref.kind}`);
  const isNamespaces = ref.resource === 'namespaces';
  const ns = isNamespaces ? undefined : await ctx.namespace();
  const name = isNamespaces ? ctx.namespaceName() : ctx.uniqueName(ref.kind);
  // Start from the resourceVersion of a list so the watch sees exactly the changes after it (4.3.1).
  const listPath = isNamespaces ? collectionPath(ref) : collectionPath(ref, ns);
  const list = await ctx.client.get<{ metadata?: { resourceVersion?: string } }>(listPath);
  expectStatusCode(list, 200, `setup: list ${listPath}`);
  const rv = list.object?.metadata?.resourceVersion;
  const path = fillPath(row, ns, name);
  const watch = await ctx.client.watch(path, { query: { resourceVersion: rv, timeoutSeconds: 30 } });
  try {
    if (watch.status !== 200) fail(`${what}: expected HTTP 200, got ${await describeWatchRefusal(watch)}`);
    const created = await ctx.client.create(isNamespaces ? collectionPath(ref) : collectionPath(ref, ns), fixture(ref, name, ns));
    if (![200, 201, 202].includes(created.status)) fail(`setup: creating ${ref.kind} ${name} failed: ${describeResponse(created)}`);
    const deadline = Date.now() + 10_000;
    for (;;) {
      const event = await watch.next(Math.max(1, deadline - Date.now()));
      if (!event) fail(`${what}: no ADDED event for ${name} within 10s${watch.isEnded ? ' (the stream ended)' : ''}`);
      expectTrue(typeof event.type === 'string' && event.object && typeof event.object === 'object', `${what}: a stream item is not a WatchEvent {type, object}: ${JSON.stringify(event).slice(0, 200)}`);
      const object = event.object as KubeObject;
      if (object.metadata?.name !== name) continue;
      expectEqual(event.type, 'ADDED', `${what}: type of the first event for the new object`);
      expectEqual(object.kind, ref.kind, `${what}: kind of the object in the event`);
      return;
    }
  } finally {
    watch.close();
  }
}

for (const row of specTables().endpoints) {
  if (!row.testable) continue;
  check(`endpoints.${row.id.replace(/^endpoint\./, '')}`, { rows: [row.id, 'rule.media.verbs-as-shown'], requires: requirementsOf(row), title: `${row.method} ${row.specPath} answers ${row.responseText}` }, (ctx) =>
    callEndpoint(ctx, row),
  );
}

// ---- every resource of the spec's tables in its group's discovery document, with the spec's verbs -----------------
// Without this, a target whose discovery document leaves a resource out (or a verb) has the checks of that resource
// skipped as "not served" and nothing fails: the spec lists what the API serves, so leaving it out is a failure.
{
  const rows = specTables().endpoints.filter((r) => r.resource !== null);
  const discoveryRows = specTables().endpoints.filter((r) => r.resource === null).map((r) => r.id);
  check(
    'endpoints.discovery-lists-spec-resources',
    {
      rows: [...discoveryRows, ...rows.map((r) => r.id)],
      title: "every resource and subresource of the spec's endpoint tables is in its group version's discovery document, with the verb of each endpoint",
    },
    async (ctx) => {
      const missing = new Map<string, string[]>();
      for (const row of rows) {
        const key = groupVersionKey(row.group, row.version);
        const gv = ctx.discovery.groupVersions[key];
        const name = row.subresource ? `${row.resource}/${row.subresource}` : row.resource!;
        const served = gv?.resources.find((r) => r.name === name);
        const problem = !gv
          ? `group version ${key} is not in discovery`
          : !served
              ? `${key} does not list ${name}`
              : !served.verbs.includes(row.verb)
                  ? `${key} lists ${name} without the verb ${row.verb} (verbs ${JSON.stringify(served.verbs)})`
                  : undefined;
        if (problem) missing.set(problem, [...(missing.get(problem) ?? []), row.id]);
      }
      if (missing.size > 0) {
        const text = [...missing].map(([p, ids]) => `${p} (${ids.length} endpoint row${ids.length === 1 ? '' : 's'}: ${ids.slice(0, 3).join(', ')}${ids.length > 3 ? ', ...' : ''})`);
        fail(`the discovery documents leave out what the spec lists: ${text.join('; ')}${ctx.discovery.problems.length ? ` (discovery problems: ${ctx.discovery.problems.join('; ')})` : ''}`, [...missing.values()].flat());
      }
    },
  );
}
