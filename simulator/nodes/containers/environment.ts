// The environment a container's processes see, as the kubelet of 1.9 builds it: PATH, HOSTNAME and HOME, then
// envFrom (ConfigMaps and Secrets, with their prefix; keys that are not valid names skipped), then env in order —
// literal values with $(NAME) references to what came before, and valueFrom: fieldRef (the downward API:
// metadata.name, .namespace, .uid, .labels['k'], .annotations['k'], spec.nodeName, spec.serviceAccountName,
// status.podIP, status.hostIP), resourceFieldRef (limits and requests, with the divisor) and ConfigMap or
// Secret keys. A missing ConfigMap, Secret or key leaves the variable out (the real kubelet would not start the
// container; a simulated one already runs).

import type { KubeObject } from '../../api/meta.ts';
import type { ObjectLookup } from '../../api/container-runtime.ts';

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    fieldRef?: { fieldPath: string };
    resourceFieldRef?: { containerName?: string; resource: string; divisor?: string };
    configMapKeyRef?: { name: string; key: string };
    secretKeyRef?: { name: string; key: string };
  };
}
interface EnvFrom {
  prefix?: string;
  configMapRef?: { name: string };
  secretRef?: { name: string };
}
export interface ContainerSpec {
  name: string;
  image?: string;
  env?: EnvVar[];
  envFrom?: EnvFrom[];
  workingDir?: string;
  ports?: Array<{ containerPort: number; protocol?: string; name?: string }>;
  resources?: { limits?: Record<string, string>; requests?: Record<string, string> };
  volumeMounts?: Array<{ name: string; mountPath: string; subPath?: string }>;
}

export const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

export function containerSpecOf(pod: KubeObject, name: string): ContainerSpec | undefined {
  const spec = (pod.spec ?? {}) as { containers?: ContainerSpec[]; initContainers?: ContainerSpec[] };
  return [...(spec.containers ?? []), ...(spec.initContainers ?? [])].find((c) => c.name === name);
}

/** $(NAME) references resolved against what is defined so far; $$(NAME) escapes; unknown ones stay as written. */
export function expandReferences(value: string, env: Map<string, string>): string {
  return value.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (m, name: string | undefined) => (m === '$$' ? '$' : env.get(name!) ?? m));
}

function fieldValue(pod: KubeObject, path: string): string | undefined {
  const m = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(path);
  if (m) return pod.metadata[m[1] as 'labels' | 'annotations']?.[m[2]];
  const spec = (pod.spec ?? {}) as Record<string, unknown>;
  const status = (pod.status ?? {}) as Record<string, unknown>;
  switch (path) {
    case 'metadata.name':
      return pod.metadata.name;
    case 'metadata.namespace':
      return pod.metadata.namespace;
    case 'metadata.uid':
      return pod.metadata.uid;
    case 'spec.nodeName':
      return spec.nodeName as string | undefined;
    case 'spec.serviceAccountName':
      return spec.serviceAccountName as string | undefined;
    case 'status.podIP':
      return status.podIP as string | undefined;
    case 'status.hostIP':
      return status.hostIP as string | undefined;
  }
  return undefined;
}

/** A quantity as a number of `divisor` units, rounded up (the kubelet's ExtractContainerResourceValue). */
function resourceValue(c: ContainerSpec | undefined, resource: string, divisor = '1'): string | undefined {
  const [kind, name] = resource.split('.') as ['limits' | 'requests', string];
  const q = c?.resources?.[kind]?.[name];
  const base = (s: string): number => {
    const m = /^([0-9.]+)([a-zA-Z]*)$/.exec(s);
    if (!m) return NaN;
    const mult: Record<string, number> = { '': 1, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4 };
    return Number(m[1]) * (mult[m[2]] ?? NaN);
  };
  if (q === undefined) return name === 'cpu' ? '4' : undefined;
  const v = base(q) / base(divisor);
  return Number.isFinite(v) ? String(Math.ceil(v)) : undefined;
}

function decoded(obj: KubeObject | undefined, key: string, secret: boolean): string | undefined {
  const o = obj as (KubeObject & { data?: Record<string, string> }) | undefined;
  const v = o?.data?.[key];
  if (v === undefined) return undefined;
  return secret ? Buffer.from(v, 'base64').toString('utf8') : v;
}

export async function containerEnv(pod: KubeObject, container: string, lookup: ObjectLookup, tty: boolean): Promise<Map<string, string>> {
  const c = containerSpecOf(pod, container);
  const ns = pod.metadata.namespace ?? 'default';
  const env = new Map<string, string>([
    ['PATH', DEFAULT_PATH],
    ['HOSTNAME', pod.metadata.name ?? ''],
  ]);
  if (tty) env.set('TERM', 'xterm');
  for (const from of c?.envFrom ?? []) {
    const secret = !!from.secretRef;
    const ref = from.configMapRef ?? from.secretRef;
    if (!ref) continue;
    const obj = (await lookup(secret ? 'secrets' : 'configmaps', ns, ref.name)) as (KubeObject & { data?: Record<string, string> }) | undefined;
    for (const key of Object.keys(obj?.data ?? {})) {
      const name = `${from.prefix ?? ''}${key}`;
      if (/^[A-Za-z_][A-Za-z0-9_.-]*$/.test(name)) env.set(name, decoded(obj, key, secret)!);
    }
  }
  for (const v of c?.env ?? []) {
    let value: string | undefined;
    if (v.valueFrom?.fieldRef) value = fieldValue(pod, v.valueFrom.fieldRef.fieldPath);
    else if (v.valueFrom?.resourceFieldRef) {
      const r = v.valueFrom.resourceFieldRef;
      value = resourceValue(r.containerName ? containerSpecOf(pod, r.containerName) : c, r.resource, r.divisor);
    } else if (v.valueFrom?.configMapKeyRef) value = decoded(await lookup('configmaps', ns, v.valueFrom.configMapKeyRef.name), v.valueFrom.configMapKeyRef.key, false);
    else if (v.valueFrom?.secretKeyRef) value = decoded(await lookup('secrets', ns, v.valueFrom.secretKeyRef.name), v.valueFrom.secretKeyRef.key, true);
    else value = expandReferences(v.value ?? '', env);
    if (value !== undefined) env.set(v.name, value);
  }
  if (!env.has('HOME')) env.set('HOME', '/root');
  return env;
}
