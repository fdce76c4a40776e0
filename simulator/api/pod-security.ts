// What one PodSecurityPolicy makes of a pod, as 1.9's PSP provider does: first its defaults (the pod's fsGroup,
// supplemental groups and SELinux options, the seccomp profile annotation; each container's runAsUser or
// runAsNonRoot, capabilities added by default and required to drop, a read-only root filesystem, privilege
// escalation), each only where the pod leaves the field unset, then the checks of the defaulted pod against the
// policy. The admission plugin (server/admission/pod-security-policy.ts) picks among policies by the outcome.

import type { KubeObject } from './meta.ts';
import { type FieldError, fieldErrorBody, invalidValue, required } from './field-errors.ts';
import { SECCOMP_ALLOWED, SECCOMP_DEFAULT } from './kinds/pod-security-policy.ts';
import { copyJson, deepEqual } from '../util/json-value.ts';

type Obj = Record<string, unknown>;
interface Range { min?: number; max?: number }
interface Strategy { rule?: string; ranges?: Range[]; seLinuxOptions?: Obj }
interface PspSpec {
  privileged?: boolean;
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
  hostPorts?: Range[];
  volumes?: string[];
  allowedHostPaths?: Array<{ pathPrefix?: string }>;
  allowedFlexVolumes?: Array<{ driver?: string }>;
  allowedCapabilities?: string[];
  defaultAddCapabilities?: string[];
  requiredDropCapabilities?: string[];
  runAsUser?: Strategy;
  seLinux?: Strategy;
  fsGroup?: Strategy;
  supplementalGroups?: Strategy;
  readOnlyRootFilesystem?: boolean;
  allowPrivilegeEscalation?: boolean;
  defaultAllowPrivilegeEscalation?: boolean;
}
interface SecurityContext {
  privileged?: boolean;
  runAsUser?: number;
  runAsNonRoot?: boolean;
  readOnlyRootFilesystem?: boolean;
  allowPrivilegeEscalation?: boolean;
  seLinuxOptions?: Obj;
  capabilities?: { add?: string[]; drop?: string[] };
  fsGroup?: number;
  supplementalGroups?: number[];
}
interface Container { name?: string; securityContext?: SecurityContext; ports?: Array<{ hostPort?: number }> }
interface PodSpec {
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
  securityContext?: SecurityContext;
  containers?: Container[];
  initContainers?: Container[];
  volumes?: Obj[];
}
type Pod = KubeObject & { spec?: PodSpec };

const SECCOMP_POD = 'seccomp.security.alpha.kubernetes.io/pod';
const inRanges = (v: number, ranges: Range[] | undefined) => (ranges ?? []).some((r) => v >= (r.min ?? 0) && v <= (r.max ?? 0));
/** Go's %v of []IDRange: [{1000 2000} {3000 3000}]. */
const rangesText = (ranges: Range[] | undefined) => `[${(ranges ?? []).map((r) => `{${r.min ?? 0} ${r.max ?? 0}}`).join(' ')}]`;
const firstOf = (s: Strategy | undefined) => (s?.rule === 'MustRunAs' && s.ranges?.length ? s.ranges[0].min ?? 0 : undefined);

function eachContainer(spec: PodSpec, fn: (c: Container, path: string) => void): void {
  (spec.initContainers ?? []).forEach((c, i) => fn(c, `spec.initContainers[${i}]`));
  (spec.containers ?? []).forEach((c, i) => fn(c, `spec.containers[${i}]`));
}

/** The policy's defaults, in place, where the pod leaves a field unset. */
function applyDefaults(psp: PspSpec, pod: Pod, annotations: Record<string, string>): void {
  const spec = (pod.spec ??= {});
  const psc = spec.securityContext ?? {};
  const groups = firstOf(psp.supplementalGroups);
  if (psc.supplementalGroups === undefined && groups !== undefined) psc.supplementalGroups = [groups];
  const fsGroup = firstOf(psp.fsGroup);
  if (psc.fsGroup === undefined && fsGroup !== undefined) psc.fsGroup = fsGroup;
  const seLinux = psp.seLinux?.rule === 'MustRunAs' ? psp.seLinux.seLinuxOptions : undefined;
  if (psc.seLinuxOptions === undefined && seLinux) psc.seLinuxOptions = copyJson(seLinux);
  if (Object.keys(psc).length) spec.securityContext = psc;
  const seccomp = annotations[SECCOMP_DEFAULT];
  if (seccomp && pod.metadata.annotations?.[SECCOMP_POD] === undefined) {
    pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), [SECCOMP_POD]: seccomp };
  }
  eachContainer(spec, (c) => {
    const sc = c.securityContext ?? {};
    const uid = sc.runAsUser ?? psc.runAsUser;
    const first = firstOf(psp.runAsUser);
    if (uid === undefined && first !== undefined) sc.runAsUser = first;
    const nonRootUnset = sc.runAsNonRoot === undefined && psc.runAsNonRoot === undefined;
    if (uid === undefined && nonRootUnset && psp.runAsUser?.rule === 'MustRunAsNonRoot') sc.runAsNonRoot = true;
    const add = sc.capabilities?.add ?? [];
    const drop = sc.capabilities?.drop ?? [];
    const toAdd = (psp.defaultAddCapabilities ?? []).filter((x) => !add.includes(x) && !drop.includes(x));
    const toDrop = (psp.requiredDropCapabilities ?? []).filter((x) => !drop.includes(x));
    if (toAdd.length || toDrop.length) {
      sc.capabilities = { ...sc.capabilities, ...(toAdd.length ? { add: [...add, ...toAdd] } : {}), ...(toDrop.length ? { drop: [...drop, ...toDrop] } : {}) };
    }
    if (psp.readOnlyRootFilesystem && sc.readOnlyRootFilesystem === undefined) sc.readOnlyRootFilesystem = true;
    const escalation = psp.defaultAllowPrivilegeEscalation;
    if (sc.allowPrivilegeEscalation === undefined && escalation !== undefined) sc.allowPrivilegeEscalation = escalation;
    if (sc.allowPrivilegeEscalation === undefined && psp.allowPrivilegeEscalation === false) sc.allowPrivilegeEscalation = false;
    if (Object.keys(sc).length) c.securityContext = sc;
  });
}

function validateGroups(s: Strategy | undefined, groups: number[] | undefined, path: string, errs: FieldError[]): void {
  if (s?.rule !== 'MustRunAs') return;
  if (!groups?.length) {
    errs.push(invalidValue(path, groups ?? [], 'unable to validate empty groups against required ranges'));
    return;
  }
  for (const g of groups) if (!inRanges(g, s.ranges)) errs.push(invalidValue(path, groups, `group ${g} must be in the ranges: ${rangesText(s.ranges)}`));
}

function validateVolumes(psp: PspSpec, spec: PodSpec, errs: FieldError[]): void {
  const allowed = psp.volumes ?? [];
  (spec.volumes ?? []).forEach((v, i) => {
    const type = Object.keys(v).find((k) => k !== 'name');
    if (!type) return;
    if (!allowed.includes('*') && !allowed.includes(type)) errs.push(invalidValue(`spec.volumes[${i}]`, type, `${type} volumes are not allowed to be used`));
    const hostPath = (v.hostPath as { path?: string } | undefined)?.path;
    const prefixes = psp.allowedHostPaths ?? [];
    if (type === 'hostPath' && prefixes.length && hostPath !== undefined) {
      const parts = hostPath.split('/').filter(Boolean);
      const ok = prefixes.some((p) => {
        const want = (p.pathPrefix ?? '').split('/').filter(Boolean);
        return want.length <= parts.length && want.every((w, k) => w === parts[k]);
      });
      if (!ok) errs.push(invalidValue(`spec.volumes[${i}].hostPath.pathPrefix`, hostPath, `is not allowed to be used`));
    }
    const driver = (v.flexVolume as { driver?: string } | undefined)?.driver;
    const drivers = psp.allowedFlexVolumes ?? [];
    if (type === 'flexVolume' && drivers.length && !drivers.some((d) => d.driver === driver)) {
      errs.push(invalidValue(`spec.volumes[${i}].driver`, driver ?? '', 'Flexvolume driver is not allowed to be used'));
    }
  });
}

function validateContainer(psp: PspSpec, pod: PodSpec, c: Container, path: string, errs: FieldError[]): void {
  const sc = c.securityContext ?? {};
  const psc = pod.securityContext ?? {};
  const at = `${path}.securityContext`;
  const uid = sc.runAsUser ?? psc.runAsUser;
  const nonRoot = sc.runAsNonRoot ?? psc.runAsNonRoot;
  const rule = psp.runAsUser?.rule;
  if (rule === 'MustRunAs') {
    if (uid === undefined) errs.push(required(`${at}.runAsUser`, ''));
    else if (!inRanges(uid, psp.runAsUser?.ranges)) {
      errs.push(invalidValue(`${at}.runAsUser`, uid, `UID on container ${c.name ?? ''} does not match required range.  Found ${uid}, allowed: ${rangesText(psp.runAsUser?.ranges)}`));
    }
  }
  if (rule === 'MustRunAsNonRoot') {
    if (nonRoot === undefined && uid === undefined) errs.push(required(`${at}.runAsNonRoot`, 'must be true'));
    if (nonRoot === false) errs.push(invalidValue(`${at}.runAsNonRoot`, false, 'must be true'));
    if (uid === 0) errs.push(invalidValue(`${at}.runAsUser`, 0, 'running with the root UID is forbidden'));
  }
  if (psp.seLinux?.rule === 'MustRunAs') {
    const want = psp.seLinux.seLinuxOptions ?? {};
    const have = sc.seLinuxOptions ?? psc.seLinuxOptions ?? {};
    for (const f of ['user', 'role', 'type', 'level']) {
      if (want[f] !== undefined && have[f] !== want[f]) errs.push(invalidValue(`${at}.seLinuxOptions.${f}`, have[f] ?? '', `must be ${String(want[f])}`));
    }
  }
  if (sc.privileged && !psp.privileged) errs.push(invalidValue(`${at}.privileged`, true, 'Privileged containers are not allowed'));
  const mayAdd = [...(psp.allowedCapabilities ?? []), ...(psp.defaultAddCapabilities ?? [])];
  for (const cap of sc.capabilities?.add ?? []) {
    if (!mayAdd.includes('*') && !mayAdd.includes(cap)) errs.push(invalidValue(`${at}.capabilities.add`, cap, 'capability may not be added'));
  }
  for (const cap of psp.requiredDropCapabilities ?? []) {
    if (!(sc.capabilities?.drop ?? []).includes(cap)) errs.push(invalidValue(`${at}.capabilities.drop`, sc.capabilities?.drop ?? [], `${cap} is required to be dropped but was not found`));
  }
  for (const p of c.ports ?? []) {
    if (p.hostPort && !inRanges(p.hostPort, psp.hostPorts)) {
      const allowed = (psp.hostPorts ?? []).map((r) => `${r.min ?? 0}-${r.max ?? 0}`).join(',');
      errs.push(invalidValue(`${at}.hostPort`, p.hostPort, `Host port ${p.hostPort} is not allowed to be used. Allowed ports: [${allowed}]`));
    }
  }
  if (psp.readOnlyRootFilesystem) {
    if (sc.readOnlyRootFilesystem === undefined) errs.push(required(`${at}.readOnlyRootFilesystem`, 'ReadOnlyRootFilesystem may not be nil and must be set to true'));
    else if (!sc.readOnlyRootFilesystem) errs.push(invalidValue(`${at}.readOnlyRootFilesystem`, false, 'ReadOnlyRootFilesystem must be set to true'));
  }
  if (psp.allowPrivilegeEscalation === false && sc.allowPrivilegeEscalation !== false) {
    errs.push(invalidValue(`${at}.allowPrivilegeEscalation`, sc.allowPrivilegeEscalation ?? null, 'Allowing privilege escalation for containers is not allowed'));
  }
}

function validate(psp: PspSpec, pod: Pod, annotations: Record<string, string>): FieldError[] {
  const errs: FieldError[] = [];
  const spec = pod.spec ?? {};
  const psc = spec.securityContext ?? {};
  if (spec.hostNetwork && !psp.hostNetwork) errs.push(invalidValue('spec.securityContext.hostNetwork', true, 'Host network is not allowed to be used'));
  if (spec.hostPID && !psp.hostPID) errs.push(invalidValue('spec.securityContext.hostPID', true, 'Host PID is not allowed to be used'));
  if (spec.hostIPC && !psp.hostIPC) errs.push(invalidValue('spec.securityContext.hostIPC', true, 'Host IPC is not allowed to be used'));
  validateGroups(psp.fsGroup, psc.fsGroup === undefined ? undefined : [psc.fsGroup], 'spec.securityContext.fsGroup', errs);
  validateGroups(psp.supplementalGroups, psc.supplementalGroups, 'spec.securityContext.supplementalGroups', errs);
  const allowedSeccomp = (annotations[SECCOMP_ALLOWED] ?? '').split(',').filter(Boolean);
  const profile = pod.metadata.annotations?.[SECCOMP_POD];
  if (allowedSeccomp.length && !allowedSeccomp.includes('*') && profile !== undefined && !allowedSeccomp.includes(profile)) {
    errs.push(invalidValue(`metadata.annotations[${SECCOMP_POD}]`, profile, `${profile} is not an allowed seccomp profile. Valid values are ${allowedSeccomp.join(',')}`));
  }
  validateVolumes(psp, spec, errs);
  eachContainer(spec, (c, path) => validateContainer(psp, spec, c, path, errs));
  return errs;
}

export interface PolicyOutcome {
  /** The pod with the policy's defaults. */
  pod: KubeObject;
  /** Whether the defaults changed the pod. */
  mutated: boolean;
  /** Why the policy refuses the defaulted pod, as 1.9 prints field errors (empty: allowed). */
  errors: string[];
}

/** The policy applied to a copy of the pod: its defaults, then its checks. */
export function applyPodSecurityPolicy(policy: KubeObject, pod: KubeObject): PolicyOutcome {
  const psp = (policy.spec ?? {}) as PspSpec;
  const annotations = policy.metadata.annotations ?? {};
  const copy = copyJson(pod) as Pod;
  applyDefaults(psp, copy, annotations);
  const errors = validate(psp, copy, annotations).map((e) => `${e.field}: ${fieldErrorBody(e)}`);
  return { pod: copy, mutated: !deepEqual(copy, pod), errors };
}
