// What the target serves, read from its discovery documents before any check runs. Checks for groups,
// versions, resources or verbs outside it are skipped with that reason, never counted as passed.
import type { TargetClient } from './client.ts';

export interface ServedResource {
  name: string; // "configmaps" or "deployments/scale"
  namespaced: boolean;
  kind: string;
  verbs: string[];
}

export interface ServedGroupVersion {
  group: string;
  version: string;
  resources: ServedResource[];
}

export interface Discovery {
  /** Keyed by "v1" or "apps/v1". */
  groupVersions: Record<string, ServedGroupVersion>;
  /** Documents that could not be read, with why (reported, not fatal). */
  problems: string[];
}

/** What a check needs from the target. */
export interface Requirement {
  group: string;
  version: string;
  /** Plural resource name; omitted when only the group version matters. */
  resource?: string;
  subresource?: string;
  verbs?: string[];
}

export function groupVersionKey(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

interface ApiResourceListDoc {
  groupVersion?: string;
  resources?: Array<{ name?: string; namespaced?: boolean; kind?: string; verbs?: string[] }>;
}

async function readJson(client: TargetClient, path: string, problems: string[]): Promise<unknown> {
  const res = await client.get<unknown>(path, { accept: 'json' });
  if (res.status !== 200) {
    problems.push(`GET ${path} answered ${res.status}`);
    return undefined;
  }
  if (res.object === undefined) {
    problems.push(`GET ${path}: ${res.decodeError ?? 'no body'}`);
    return undefined;
  }
  return res.object;
}

/** Reads /api, /api/<v>, /apis and /apis/<g>/<v>. Transport errors propagate (the target is unreachable). */
export async function readDiscovery(client: TargetClient): Promise<Discovery> {
  const problems: string[] = [];
  const groupVersions: Record<string, ServedGroupVersion> = {};
  const pairs: Array<{ group: string; version: string; path: string }> = [];

  const core = (await readJson(client, '/api', problems)) as { versions?: unknown } | undefined;
  if (core && Array.isArray(core.versions)) {
    for (const v of core.versions) if (typeof v === 'string') pairs.push({ group: '', version: v, path: `/api/${v}` });
  }
  const groups = (await readJson(client, '/apis', problems)) as { groups?: unknown } | undefined;
  if (groups && Array.isArray(groups.groups)) {
    for (const g of groups.groups as Array<{ name?: string; versions?: Array<{ version?: string }> }>) {
      if (typeof g?.name !== 'string' || !Array.isArray(g.versions)) continue;
      for (const v of g.versions) if (typeof v?.version === 'string') pairs.push({ group: g.name, version: v.version, path: `/apis/${g.name}/${v.version}` });
    }
  }
  await Promise.all(
    pairs.map(async ({ group, version, path }) => {
      const doc = (await readJson(client, path, problems)) as ApiResourceListDoc | undefined;
      if (!doc) return;
      const resources = (Array.isArray(doc.resources) ? doc.resources : [])
        .filter((r) => typeof r?.name === 'string')
        .map((r) => ({ name: r.name as string, namespaced: r.namespaced === true, kind: String(r.kind ?? ''), verbs: Array.isArray(r.verbs) ? r.verbs.map(String) : [] }));
      groupVersions[groupVersionKey(group, version)] = { group, version, resources };
    }),
  );
  return { groupVersions, problems };
}

/** Why a requirement is not met, or undefined when the target serves it. */
export function unmetReason(discovery: Discovery, req: Requirement): string | undefined {
  const key = groupVersionKey(req.group, req.version);
  const gv = discovery.groupVersions[key];
  if (!gv) return `target does not serve ${key}`;
  if (!req.resource) return undefined;
  const name = req.subresource ? `${req.resource}/${req.subresource}` : req.resource;
  const resource = gv.resources.find((r) => r.name === name);
  if (!resource) return `target does not serve ${name} in ${key}`;
  // Subresources often list only their own verbs; an empty verb list says nothing, so it is not held against them.
  const missing = (req.verbs ?? []).filter((v) => resource.verbs.length > 0 && !resource.verbs.includes(v));
  if (missing.length > 0) return `target does not offer ${missing.join(', ')} on ${name} in ${key}`;
  return undefined;
}

export function firstUnmet(discovery: Discovery, requirements: Requirement[]): string | undefined {
  for (const req of requirements) {
    const reason = unmetReason(discovery, req);
    if (reason) return reason;
  }
  return undefined;
}
