// Where containers and other spec-table fields sit in each kind, read from the spec tables (types table,
// field rows), plus the small generators of valid workload objects the patch, defaults and validation
// suites share. Nothing here comes from the simulator.
import fc from 'fast-check';
import type { FieldRow } from '../../spec-tables/index.ts';
import type { KubeObject } from '../../simulator/api/meta.ts';
import { SPEC_KINDS, fixture, type KindRef } from './fixtures.ts';
import { specTables } from './spec.ts';
import { isObject, type JsonObject, type JsonValue } from './models/json.ts';
import type { MergeKeys } from './models/strategic-merge.ts';

export const PODS: KindRef = { group: '', version: 'v1', kind: 'Pod', resource: 'pods', namespaced: true };
const KNOWN_KINDS: KindRef[] = [...SPEC_KINDS, PODS];

/** "apps/v1 Deployment" (the spec tables' kind notation) -> the kind's reference, when the suites know it. */
export function kindRefOf(notation: string): KindRef | undefined {
  const [gv, kind] = notation.split(' ');
  const [group, version] = gv.includes('/') ? gv.split('/') : ['', gv];
  return KNOWN_KINDS.find((k) => k.group === group && k.version === version && k.kind === kind);
}

export function kindLabel(ref: KindRef): string {
  return `${ref.group === '' ? '' : `${ref.group}/`}${ref.version} ${ref.kind}`;
}

export interface ContainerHost {
  ref: KindRef;
  /** Dotted path of the containers list inside the kind, e.g. spec.template.spec.containers. */
  containersPath: string;
}

/**
 * Every kind the types table says embeds Container, with the path of its containers list. Pods are left
 * out: the spec shows no Pod endpoints (4.8), and on a real cluster a pod create in a fresh namespace can
 * be refused until its default service account exists, which says nothing about defaults or validation.
 */
export function containerHosts(): ContainerHost[] {
  const row = specTables().types.find((t) => t.id === 'type.Container');
  const out: ContainerHost[] = [];
  for (const at of row?.embeddedAt ?? []) {
    const ref = kindRefOf(at.kind);
    if (ref && ref !== PODS) out.push({ ref, containersPath: at.path.replace(/\[\]$/, '') });
  }
  return out;
}

/** The pod spec path of a containers path (…spec.containers -> …spec). */
export function podSpecPath(containersPath: string): string {
  return containersPath.replace(/\.containers$/, '');
}

export function getIn(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const part of path.split('.')) {
    if (!isObject(cur)) return undefined;
    cur = cur[part];
  }
  return cur;
}

export function setIn(obj: JsonObject, path: string, value: JsonValue | undefined): void {
  const parts = path.split('.');
  let cur = obj;
  for (const part of parts.slice(0, -1)) {
    if (!isObject(cur[part])) cur[part] = {};
    cur = cur[part] as JsonObject;
  }
  if (value === undefined) delete cur[parts[parts.length - 1]];
  else cur[parts[parts.length - 1]] = value;
}

/** A valid object of a container-carrying kind with the given containers (and volumes for their mounts). */
export function workload(host: ContainerHost, name: string, ns: string, containers: JsonObject[], volumes?: JsonObject[]): JsonObject {
  const obj = fixture(host.ref, name, ns) as unknown as JsonObject;
  setIn(obj, host.containersPath, containers);
  if (volumes) setIn(obj, `${podSpecPath(host.containersPath)}.volumes`, volumes);
  return obj;
}

export function asKube(obj: JsonObject): KubeObject {
  return obj as unknown as KubeObject;
}

/**
 * Patch merge keys of the Container lists (env, ports, volumeMounts, volumeDevices) from the field rows,
 * at each containers path given, plus the containers list itself (merge key name: wire facts 4; the spec's
 * field table has no row for PodSpec.containers), and status.conditions of the kind's status rows.
 */
export function mergeKeysFor(containersPaths: string[], statusTypes: string[] = []): MergeKeys {
  const t = specTables();
  const keys: Record<string, string> = {};
  for (const path of containersPaths) {
    keys[path] = 'name';
    for (const row of t.fields.filter((f) => f.type === 'Container' && f.patchMergeKey)) keys[`${path}[].${row.name}`] = row.patchMergeKey!;
  }
  for (const row of t.fields.filter((f) => statusTypes.includes(f.type) && f.patchMergeKey)) keys[row.jsonPath] = row.patchMergeKey!;
  return keys;
}

export function fieldRowsWithDefaults(): FieldRow[] {
  return specTables().fields.filter((f) => f.default !== null || f.defaultRule !== null);
}

// ---- generators -------------------------------------------------------------------------------------

const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
const chars = (s: string) => fc.constantFrom(...s.split(''));

/** A DNS label of 1..maxLength characters. */
export function dnsLabelArb(maxLength = 20): fc.Arbitrary<string> {
  return fc
    .tuple(chars(LOWER), fc.array(chars(`${LOWER}${DIGITS}-`), { maxLength: Math.max(0, maxLength - 2) }), chars(`${LOWER}${DIGITS}`))
    .map(([a, mid, z]) => `${a}${mid.join('')}${z}`.slice(0, maxLength))
    .filter((s) => !s.endsWith('-'));
}

/** Distinct DNS labels for container names. */
export function containerNames(min = 1, max = 3): fc.Arbitrary<string[]> {
  return fc.uniqueArray(dnsLabelArb(12), { minLength: min, maxLength: max });
}

/** Simple valid containers: a name and a tagged image (tag fixed so imagePullPolicy is deterministic). */
export function simpleContainers(min = 1, max = 3): fc.Arbitrary<JsonObject[]> {
  return containerNames(min, max).map((names) => names.map((n) => ({ name: n, image: `busybox:1.${n.length}` })));
}
