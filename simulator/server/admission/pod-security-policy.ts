// PodSecurityPolicy admission (1.9, off unless --admission-control names it): a pod is admitted when one of the
// PodSecurityPolicies that the requesting user or the pod's service account may `use` (extensions
// podsecuritypolicies, verb use) allows it; policies are tried by name and the one that allowed the pod is
// recorded in the annotation kubernetes.io/psp. Checked here: privileged containers, host network, PID, IPC and
// ports, volume types, added capabilities, and the run-as-user rule MustRunAsNonRoot / MustRunAs ranges.
// None allows it: 403 "unable to validate against any pod security policy: [...]".

import type { KubeObject } from '../../api/meta.ts';
import { forbidden } from '../errors.ts';
import type { AdmissionAttributes, AdmissionHook } from './attributes.ts';
import type { ServerContext } from '../context.ts';
import { UNSECURED_USER } from '../authorization/filter.ts';

export const PSP_ANNOTATION = 'kubernetes.io/psp';

interface Range { min?: number; max?: number }
interface PspSpec {
  privileged?: boolean;
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
  hostPorts?: Range[];
  volumes?: string[];
  allowedCapabilities?: string[];
  runAsUser?: { rule?: string; ranges?: Range[] };
}
interface SecurityContext { privileged?: boolean; runAsUser?: number; runAsNonRoot?: boolean; capabilities?: { add?: string[] } }
interface Container { securityContext?: SecurityContext; ports?: Array<{ hostPort?: number }> }
interface PodSpec {
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
  securityContext?: SecurityContext;
  containers?: Container[];
  initContainers?: Container[];
  volumes?: Array<Record<string, unknown>>;
  serviceAccountName?: string;
}

const inRanges = (v: number, ranges: Range[] | undefined) => (ranges ?? []).some((r) => v >= (r.min ?? 0) && v <= (r.max ?? 0));

function volumeType(v: Record<string, unknown>): string | undefined {
  return Object.keys(v).find((k) => k !== 'name');
}

/** The reasons this policy refuses the pod (empty: allowed). */
function violations(psp: PspSpec, pod: PodSpec): string[] {
  const errs: string[] = [];
  if (pod.hostNetwork && !psp.hostNetwork) errs.push('spec.securityContext.hostNetwork: Invalid value: true: Host network is not allowed to be used');
  if (pod.hostPID && !psp.hostPID) errs.push('spec.securityContext.hostPID: Invalid value: true: Host PID is not allowed to be used');
  if (pod.hostIPC && !psp.hostIPC) errs.push('spec.securityContext.hostIPC: Invalid value: true: Host IPC is not allowed to be used');
  const allowed = psp.volumes ?? [];
  (pod.volumes ?? []).forEach((v, i) => {
    const type = volumeType(v);
    if (type && !allowed.includes('*') && !allowed.includes(type)) errs.push(`spec.volumes[${i}]: Invalid value: "${type}": ${type} volumes are not allowed to be used`);
  });
  const each = (containers: Container[] | undefined, field: string) => (containers ?? []).forEach((c, i) => {
    const path = `spec.${field}[${i}]`;
    if (c.securityContext?.privileged && !psp.privileged) errs.push(`${path}.securityContext.privileged: Invalid value: true: Privileged containers are not allowed`);
    for (const cap of c.securityContext?.capabilities?.add ?? []) {
      if (!(psp.allowedCapabilities ?? []).some((a) => a === '*' || a === cap)) errs.push(`${path}.securityContext.capabilities.add: Invalid value: "${cap}": capability may not be added`);
    }
    for (const p of c.ports ?? []) {
      if (p.hostPort && !inRanges(p.hostPort, psp.hostPorts)) errs.push(`${path}.ports.hostPort: Invalid value: ${p.hostPort}: Host port ${p.hostPort} is not allowed to be used. Allowed ports: [${(psp.hostPorts ?? []).map((r) => `${r.min}-${r.max}`).join(' ')}]`);
    }
    const uid = c.securityContext?.runAsUser ?? pod.securityContext?.runAsUser;
    const nonRoot = c.securityContext?.runAsNonRoot ?? pod.securityContext?.runAsNonRoot;
    const rule = psp.runAsUser?.rule;
    if (rule === 'MustRunAsNonRoot' && uid === 0) errs.push(`${path}.securityContext.runAsUser: Invalid value: 0: running with the root UID is forbidden`);
    if (rule === 'MustRunAsNonRoot' && uid === undefined && nonRoot === false) errs.push(`${path}.securityContext.runAsNonRoot: Invalid value: false: must be true`);
    if (rule === 'MustRunAs' && (uid === undefined || !inRanges(uid, psp.runAsUser?.ranges))) errs.push(`${path}.securityContext.runAsUser: Invalid value: ${uid ?? 'null'}: UID on container ${i} does not match required range.`);
  });
  each(pod.initContainers, 'initContainers');
  each(pod.containers, 'containers');
  return errs;
}

async function mayUse(ctx: ServerContext, attrs: AdmissionAttributes, pod: PodSpec, name: string): Promise<boolean> {
  const user = attrs.user ?? UNSECURED_USER;
  const ask = async (u: { name: string; groups?: string[] }, namespace?: string) => (await ctx.security.authorizer.authorize({
    user: { name: u.name, groups: u.groups ?? [] }, resourceRequest: true, verb: 'use', apiGroup: 'extensions', resource: 'podsecuritypolicies', name, namespace,
  })).decision === 'allow';
  if (await ask(user, attrs.namespace)) return true;
  const sa = pod.serviceAccountName || 'default';
  return ask({ name: `system:serviceaccount:${attrs.namespace}:${sa}`, groups: ['system:serviceaccounts', `system:serviceaccounts:${attrs.namespace}`] }, attrs.namespace);
}

export function podSecurityPolicy(ctx: ServerContext): AdmissionHook {
  return async (attrs) => {
    if (attrs.def.group !== '' || attrs.def.resource !== 'pods' || attrs.subresource !== undefined || !attrs.object) return;
    if (attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE') return;
    const pod = attrs.object as KubeObject & { spec?: PodSpec };
    const spec = pod.spec ?? {};
    const policies = (await ctx.store.list('/registry/podsecuritypolicies/')).items.map((i) => i.value).sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
    const reasons: string[] = [];
    for (const p of policies) {
      const name = p.metadata.name ?? '';
      if (!(await mayUse(ctx, attrs, spec, name))) continue;
      const errs = violations((p.spec ?? {}) as PspSpec, spec);
      if (errs.length === 0) {
        if (pod.metadata.annotations?.[PSP_ANNOTATION] !== name) {
          pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), [PSP_ANNOTATION]: name };
          attrs.mutated = true;
        }
        return;
      }
      reasons.push(...errs);
    }
    throw forbidden({ group: '', resource: 'pods' }, attrs.name, `unable to validate against any pod security policy: [${reasons.join(' ')}]`);
  };
}
