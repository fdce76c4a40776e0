// The resources the API serves, with kind, scope and verbs, read from discovery the way the namespace
// controller and the garbage collector of the 1.9 daemon read it: every group, every version, preferred
// version first, one entry per group/resource (the first version that serves it), subresources left out.
// Also maps an ownerReference's apiVersion + kind to a resource to act on.

import type { ApiClient } from './api-client.ts';
import { resourcePath } from './api-client.ts';
import { parseApiVersion } from '../api/meta.ts';

export interface ApiResource {
  group: string;
  version: string;
  /** Plural name, e.g. "deployments". */
  resource: string;
  kind: string;
  namespaced: boolean;
  verbs: readonly string[];
}

interface ApiResourceListDoc {
  resources?: Array<{ name?: string; kind?: string; namespaced?: boolean; verbs?: string[] }>;
}

interface ApiGroupListDoc {
  groups?: Array<{ name?: string; versions?: Array<{ version?: string }>; preferredVersion?: { version?: string } }>;
}

export const hasVerbs = (r: ApiResource, ...verbs: string[]) => verbs.every((v) => r.verbs.includes(v));

/** Collection path of a resource, in a namespace or across all of them. */
export const collectionPathOf = (r: ApiResource, namespace?: string) => resourcePath({ group: r.group, version: r.version, resource: r.resource, namespace });

/** Path of one object of a resource. */
export const objectPathOf = (r: ApiResource, name: string, namespace?: string) =>
  resourcePath({ group: r.group, version: r.version, resource: r.resource, namespace: r.namespaced ? namespace : undefined, name });

export async function discoverApiResources(client: ApiClient, signal?: AbortSignal): Promise<ApiResource[]> {
  const out: ApiResource[] = [];
  const seen = new Set<string>();
  const add = (group: string, version: string, doc: ApiResourceListDoc) => {
    for (const r of doc.resources ?? []) {
      if (!r.name || r.name.includes('/') || !r.kind) continue;
      const key = `${group}/${r.name}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ group, version, resource: r.name, kind: r.kind, namespaced: r.namespaced === true, verbs: r.verbs ?? [] });
    }
  };
  add('', 'v1', (await client.request<ApiResourceListDoc>('GET', '/api/v1', { signal })).body);
  const groups = (await client.request<ApiGroupListDoc>('GET', '/apis', { signal })).body;
  for (const g of groups.groups ?? []) {
    if (!g.name) continue;
    const preferred = g.preferredVersion?.version;
    const versions = (g.versions ?? []).map((v) => v.version).filter((v): v is string => !!v);
    versions.sort((a, b) => Number(b === preferred) - Number(a === preferred));
    for (const version of versions) {
      try {
        add(g.name, version, (await client.request<ApiResourceListDoc>('GET', `/apis/${g.name}/${version}`, { signal, retries: 1 })).body);
      } catch (err) {
        if (signal?.aborted) throw err;
        // A group version whose discovery fails is treated as not served (the real daemon does the same).
      }
    }
  }
  return out;
}

/** Finds the resource for an object's apiVersion and kind; any version of the group when that one is not served. */
export function resourceForKind(resources: readonly ApiResource[], apiVersion: string, kind: string): ApiResource | undefined {
  const gv = parseApiVersion(apiVersion);
  return (
    resources.find((r) => r.group === gv.group && r.version === gv.version && r.kind === kind) ??
    resources.find((r) => r.group === gv.group && r.kind === kind)
  );
}

/** Discovery kept for a while, so that a burst of namespace deletions does not read it for each one. */
export class ApiResourceCache {
  private value: ApiResource[] | undefined;
  private at = 0;
  private pending: Promise<ApiResource[]> | undefined;

  constructor(
    private readonly client: ApiClient,
    private readonly maxAgeMs = 30_000,
  ) {}

  async get(signal?: AbortSignal): Promise<ApiResource[]> {
    if (this.value && performance.now() - this.at < this.maxAgeMs) return this.value;
    this.pending ??= discoverApiResources(this.client, signal)
      .then((v) => {
        this.value = v;
        this.at = performance.now();
        return v;
      })
      .finally(() => (this.pending = undefined));
    return this.pending;
  }

  /** Forget the cached value (e.g. after a request for a resource that is no longer served). */
  invalidate(): void {
    this.value = undefined;
  }
}
