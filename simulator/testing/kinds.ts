// Test helpers for the semantics tests: a simulator per test file, JSON calls, namespaces, fixtures and
// a watch reader. Not used by the server itself.

import assert from 'node:assert/strict';
import { request } from 'undici';
import { startSimulator, type RunningSimulator } from '../cluster.ts';

export type Json = Record<string, any>;

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  body: Json;
}

export interface Harness {
  sim: RunningSimulator;
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
  /** A new namespace with a unique name. */
  namespace(prefix?: string): Promise<string>;
  /** POST that must answer 201; returns the body. */
  create(path: string, body: unknown): Promise<Json>;
  /** First `count` events of a watch on path (query added), or fewer after timeoutMs. */
  watch(path: string, count: number, timeoutMs?: number): Promise<Json[]>;
  close(): Promise<void>;
}

export async function harness(): Promise<Harness> {
  const sim = await startSimulator();
  let n = 0;
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> => {
    const res = await request(sim.url + path, {
      method: method as 'GET',
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.body.text();
    let parsed: Json = {};
    try {
      parsed = JSON.parse(text) as Json;
    } catch {
      /* not JSON */
    }
    return { status: res.statusCode, headers: res.headers, text, body: parsed };
  };
  return {
    sim,
    call,
    async namespace(prefix = 'sem') {
      const name = `${prefix}-${++n}`;
      const r = await call('POST', '/api/v1/namespaces', { metadata: { name } });
      assert.equal(r.status, 201, r.text);
      return name;
    },
    async create(path, body) {
      const r = await call('POST', path, body);
      assert.equal(r.status, 201, r.text);
      return r.body;
    },
    async watch(path, count, timeoutMs = 2000) {
      const sep = path.includes('?') ? '&' : '?';
      const ac = new AbortController();
      const timer = setTimeout(() => ac.abort(), timeoutMs);
      const events: Json[] = [];
      try {
        const res = await request(`${sim.url}${path}${sep}watch=true`, { signal: ac.signal });
        let buf = '';
        for await (const chunk of res.body) {
          buf += chunk.toString();
          let nl;
          while ((nl = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, nl).trim();
            buf = buf.slice(nl + 1);
            if (line) events.push(JSON.parse(line) as Json);
            if (events.length >= count) {
              ac.abort();
              return events;
            }
          }
        }
      } catch {
        /* aborted */
      } finally {
        clearTimeout(timer);
      }
      return events;
    },
    close: () => sim.close(),
  };
}

export const CONTAINER = { name: 'c', image: 'nginx:1.13' };

export function podTemplate(labels: Record<string, string> = { app: 'x' }, spec: Json = {}): Json {
  return { metadata: { labels }, spec: { containers: [{ ...CONTAINER }], ...spec } };
}

export function deployment(name: string, spec: Json = {}, apiVersion = 'apps/v1'): Json {
  const base: Json = { template: podTemplate() };
  if (apiVersion === 'apps/v1') base.selector = { matchLabels: { app: 'x' } };
  return { apiVersion, kind: 'Deployment', metadata: { name }, spec: { ...base, ...spec } };
}

export function job(name: string, spec: Json = {}): Json {
  return { apiVersion: 'batch/v1', kind: 'Job', metadata: { name }, spec: { template: { spec: { restartPolicy: 'Never', containers: [{ ...CONTAINER }] } }, ...spec } };
}

export function cronJob(name: string, spec: Json = {}): Json {
  return {
    apiVersion: 'batch/v1beta1', kind: 'CronJob', metadata: { name },
    spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ ...CONTAINER }] } } } }, ...spec },
  };
}

export function pod(name: string, spec: Json = {}): Json {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ ...CONTAINER }], ...spec } };
}

/** The fields named by a 422's causes. */
export function causeFields(r: Reply): string[] {
  assert.equal(r.status, 422, r.text);
  assert.equal(r.body.reason, 'Invalid');
  return (r.body.details?.causes ?? []).map((c: Json) => c.field as string);
}

/** Asserts a 422 with a cause at `field` whose reason is `reason` (when given). */
export function assertInvalid(r: Reply, field: string, reason?: string): Json {
  const fields = causeFields(r);
  const cause = (r.body.details.causes as Json[]).find((c) => c.field === field);
  assert.ok(cause, `no cause at ${field}: ${fields.join(', ')} (${r.body.message})`);
  if (reason) assert.equal(cause.reason, reason, r.body.message);
  return cause;
}
