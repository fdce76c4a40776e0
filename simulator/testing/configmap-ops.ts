// HTTP helpers for the list/watch tests that run against any simulator (memory or etcd backed): plain calls,
// a fresh namespace each, random ConfigMap writes that may legitimately miss (404/409), and a watch reader.

import assert from 'node:assert/strict';
import fc from 'fast-check';
import { request } from 'undici';
import { JsonObjectSplitter } from '../codec/json-stream.ts';
import { httpCall } from './http.ts';

export type Obj = { metadata: { name: string; namespace?: string; resourceVersion: string; labels?: Record<string, string> }; data?: Record<string, string> };
export type Ev = { type: string; object: Obj & { code?: number; reason?: string; message?: string } };

export const call = (base: string, method: string, path: string, body?: unknown, contentType = 'application/json') =>
  httpCall(base, method, path, body, body === undefined ? {} : { 'content-type': contentType });

let nsCounter = 0;
/** A new namespace named `<prefix>-<pid>-<n>`, so parallel test files never collide. */
export async function freshNamespace(base: string, prefix: string): Promise<string> {
  const name = `${prefix}-${process.pid}-${++nsCounter}`;
  const r = await call(base, 'POST', '/api/v1/namespaces', { metadata: { name } });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return name;
}

export const cmPath = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;

export type Op = { kind: 'create' | 'update'; name: string; value: string } | { kind: 'delete'; name: string };

/** Creates, updates and deletes over a small set of names, so that ops collide often. */
export function opArb(names: string[]): fc.Arbitrary<Op> {
  const name = fc.constantFrom(...names);
  return fc.oneof(
    fc.record({ kind: fc.constant('create' as const), name, value: fc.string({ maxLength: 4 }) }),
    fc.record({ kind: fc.constant('update' as const), name, value: fc.string({ maxLength: 4 }) }),
    fc.record({ kind: fc.constant('delete' as const), name }),
  );
}

/** Applies an op over HTTP; ops on missing/existing names are allowed to fail (404/409) and change nothing. */
export async function applyOp(base: string, ns: string, op: Op): Promise<void> {
  if (op.kind === 'create') {
    const r = await call(base, 'POST', cmPath(ns), { metadata: { name: op.name, labels: { v: 'x' } }, data: { v: op.value } });
    assert.ok(r.status === 201 || r.status === 409, `create ${r.status}`);
  } else if (op.kind === 'update') {
    const r = await call(base, 'PUT', `${cmPath(ns)}/${op.name}`, { metadata: { name: op.name, labels: { v: 'y' } }, data: { v: op.value } });
    assert.ok(r.status === 200 || r.status === 404, `update ${r.status}`);
  } else {
    const r = await call(base, 'DELETE', `${cmPath(ns)}/${op.name}`);
    assert.ok(r.status === 200 || r.status === 404, `delete ${r.status}`);
  }
}

/** Name -> data and resourceVersion: two lists are equal states when these maps are equal. */
export function stateOf(items: Obj[]): Map<string, string> {
  return new Map(items.map((i) => [i.metadata.name, JSON.stringify(i.data ?? {}) + i.metadata.resourceVersion]));
}

/** Reads a JSON watch stream until `until` says stop or `ms` pass. */
export async function watchEvents(base: string, path: string, until: (evs: Ev[]) => boolean, ms: number) {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), ms);
  const res = await request(base + path, { signal: ac.signal });
  const events: Ev[] = [];
  const splitter = new JsonObjectSplitter();
  try {
    for await (const chunk of res.body) {
      events.push(...(splitter.push(chunk) as Ev[]));
      if (until(events)) break;
    }
  } catch (e) {
    if ((e as Error).name !== 'AbortError') throw e;
  } finally {
    clearTimeout(timer);
    ac.abort();
  }
  return { status: res.statusCode, headers: res.headers, events };
}
