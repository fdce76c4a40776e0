// Discovery documents (spec 4.4, wire-facts 6), derived from the registry.

import type { ResourceDef, Registry } from '../api/registry.ts';
import { apiGroups } from '../api/registry.ts';

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

export function groupList(registry: Registry): object {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: apiGroups(registry.defs).map(groupDoc) };
}

export function group(registry: Registry, name: string): object | undefined {
  const g = apiGroups(registry.defs).find((x) => x.name === name);
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
