// Which resources the API serves, read from discovery (/api/v1, /apis, /apis/<g>/<v>), as the real daemon does
// before starting controllers (its AvailableResources map): a controller whose resource is not served is
// reported as not started instead of failing against a missing endpoint.

import type { ApiClient } from './api-client.ts';

export interface GroupVersionResourceRef {
  group: string;
  version: string;
  resource: string;
}

export const gvrKey = (r: GroupVersionResourceRef) => `${r.group}/${r.version}/${r.resource}`;

interface ApiResourceList {
  resources?: Array<{ name?: string }>;
}

interface ApiGroupList {
  groups?: Array<{ name?: string; versions?: Array<{ groupVersion?: string; version?: string }> }>;
}

/** Every "group/version/resource" the server lists (subresources included, e.g. "apps/v1/deployments/scale"). */
export async function discoverResources(client: ApiClient, signal?: AbortSignal): Promise<Set<string>> {
  const out = new Set<string>();
  const add = (group: string, version: string, list: ApiResourceList) => {
    for (const r of list.resources ?? []) if (r.name) out.add(`${group}/${version}/${r.name}`);
  };
  add('', 'v1', (await client.request<ApiResourceList>('GET', '/api/v1', { signal })).body);
  const groups = (await client.request<ApiGroupList>('GET', '/apis', { signal })).body;
  for (const g of groups.groups ?? []) {
    for (const v of g.versions ?? []) {
      if (!g.name || !v.version) continue;
      try {
        add(g.name, v.version, (await client.request<ApiResourceList>('GET', `/apis/${g.name}/${v.version}`, { signal, retries: 1 })).body);
      } catch {
        // A group version that fails discovery counts as not served, as in the real daemon.
      }
    }
  }
  return out;
}
