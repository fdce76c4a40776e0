// Chunked lists (spec 4.2 limit/continue, 4.3.3-4.3.5, 2.1 ListMeta, 3 continue token, 7 410, 8.1): the union
// of the chunks is the snapshot at the first chunk's resourceVersion whatever is written between chunk
// requests; the resourceVersion stays constant; continue is empty only at the end. What the spec allows is
// never held against a target: short or empty chunks, a server that ignores limit and returns everything, a
// token refused with other query parameters (400 or 410) or honoured when the answer is still consistent.
import fc from 'fast-check';
import type { KubeObject } from '../simulator/api/meta.ts';
import { check, type CheckContext } from './harness/check.ts';
import { describeResponse, expectStatusCode, expectTrue, fail, forRows } from './harness/expect.ts';
import { collectionPath, objectPath } from './harness/fixtures.ts';
import { CONFIGMAPS, NEEDS_NAMESPACES, createObject, isStatus, needs } from './harness/objects.ts';
import {
  waitOutHistory,
  goneProblems,
  listAll,
  listPage,
  openWatch,
  readUntil,
  selectorMatches,
  selectorString,
  short,
  type Requirement,
} from './harness/list-watch.ts';

const CM_CHUNKS = [NEEDS_NAMESPACES, needs(CONFIGMAPS, ['create', 'list', 'patch', 'delete'])];

const SNAPSHOT = 'rule.chunking.consistent-snapshot';
const LIMIT_CONTINUE = 'rule.chunking.limit-and-continue';
const EMPTY_AT_END = 'rule.fields.list-continue-empty-at-end';

// ----- generators -------------------------------------------------------------------------------------

const tier = fc.option(fc.constantFrom('a', 'b', 'c'), { nil: undefined });
const env = fc.option(fc.constantFrom('x', 'y'), { nil: undefined });
/** Name prefixes spread over the key space, so objects created between chunks land before and after the cursor. */
const prefix = fc.constantFrom('a', 'f', 'k', 'p', 'u', 'z');

const requirement: fc.Arbitrary<Requirement> = fc.oneof(
  fc.record({ key: fc.constant('tier'), op: fc.constantFrom('=' as const, '!=' as const), value: fc.constantFrom('a', 'b') }),
  fc.record({ key: fc.constant('env'), op: fc.constantFrom('=' as const, '!=' as const), value: fc.constantFrom('x', 'y') }),
  fc.record({ key: fc.constant('tier'), op: fc.constantFrom('in' as const, 'notin' as const), values: fc.subarray(['a', 'b', 'c'], { minLength: 1 }) }),
  fc.record({ key: fc.constantFrom('tier', 'env'), op: fc.constantFrom('exists' as const, '!' as const) }),
);

type Op =
  | { kind: 'create'; prefix: string; tier?: string; env?: string }
  | { kind: 'update'; pick: number; tier?: string }
  | { kind: 'delete'; pick: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('create' as const), prefix, tier, env }, { requiredKeys: ['kind', 'prefix'] }),
  fc.record({ kind: fc.constant('update' as const), pick: fc.nat(), tier }, { requiredKeys: ['kind', 'pick'] }),
  fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }),
);

function labelsOf(t?: string, e?: string): Record<string, string> {
  const l: Record<string, string> = {};
  if (t) l.tier = t;
  if (e) l.env = e;
  return l;
}

// ----- the model: what this check wrote, by name, as the write answers showed it ------------------------

class Collection {
  readonly objects = new Map<string, KubeObject>();
  private seq = 0;
  constructor(
    private readonly ctx: CheckContext,
    readonly ns: string,
  ) {}

  async create(pfx: string, labels: Record<string, string>): Promise<void> {
    const name = `${pfx}${(this.seq++).toString(36)}-${this.ctx.uniqueName('c').slice(-4)}`;
    const obj = await createObject(this.ctx, CONFIGMAPS, name, this.ns, { metadata: { name, labels }, data: { v: '0' } });
    this.objects.set(name, obj);
  }

  names(): string[] {
    return [...this.objects.keys()].sort();
  }

  async apply(o: Op): Promise<void> {
    const names = this.names();
    if (o.kind === 'create') return this.create(o.prefix, labelsOf(o.tier, o.env));
    if (names.length === 0) return;
    const name = names[o.pick % names.length];
    const path = objectPath(CONFIGMAPS, name, this.ns);
    if (o.kind === 'update') {
      const current = this.objects.get(name)!;
      const labels = { ...(current.metadata.labels ?? {}) };
      if (o.tier) labels.tier = o.tier;
      else delete labels.tier;
      const labelPatch: Record<string, string | null> = { ...labels, tier: o.tier ?? null };
      const res = await this.ctx.client.patch(
        path,
        { metadata: { labels: labelPatch }, data: { v: String(Number((current.data as Record<string, string>).v) + 1) } },
        'merge',
      );
      if (res.status !== 200 || !res.object) fail(`setup: merge PATCH of ${name} failed: ${describeResponse(res)}`);
      this.objects.set(name, res.object);
    } else {
      const res = await this.ctx.client.delete(path);
      if (res.status !== 200 && res.status !== 202) fail(`setup: DELETE of ${name} failed: ${describeResponse(res)}`);
      this.objects.delete(name);
    }
  }

  /** name -> resourceVersion of the objects a selector keeps. */
  expected(reqs: Requirement[]): Map<string, string> {
    const out = new Map<string, string>();
    for (const [name, obj] of this.objects) if (selectorMatches(reqs, obj.metadata.labels)) out.set(name, obj.metadata.resourceVersion!);
    return out;
  }
}

interface ChunkedRead {
  items: KubeObject[];
  resourceVersion: string;
  chunks: number;
}

/**
 * Reads a chunked list to its end, calling `between(i)` after chunk i. Checks what every chunk must show:
 * 200, a resourceVersion equal to the first chunk's, at most `limit` items unless the server ignored limit
 * (then continue is empty), and an end within a bound.
 */
async function readChunks(
  ctx: CheckContext,
  path: string,
  query: Record<string, string | number>,
  limit: number,
  bound: number,
  between?: (i: number) => Promise<void>,
): Promise<ChunkedRead> {
  const items: KubeObject[] = [];
  let token = '';
  let rv: string | undefined;
  let chunks = 0;
  do {
    const page = await listPage(ctx, path, { ...query, limit, ...(token ? { continue: token } : {}) });
    const what = `chunk ${chunks + 1} of GET ${path}?${new URLSearchParams({ ...query, limit: String(limit) } as Record<string, string>)}${token ? '&continue=...' : ''}`;
    await forRows(token ? [LIMIT_CONTINUE, 'query.list.continue'] : [LIMIT_CONTINUE, 'query.list.limit'], () => {
      expectStatusCode(page.res, 200, what);
      expectTrue(page.res.object && Array.isArray(page.res.object.items), `${what}: no items array`);
    });
    await forRows([SNAPSHOT, 'field.ListMeta.resourceVersion'], () => {
      expectTrue(typeof page.resourceVersion === 'string' && page.resourceVersion !== '', `${what}: no metadata.resourceVersion`);
      if (rv !== undefined && page.resourceVersion !== rv)
        fail(`${what}: metadata.resourceVersion ${page.resourceVersion} differs from the first chunk's ${rv}`);
    });
    rv ??= page.resourceVersion!;
    if (page.items.length > limit && page.continueToken !== '') {
      fail(`${what}: ${page.items.length} items for limit ${limit}, and a continue token (a server may ignore limit, but then it returns everything)`, [
        LIMIT_CONTINUE,
        'query.list.limit',
      ]);
    }
    items.push(...page.items);
    token = page.continueToken;
    chunks++;
    if (token && chunks >= bound)
      fail(`${what}: still a continue token after ${chunks} chunks for a collection of at most ${bound - 3} objects`, [LIMIT_CONTINUE, EMPTY_AT_END]);
    if (token && between) await between(chunks - 1);
  } while (token);
  return { items, resourceVersion: rv!, chunks };
}

/** The union of chunks against the snapshot: same names, no duplicates, each at its snapshot version. */
function compareToSnapshot(items: KubeObject[], expected: Map<string, string>, what: string): void {
  const seen = new Map<string, number>();
  for (const it of items) seen.set(it.metadata?.name ?? '', (seen.get(it.metadata?.name ?? '') ?? 0) + 1);
  const dups = [...seen].filter(([, n]) => n > 1).map(([name]) => name);
  if (dups.length) fail(`${what}: duplicated across chunks: ${dups.join(', ')}`, SNAPSHOT);
  const missing = [...expected.keys()].filter((n) => !seen.has(n));
  if (missing.length)
    fail(`${what}: objects of the snapshot never returned (continue ended early or chunks skipped them): ${missing.join(', ')}`, [SNAPSHOT, EMPTY_AT_END]);
  const extra = [...seen.keys()].filter((n) => !expected.has(n));
  if (extra.length)
    fail(`${what}: objects not in the snapshot at the first chunk (created after it, or not matching the selector): ${extra.join(', ')}`, SNAPSHOT);
  for (const it of items) {
    const want = expected.get(it.metadata.name!);
    if (it.metadata.resourceVersion !== want) {
      fail(
        `${what}: ${it.metadata.name} shows resourceVersion ${it.metadata.resourceVersion}, but the snapshot holds ${want} (a write made after the first chunk is visible)`,
        SNAPSHOT,
      );
    }
  }
}

check(
  'chunking.snapshot-under-writes',
  {
    upstream: [81],
    rows: [SNAPSHOT, LIMIT_CONTINUE, EMPTY_AT_END, 'field.ListMeta.continue', 'field.ListMeta.resourceVersion', 'query.list.limit', 'query.list.continue', 'query.list.labelSelector', 'rule.service.watch-and-chunked-lists', 'version.chunking-since-1-9', 'limit.continue-token-lifetime'],
    requires: CM_CHUNKS,
    title: 'random sizes, limits and selectors, with creates, updates and deletes between chunk requests: the union of chunks is the first chunk\'s snapshot',
  },
  async (ctx) => {
    const input = fc.record({
      objects: fc.array(fc.record({ prefix, tier, env }, { requiredKeys: ['prefix'] }), { maxLength: 18 }),
      limit: fc.integer({ min: 1, max: 7 }),
      selector: fc.array(requirement, { maxLength: 2 }),
      between: fc.array(fc.array(op, { maxLength: 3 }), { maxLength: 8 }),
    });
    await ctx.forAll(input, async (v) => {
      const ns = await ctx.namespace();
      const col = new Collection(ctx, ns);
      for (const o of v.objects) await col.create(o.prefix, labelsOf(o.tier, o.env));
      const expected = col.expected(v.selector);
      const query: Record<string, string> = v.selector.length ? { labelSelector: selectorString(v.selector) } : {};
      const read = await readChunks(ctx, collectionPath(CONFIGMAPS, ns), query, v.limit, v.objects.length + 3, async (i) => {
        for (const o of v.between[i] ?? []) await col.apply(o);
      });
      compareToSnapshot(
        read.items,
        expected,
        `union of ${read.chunks} chunks (limit ${v.limit}${query.labelSelector ? `, labelSelector ${query.labelSelector}` : ''})`,
      );
    });
  },
);

check(
  'chunking.token-with-other-query',
  {
    rows: ['query.list.continue', SNAPSHOT, 'error.410'],
    requires: CM_CHUNKS,
    title: 'a token reused with other query parameters (or garbage) is refused with 400 or 410, or answered consistently with the snapshot and the new query',
  },
  async (ctx) => {
    const change = fc.oneof(
      fc.record({ labelSelector: fc.array(requirement, { minLength: 1, maxLength: 2 }).map(selectorString) }),
      fc.record({ fieldSelector: fc.constant('metadata.name!=nothing-by-that-name') }),
      fc.record({ limit: fc.integer({ min: 1, max: 6 }) }),
    );
    const input = fc.record({
      count: fc.integer({ min: 3, max: 9 }),
      limit: fc.integer({ min: 1, max: 3 }),
      change,
      writes: fc.array(op, { maxLength: 4 }),
      garbage: fc.boolean(),
    });
    await ctx.forAll(input, async (v) => {
      const ns = await ctx.namespace();
      const col = new Collection(ctx, ns);
      for (let i = 0; i < v.count; i++) await col.create(['a', 'k', 'z'][i % 3], labelsOf(['a', 'b', undefined][i % 3], i % 2 ? 'x' : undefined));
      const snapshot = new Map([...col.objects].map(([n, o]) => [n, o]));
      const path = collectionPath(CONFIGMAPS, ns);
      const first = await listPage(ctx, path, { limit: v.limit });
      expectStatusCode(first.res, 200, `GET ${path}?limit=${v.limit}`, LIMIT_CONTINUE);
      if (!first.continueToken) return; // the server ignored limit: nothing to reuse
      for (const o of v.writes) await col.apply(o);
      const token = v.garbage ? `${first.continueToken.slice(0, Math.max(1, first.continueToken.length - 4))}!x~z` : first.continueToken;
      const query: Record<string, string | number> = { limit: v.limit, ...v.change, continue: token };
      const res = await ctx.client.get<{ items?: KubeObject[]; metadata?: { resourceVersion?: string; continue?: string } }>(path, { query });
      const what = `GET ${path} with ${v.garbage ? 'a damaged' : 'a reused'} continue token and ${JSON.stringify(v.change)}`;
      if (res.status === 400 || res.status === 410) {
        if (!isStatus(res.object) || res.object.code !== res.status)
          fail(`${what}: refused with ${res.status}, but the body is not a Status with that code: ${short(res.object)}`, 'query.list.continue');
        return;
      }
      if (res.status !== 200) fail(`${what}: expected a refusal (400 or 410) or a consistent page (200), got ${describeResponse(res)}`, 'query.list.continue');
      // Honoured: the page must belong to the snapshot of the first chunk and satisfy the new query.
      const items = res.object?.items ?? [];
      await forRows(SNAPSHOT, () => {
        if (res.object?.metadata?.resourceVersion !== first.resourceVersion) {
          fail(`${what}: honoured, but at resourceVersion ${res.object?.metadata?.resourceVersion} instead of the first chunk's ${first.resourceVersion}`);
        }
        const names = new Set<string>();
        for (const it of items) {
          const name = it.metadata.name!;
          if (names.has(name)) fail(`${what}: ${name} twice in one page`);
          names.add(name);
          const before = snapshot.get(name);
          if (!before) fail(`${what}: honoured, but returned ${name}, which is not in the snapshot of the first chunk`);
          if (it.metadata.resourceVersion !== before.metadata.resourceVersion)
            fail(
              `${what}: honoured, but ${name} shows resourceVersion ${it.metadata.resourceVersion} instead of its snapshot version ${before.metadata.resourceVersion}`,
            );
          const changed = v.change as { labelSelector?: string };
          if (typeof changed.labelSelector === 'string') {
            const reqs = parseOwnSelector(changed.labelSelector);
            if (!selectorMatches(reqs, before.metadata.labels))
              fail(`${what}: honoured, but returned ${name} (labels ${short(before.metadata.labels)}), which the new labelSelector excludes`);
          }
        }
        if ('limit' in v.change && items.length > (v.change.limit as number) && res.object?.metadata?.continue)
          fail(`${what}: ${items.length} items for limit ${v.change.limit} with a continue token`);
      });
    });
  },
);

/** Parses back the selectors this suite generates (selectorString's output). */
function parseOwnSelector(s: string): Requirement[] {
  const out: Requirement[] = [];
  for (const part of s.match(/[^,()]+(\([^)]*\))?/g) ?? []) {
    const p = part.trim();
    let m: RegExpMatchArray | null;
    if ((m = p.match(/^(\S+) (in|notin) \((.*)\)$/))) out.push({ key: m[1], op: m[2] as 'in' | 'notin', values: m[3].split(',') });
    else if ((m = p.match(/^([^!=]+)(!=|=)(.*)$/))) out.push({ key: m[1], op: m[2] as '=' | '!=', value: m[3] });
    else if (p.startsWith('!')) out.push({ key: p.slice(1), op: '!' });
    else out.push({ key: p, op: 'exists' });
  }
  return out;
}

check(
  'chunking.expired-token-410-recovery',
  {
    upstream: [82],
    rows: ['rule.lifecycle.continue-expiry', 'rule.watch.gone-410', 'error.410', 'rule.watch.gone-recovery'],
    requires: [...CM_CHUNKS, needs(CONFIGMAPS, ['watch'])],
    title: 'a continue token whose snapshot left the history window gets 410; restarting the list and watching from its resourceVersion recovers',
    timeoutSeconds: 90,
    solo: true,
    historyWindow: true,
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    const churnNs = await ctx.namespace();
    const col = new Collection(ctx, ns);
    for (let i = 0; i < 5; i++) await col.create(['b', 'm', 'y'][i % 3], labelsOf('a'));
    const path = collectionPath(CONFIGMAPS, ns);
    const first = await listPage(ctx, path, { limit: 2 });
    const since = Date.now();
    expectStatusCode(first.res, 200, `GET ${path}?limit=2`, LIMIT_CONTINUE);
    if (!first.continueToken) ctx.skip('the target ignored limit=2 on a list of 5 objects, so there is no continue token to expire');
    const churn = ctx.uniqueName('churn');
    await createObject(ctx, CONFIGMAPS, churn, churnNs);
    let last: Awaited<ReturnType<typeof listPage>> | undefined;
    const forced = await waitOutHistory(ctx, objectPath(CONFIGMAPS, churn, churnNs), since, async () => {
      last = await listPage(ctx, path, { limit: 2, continue: first.continueToken });
      if (last.res.status === 200) {
        // Still honoured: then it must still be the snapshot.
        if (last.resourceVersion !== first.resourceVersion)
          fail(`GET ${path} with a continue token after many writes: resourceVersion ${last.resourceVersion} instead of ${first.resourceVersion}`, SNAPSHOT);
        return false;
      }
      return true;
    });
    if (!forced.forced) {
      ctx.skip(
        ctx.historyWaitMs
          ? `the target still honoured a continue token ${Math.round(forced.ms / 1000)} s after it was issued (more than the 5 minutes of spec 8.1 and a margin): its expiry could not be observed`
          : `could not force the token's snapshot out of the history window: ${forced.writes} changes in ${forced.ms} ms and the token was still honoured (the target keeps more history, e.g. 5 minutes by age); run against it as a --target to wait for the window`,
      );
    }
    const res = last!.res;
    await forRows(['rule.lifecycle.continue-expiry', 'rule.watch.gone-410', 'error.410'], () => {
      expectStatusCode(res, 410, `GET ${path} with a continue token whose snapshot is ${forced.writes} changes old`);
      const problems = goneProblems({ via: 'http', httpStatus: 410, status: res.object as unknown as Record<string, unknown> });
      if (problems.length) fail(`the 410 answer to an expired continue token: ${problems.join(', ')}`);
    });
    // Client procedure of 4.3.5: clear the cache, list again without continue, watch from the new resourceVersion.
    await forRows('rule.watch.gone-recovery', async () => {
      await col.apply({ kind: 'create', prefix: 'c', tier: 'b' });
      await col.apply({ kind: 'update', pick: 0, tier: 'c' });
      const fresh = await readChunks(ctx, path, {}, 2, col.objects.size + 3);
      compareToSnapshot(fresh.items, col.expected([]), 'the restarted chunked list');
      const { stream, gone } = await openWatch(ctx, path, { watch: 'true', resourceVersion: fresh.resourceVersion }, { rows: 'rule.watch.gone-recovery' });
      if (gone) fail(`a watch from the restarted list's resourceVersion ${fresh.resourceVersion} got 410`);
      try {
        await col.apply({ kind: 'create', prefix: 'd' });
        const created = [...col.objects.values()].at(-1)!;
        const events = await readUntil(stream, (evs) => evs.length >= 1, 5000);
        if (events.length !== 1 || events[0].type !== 'ADDED' || (events[0].object as KubeObject).metadata?.name !== created.metadata.name) {
          fail(
            `the watch from the restarted list's resourceVersion: expected one ADDED event for ${created.metadata.name}, got ${short(events.map((e) => `${e.type}:${(e.object as KubeObject)?.metadata?.name}`))}`,
          );
        }
      } finally {
        stream.close();
      }
      const after = await listAll(ctx, path);
      compareToSnapshot(after.items, col.expected([]), 'the list after recovery');
    });
  },
);
