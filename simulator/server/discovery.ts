// Discovery documents (spec 4.4, wire-facts 6), derived from the registry.

import type { GroupDef, ResourceDef, Registry } from '../api/registry.ts';
import { apiGroups, compareVersionPriority } from '../api/registry.ts';
import { localPriority } from './aggregator/priorities.ts';

/** A group version an aggregated APIService serves (aggregator/api-services.ts), with its priorities. */
export interface AggregatedVersion { group: string; version: string; groupPriorityMinimum: number; versionPriority: number }

interface APIResource {
  name: string;
  singularName: string;
  namespaced: boolean;
  group?: string;
  version?: string;
  kind: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
}

const SUBRESOURCE_VERBS: Record<string, string[]> = { status: ['get', 'patch', 'update'], scale: ['get', 'patch', 'update'], finalize: ['update'], approval: ['get', 'patch', 'update'], binding: ['create'], rollback: ['create'], eviction: ['create'], log: ['get'], exec: [], attach: [], portforward: [], proxy: [] };
/**
 * Subresources whose 1.9 REST implements update only (no get, no patch in discovery): the status of CRDs and
 * APIServices, the status and approval of v1beta1 CSRs. Keyed by group/version and resource/subresource.
 */
const UPDATE_ONLY: ReadonlySet<string> = new Set([
  'apiextensions.k8s.io/v1beta1 customresourcedefinitions/status', 'apiregistration.k8s.io/v1beta1 apiservices/status',
  'certificates.k8s.io/v1beta1 certificatesigningrequests/status', 'certificates.k8s.io/v1beta1 certificatesigningrequests/approval',
]);
const SUBRESOURCE_KIND: Record<string, string> = { binding: 'Binding', rollback: 'DeploymentRollback' };

function resourcesFor(defs: ResourceDef[]): APIResource[] {
  const out: APIResource[] = [];
  for (const d of defs) {
    // 1.9 gives a singular name for custom resources only (the CRD's accepted one); built-in kinds list "".
    const main: APIResource = { name: d.resource, singularName: d.customResourceDefinition ? d.singular : '', namespaced: d.namespaced, kind: d.kind, verbs: [...d.verbs].sort() };
    if (d.shortNames) main.shortNames = d.shortNames;
    if (d.categories) main.categories = d.categories;
    out.push(main);
    for (const [sub, spec] of Object.entries(d.subresources)) {
      const verbs = UPDATE_ONLY.has(`${d.group}/${d.version} ${d.resource}/${sub}`) ? ['update'] : SUBRESOURCE_VERBS[sub];
      const r: APIResource = { name: `${d.resource}/${sub}`, singularName: '', namespaced: d.namespaced, kind: SUBRESOURCE_KIND[sub] ?? d.kind, verbs };
      if (sub === 'eviction') {
        r.group = 'policy';
        r.version = 'v1beta1';
        r.kind = 'Eviction';
      }
      if (sub === 'scale' && spec !== true && spec) {
        const [group, version] = spec.apiVersion.split('/');
        r.group = group;
        r.version = version;
        r.kind = 'Scale';
      }
      out.push(r);
    }
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export function coreVersions(serverAddress: string): object {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}

function groupDoc(g: { name: string; versions: string[]; preferredVersion: string }): object {
  return {
    name: g.name,
    versions: g.versions.map((v) => ({ groupVersion: `${g.name}/${v}`, version: v })),
    preferredVersion: { groupVersion: `${g.name}/${g.preferredVersion}`, version: g.preferredVersion },
  };
}

/**
 * The groups of /apis: the server's own in their order, and the available aggregated group versions merged in as
 * 1.9's aggregator orders them: a group by its groupPriorityMinimum (highest first, among the server's own by
 * theirs), a group's versions by versionPriority, the first of them preferred.
 */
function allGroups(registry: Registry, aggregated: readonly AggregatedVersion[]): GroupDef[] {
  const groups = apiGroups(registry.defs);
  if (aggregated.length === 0) return groups;
  const priorityOf = (g: GroupDef, v: string) => aggregated.find((a) => a.group === g.name && a.version === v) ?? localPriority(g.name, v);
  const byPriority = [...aggregated].sort((a, b) => b.groupPriorityMinimum - a.groupPriorityMinimum || (a.group < b.group ? -1 : 1));
  for (const a of byPriority) {
    let g = groups.find((x) => x.name === a.group);
    if (!g) {
      g = { name: a.group, versions: [], preferredVersion: a.version };
      const at = groups.findIndex((x) => localPriority(x.name, x.versions[0]).groupPriorityMinimum < a.groupPriorityMinimum);
      groups.splice(at < 0 ? groups.length : at, 0, g);
    }
    if (!g.versions.includes(a.version)) g.versions.push(a.version);
    const group = g;
    g.versions.sort((x, y) => priorityOf(group, y).versionPriority - priorityOf(group, x).versionPriority || compareVersionPriority(x, y));
    g.preferredVersion = g.versions[0];
  }
  return groups;
}

export function groupList(registry: Registry, aggregated: readonly AggregatedVersion[] = []): object {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: allGroups(registry, aggregated).map(groupDoc) };
}

export function group(registry: Registry, name: string, aggregated: readonly AggregatedVersion[] = []): object | undefined {
  const g = allGroups(registry, aggregated.filter((a) => a.group === name)).find((x) => x.name === name);
  return g && { kind: 'APIGroup', apiVersion: 'v1', ...groupDoc(g) };
}

export function resourceList(registry: Registry, groupName: string, version: string): object | undefined {
  const defs = registry.resourcesOf(groupName, version);
  if (defs.length === 0) return undefined;
  const groupVersion = groupName ? `${groupName}/${version}` : version;
  // The real server leaves apiVersion out for the legacy core and extensions groups.
  const stripped = groupName === '' || groupName === 'extensions';
  return { kind: 'APIResourceList', ...(stripped ? {} : { apiVersion: 'v1' }), groupVersion, resources: resourcesFor(defs) };
}
