// Minimal valid objects of every kind the spec names, per group version, so checks can create what they
// need. Each passes the real server's validation of that era (selectors match template labels, containers
// have names and images, jobs have a restart policy other than Always...).
import type { KubeObject } from '../../simulator/api/meta.ts';

export interface KindRef {
  group: string;
  version: string;
  kind: string;
  resource: string;
  namespaced: boolean;
}

export function apiVersionOf(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

/** /api/v1 or /apis/<group>/<version>. */
export function apiBase(group: string, version: string): string {
  return group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
}

/** Collection path of a resource: namespaced when ns is given. */
export function collectionPath(ref: Pick<KindRef, 'group' | 'version' | 'resource'>, ns?: string): string {
  const base = apiBase(ref.group, ref.version);
  return ns === undefined ? `${base}/${ref.resource}` : `${base}/namespaces/${encodeURIComponent(ns)}/${ref.resource}`;
}

export function objectPath(ref: Pick<KindRef, 'group' | 'version' | 'resource'>, name: string, ns?: string): string {
  return `${collectionPath(ref, ns)}/${encodeURIComponent(name)}`;
}

function podTemplate(labels: Record<string, string>, restartPolicy?: string, nodeSelector?: Record<string, string>): Record<string, unknown> {
  return {
    metadata: { labels },
    spec: { containers: [{ name: 'main', image: 'busybox:1.28' }], ...(restartPolicy ? { restartPolicy } : {}), ...(nodeSelector ? { nodeSelector } : {}) },
  };
}

type SpecBuilder = (name: string, ns: string | undefined, group: string) => Record<string, unknown>;

/**
 * A node label no node has: a DaemonSet of the fixtures runs no pod. The fixtures are for checks of the API's
 * rules, which no pod takes part in; pods started by the target's controllers and nodes for them would only
 * load the target (an embedded simulator serves the whole run on one thread) with scheduling, status and event
 * writes. So the workload fixtures ask for no pods (replicas 0, parallelism 0), as a user may; checks that
 * need pods, or a field's default such as replicas, set it themselves.
 */
const NO_NODE = { 'conformance.invalid/no-node': 'true' };

// Keyed by kind; the group only changes what extensions/v1beta1 needs.
const BUILDERS: Record<string, SpecBuilder> = {
  Namespace: () => ({}),
  ConfigMap: () => ({ data: { 'conformance.key': 'value' } }),
  Secret: () => ({ type: 'Opaque', data: { token: Buffer.from('s3cret').toString('base64') } }),
  Service: (name) => ({ spec: { ports: [{ port: 80, targetPort: 8080 }], selector: { app: name } } }),
  Event: (name, ns) => ({
    involvedObject: { kind: 'ConfigMap', name, namespace: ns, apiVersion: 'v1' },
    reason: 'ConformanceCheck',
    message: 'created by the conformance harness',
    type: 'Normal',
    source: { component: 'conformance' },
  }),
  Pod: () => ({ spec: { containers: [{ name: 'main', image: 'busybox:1.28' }] } }),
  Deployment: (name) => ({ spec: { replicas: 0, selector: { matchLabels: { app: name } }, template: podTemplate({ app: name }) } }),
  ReplicaSet: (name) => ({ spec: { replicas: 0, selector: { matchLabels: { app: name } }, template: podTemplate({ app: name }) } }),
  DaemonSet: (name) => ({ spec: { selector: { matchLabels: { app: name } }, template: podTemplate({ app: name }, undefined, NO_NODE) } }),
  Ingress: () => ({ spec: { backend: { serviceName: 'backend', servicePort: 80 } } }),
  Job: (name) => ({ spec: { parallelism: 0, template: podTemplate({ job: name }, 'Never') } }),
  CronJob: (name) => ({ spec: { schedule: '*/30 * * * *', jobTemplate: { spec: { template: podTemplate({ cron: name }, 'OnFailure') } } } }),
};

export function hasFixture(kind: string): boolean {
  return kind in BUILDERS;
}

/** A valid object of the kind; labels are merged into metadata. */
export function fixture(ref: Pick<KindRef, 'group' | 'version' | 'kind'>, name: string, ns?: string, labels?: Record<string, string>): KubeObject {
  const build = BUILDERS[ref.kind];
  if (!build) throw new Error(`no fixture for kind ${ref.kind}`);
  const metadata: Record<string, unknown> = { name };
  if (ns !== undefined) metadata.namespace = ns;
  if (labels && Object.keys(labels).length > 0) metadata.labels = labels;
  return { apiVersion: apiVersionOf(ref.group, ref.version), kind: ref.kind, metadata, ...build(name, ns, ref.group) } as KubeObject;
}

/** The kinds of the spec's endpoint tables with their resources (used by generated checks). */
export const SPEC_KINDS: KindRef[] = [
  { group: '', version: 'v1', kind: 'ConfigMap', resource: 'configmaps', namespaced: true },
  { group: '', version: 'v1', kind: 'Secret', resource: 'secrets', namespaced: true },
  { group: '', version: 'v1', kind: 'Service', resource: 'services', namespaced: true },
  { group: '', version: 'v1', kind: 'Event', resource: 'events', namespaced: true },
  { group: '', version: 'v1', kind: 'Namespace', resource: 'namespaces', namespaced: false },
  { group: 'extensions', version: 'v1beta1', kind: 'DaemonSet', resource: 'daemonsets', namespaced: true },
  { group: 'extensions', version: 'v1beta1', kind: 'Deployment', resource: 'deployments', namespaced: true },
  { group: 'extensions', version: 'v1beta1', kind: 'ReplicaSet', resource: 'replicasets', namespaced: true },
  { group: 'extensions', version: 'v1beta1', kind: 'Ingress', resource: 'ingresses', namespaced: true },
  { group: 'apps', version: 'v1', kind: 'DaemonSet', resource: 'daemonsets', namespaced: true },
  { group: 'apps', version: 'v1', kind: 'Deployment', resource: 'deployments', namespaced: true },
  { group: 'batch', version: 'v1', kind: 'Job', resource: 'jobs', namespaced: true },
  { group: 'batch', version: 'v1beta1', kind: 'CronJob', resource: 'cronjobs', namespaced: true },
];
