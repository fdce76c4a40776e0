// --load DIR|FILE: manifests (YAML or JSON, several documents per file, `kind: List` spread) created through the
// API at start, as `kubectl create -f` would, in dependency order: Namespaces and CustomResourceDefinitions first
// (then the CRDs waited for until Established, so that objects of theirs can be created), then the kinds others
// refer to (service accounts, secrets, config maps, ...), workloads last. An object that already exists (after
// --snapshot-load) is replaced by the manifest's.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, resolve } from 'node:path';
import { loadAllYaml } from '../codec/yaml.ts';
import { parseApiVersion, type KubeObject } from '../api/meta.ts';
import type { ApiClient } from '../client/api-client.ts';
import type { ApiResource } from '../client/api-resources.ts';
import { ManifestLoadError } from './errors.ts';

const MANIFEST_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

/** Creation order by kind; kinds not named come after these and before the workloads (the usual installer order). */
const FIRST = [
  'Namespace', 'CustomResourceDefinition', 'ResourceQuota', 'LimitRange', 'PodSecurityPolicy', 'ServiceAccount', 'Secret', 'ConfigMap',
  'StorageClass', 'PersistentVolume', 'PersistentVolumeClaim', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding', 'Service',
];
const LAST = ['Pod', 'ReplicationController', 'ReplicaSet', 'Deployment', 'DaemonSet', 'StatefulSet', 'Job', 'CronJob', 'HorizontalPodAutoscaler', 'PodDisruptionBudget'];

export interface Manifest {
  file: string;
  document: number;
  object: KubeObject;
}

function rank(kind: string): number {
  const first = FIRST.indexOf(kind);
  if (first >= 0) return first;
  const last = LAST.indexOf(kind);
  return last >= 0 ? FIRST.length + 1 + last : FIRST.length;
}

function filesOf(path: string): string[] {
  let st;
  try {
    st = statSync(path);
  } catch (e) {
    throw new ManifestLoadError(path, -1, `--load ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  if (!st.isDirectory()) return [path];
  return readdirSync(path, { withFileTypes: true })
    .filter((e) => !e.name.startsWith('.'))
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((e) => (e.isDirectory() ? filesOf(join(path, e.name)) : MANIFEST_EXTENSIONS.has(extname(e.name)) ? [join(path, e.name)] : []));
}

/** Every object of the files and directories, sorted into creation order (stable: file order within a kind). */
export function readManifests(paths: readonly string[]): Manifest[] {
  const out: Manifest[] = [];
  for (const file of paths.flatMap((p) => filesOf(resolve(p)))) {
    let docs: unknown[];
    try {
      docs = loadAllYaml(readFileSync(file, 'utf8'));
    } catch (e) {
      throw new ManifestLoadError(file, -1, `${file}: ${(e as Error).message}`);
    }
    const objects = docs.filter((d) => d !== null && d !== undefined).flatMap((d) => (isList(d) ? d.items : [d]));
    objects.forEach((object, document) => {
      const o = object as KubeObject;
      if (typeof o !== 'object' || o === null || Array.isArray(o) || typeof o.apiVersion !== 'string' || typeof o.kind !== 'string')
        throw new ManifestLoadError(file, document, `${file} document ${document + 1}: not an object with apiVersion and kind`);
      if (typeof o.metadata?.name !== 'string') throw new ManifestLoadError(file, document, `${file} document ${document + 1}: ${o.kind} without metadata.name`);
      out.push({ file, document, object: o });
    });
  }
  return out.map((m, i) => ({ m, i })).sort((a, b) => rank(a.m.object.kind!) - rank(b.m.object.kind!) || a.i - b.i).map(({ m }) => m);
}

function isList(d: unknown): d is { items: unknown[] } {
  const o = d as { kind?: unknown; items?: unknown };
  return typeof o === 'object' && o !== null && typeof o.kind === 'string' && o.kind.endsWith('List') && Array.isArray(o.items);
}

/** Creates the manifests through `client`; resolves with how many objects were created or replaced. */
export async function applyManifests(client: ApiClient, manifests: readonly Manifest[], timeoutMs = 30_000): Promise<number> {
  // The client's module (and undici under it) only here: reading manifests is part of every start, applying them not.
  const [{ ApiError, resourcePath }, { discoverApiResources, resourceForKind }] = await Promise.all([import('../client/api-client.ts'), import('../client/api-resources.ts')]);
  let resources: ApiResource[] | undefined;
  let crdsPending: string[] = [];
  for (const m of manifests) {
    const o = m.object;
    const name = o.metadata.name!;
    const where = `${m.file} document ${m.document + 1} (${o.kind} ${name})`;
    if (o.kind !== 'Namespace' && o.kind !== 'CustomResourceDefinition' && crdsPending.length > 0) {
      await waitEstablished(client, crdsPending, timeoutMs, where);
      crdsPending = [];
      resources = undefined; // the new kinds are in discovery now
    }
    resources ??= await discoverApiResources(client);
    const r = resourceForKind(resources, o.apiVersion!, o.kind!);
    if (!r) throw new ManifestLoadError(m.file, m.document, `${where}: the server does not serve ${o.kind} in ${o.apiVersion}`);
    const gv = parseApiVersion(o.apiVersion!);
    const namespace = r.namespaced ? (o.metadata.namespace ?? 'default') : undefined;
    const collection = resourcePath({ group: gv.group, version: gv.version, resource: r.resource, namespace });
    const object = namespace ? { ...o, metadata: { ...o.metadata, namespace } } : o;
    try {
      try {
        await client.create(collection, object);
      } catch (e) {
        if (!(e instanceof ApiError) || e.code !== 409) throw e;
        const path = `${collection}/${encodeURIComponent(name)}`;
        const current = await client.get(path);
        await client.update(path, { ...object, metadata: { ...object.metadata, resourceVersion: current.metadata.resourceVersion } });
      }
    } catch (e) {
      throw new ManifestLoadError(m.file, m.document, `${where}: ${(e as Error).message}`, e instanceof ApiError ? e.code : undefined);
    }
    if (o.kind === 'CustomResourceDefinition') crdsPending.push(name);
  }
  if (crdsPending.length > 0) await waitEstablished(client, crdsPending, timeoutMs, 'the last CustomResourceDefinitions');
  return manifests.length;
}

async function waitEstablished(client: ApiClient, names: readonly string[], timeoutMs: number, before: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (const name of names) {
    for (;;) {
      const crd = await client.get<KubeObject & { status?: { conditions?: { type: string; status: string }[] } }>(
        `/apis/apiextensions.k8s.io/v1beta1/customresourcedefinitions/${encodeURIComponent(name)}`,
      );
      if (crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) break;
      if (Date.now() > deadline) throw new ManifestLoadError('', -1, `CustomResourceDefinition ${name} not Established within ${timeoutMs} ms (needed before ${before})`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
