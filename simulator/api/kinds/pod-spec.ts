// PodSpec and Container: defaults and validation shared by Pod and by every pod template (Deployment,
// ReplicaSet, DaemonSet, ReplicationController, Job, CronJob's job template). Container defaults,
// enums and updatability come from the spec's Container rows (section 2.2); the PodSpec-level values
// the spec does not tabulate follow the real server's defaulter (wire-facts 5, "PodSpec", "Container",
// "Probe", "Secret").

import { isDeepStrictEqual } from 'node:util';
import { nameErrors } from '../names.ts';
import { type FieldError, duplicate, forbiddenField, invalidValue, notSupported, required } from '../field-errors.ts';
import { imagePullPolicyDefault, isZeroValue, tableDefault, tableEnum } from './table.ts';
import { type Obj, atLeast, isObj, isUnset, nonNegative, setDefault } from './util.ts';
import { envVarNameErrors, validateContainerExtras, validateHostPorts, validateVolumeSources } from '../validation/pod.ts';
import { isJsonNumber } from '../../util/int64-json.ts';

// Real server values for PodSpec fields the spec does not tabulate (wire-facts 5 "PodSpec").
const POD_DEFAULTS = { restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', schedulerName: 'default-scheduler', terminationGracePeriodSeconds: 30 } as const;
export const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];
// 1.9: "None" exists only behind the CustomPodDNS alpha gate, which is off by default (spec 8.2).
export const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default'];
const PROTOCOLS = ['TCP', 'UDP'];
const VOLUME_DEFAULT_MODE = 0o644; // 420 in JSON (wire-facts 5 "Secret")

/** Container fields whose row has a plain (unconditional, non-zero) default: read from the table each time. */
function plainContainerDefaults(): Array<[string, unknown]> {
  return ['terminationMessagePath', 'terminationMessagePolicy', 'stdin', 'stdinOnce', 'tty']
    .map((f): [string, unknown] => [f, tableDefault('Container', f)])
    .filter(([, v]) => !isZeroValue(v as never));
}

export function defaultContainer(c: Obj): void {
  if (isUnset(c.imagePullPolicy) || c.imagePullPolicy === '') c.imagePullPolicy = imagePullPolicyDefault(typeof c.image === 'string' ? c.image : '');
  for (const [f, v] of plainContainerDefaults()) if (isUnset(c[f]) || c[f] === '') c[f] = v;
  if (Array.isArray(c.ports)) for (const p of c.ports) if (isObj(p)) setDefault(p, 'protocol', 'TCP');
  for (const probe of ['livenessProbe', 'readinessProbe']) if (isObj(c[probe])) defaultProbe(c[probe] as Obj);
  if (Array.isArray(c.env)) {
    for (const e of c.env) {
      const fieldRef = isObj(e) && isObj(e.valueFrom) ? e.valueFrom.fieldRef : undefined;
      if (isObj(fieldRef)) setDefault(fieldRef, 'apiVersion', 'v1');
    }
  }
}

function defaultProbe(p: Obj): void {
  // The real defaulter replaces zero values too (`if obj.PeriodSeconds == 0 { obj.PeriodSeconds = 10 }`).
  for (const [k, v] of [['timeoutSeconds', 1], ['periodSeconds', 10], ['successThreshold', 1], ['failureThreshold', 3]] as const) if (isUnset(p[k]) || p[k] === 0) p[k] = v;
  if (isObj(p.httpGet)) {
    setDefault(p.httpGet, 'path', '/');
    setDefault(p.httpGet, 'scheme', 'HTTP');
  }
}

function defaultVolume(v: Obj): void {
  for (const src of ['secret', 'configMap', 'downwardAPI', 'projected']) if (isObj(v[src])) setDefault(v[src] as Obj, 'defaultMode', VOLUME_DEFAULT_MODE);
  const sources = Object.keys(v).filter((k) => k !== 'name');
  if (sources.length === 0) v.emptyDir = {};
}

/** Defaults of a PodSpec (in place). */
export function defaultPodSpec(spec: Obj): void {
  for (const [k, v] of Object.entries(POD_DEFAULTS)) if (isUnset(spec[k]) || spec[k] === '') spec[k] = v;
  setDefault(spec, 'securityContext', {});
  for (const list of ['containers', 'initContainers']) if (Array.isArray(spec[list])) for (const c of spec[list] as unknown[]) if (isObj(c)) defaultContainer(c);
  if (Array.isArray(spec.volumes)) for (const v of spec.volumes) if (isObj(v)) defaultVolume(v);
}

/** Pod-only default: resource requests copied from limits when requests are unset (wire-facts 5 "Pod"). */
export function defaultPodResources(spec: Obj): void {
  for (const list of ['containers', 'initContainers']) {
    if (!Array.isArray(spec[list])) continue;
    for (const c of spec[list] as unknown[]) {
      const res = isObj(c) && isObj(c.resources) ? c.resources : undefined;
      if (!res || !isObj(res.limits)) continue;
      const requests = isObj(res.requests) ? res.requests : (res.requests = {});
      for (const [k, v] of Object.entries(res.limits)) if (requests[k] === undefined) requests[k] = v;
    }
  }
}

function validateContainer(c: Obj, path: string, opts: { imageRequired: boolean }, errs: FieldError[]): void {
  const name = c.name;
  if (typeof name !== 'string' || name === '') errs.push(required(`${path}.name`));
  else for (const m of nameErrors(name, 'dns1123-label')) errs.push(invalidValue(`${path}.name`, name, m));
  if (opts.imageRequired && (typeof c.image !== 'string' || c.image === '')) errs.push(required(`${path}.image`));
  if (!isUnset(c.imagePullPolicy) && !tableEnum('Container', 'imagePullPolicy').includes(c.imagePullPolicy as string)) {
    errs.push(notSupported(`${path}.imagePullPolicy`, c.imagePullPolicy, tableEnum('Container', 'imagePullPolicy')));
  }
  if (!isUnset(c.terminationMessagePolicy) && !tableEnum('Container', 'terminationMessagePolicy').includes(c.terminationMessagePolicy as string)) {
    errs.push(notSupported(`${path}.terminationMessagePolicy`, c.terminationMessagePolicy, tableEnum('Container', 'terminationMessagePolicy')));
  }
  // Spec 2.2 tty: "Allocate a TTY; needs stdin true."
  if (c.tty === true && c.stdin !== true) errs.push(invalidValue(`${path}.tty`, true, 'must be false when stdin is false'));
  if (Array.isArray(c.ports)) {
    const names = new Set<string>();
    c.ports.forEach((p, i) => {
      if (!isObj(p)) return;
      const pp = `${path}.ports[${i}]`;
      if (isUnset(p.containerPort) || p.containerPort === 0) errs.push(required(`${pp}.containerPort`));
      else if (typeof p.containerPort === 'number' && (p.containerPort < 1 || p.containerPort > 65535)) errs.push(invalidValue(`${pp}.containerPort`, p.containerPort, 'must be between 1 and 65535, inclusive'));
      if (typeof p.hostPort === 'number' && p.hostPort !== 0 && (p.hostPort < 1 || p.hostPort > 65535)) errs.push(invalidValue(`${pp}.hostPort`, p.hostPort, 'must be between 1 and 65535, inclusive'));
      if (!isUnset(p.protocol) && !PROTOCOLS.includes(p.protocol as string)) errs.push(notSupported(`${pp}.protocol`, p.protocol, PROTOCOLS));
      if (typeof p.name === 'string' && p.name !== '') {
        if (names.has(p.name)) errs.push(duplicate(`${pp}.name`, p.name));
        names.add(p.name);
      }
    });
  }
  if (Array.isArray(c.env)) {
    c.env.forEach((e, i) => {
      if (!isObj(e)) return;
      if (typeof e.name !== 'string' || e.name === '') errs.push(required(`${path}.env[${i}].name`));
      else for (const m of envVarNameErrors(e.name)) errs.push(invalidValue(`${path}.env[${i}].name`, e.name, m));
    });
  }
  validateContainerExtras(c, path, errs);
}

/**
 * Validation of a PodSpec at `path` (spec for a Pod, spec.template.spec for templates). Images are
 * required in pods only: spec 2.2 makes the field optional so that workload templates may leave it to
 * higher-level configuration.
 */
export function validatePodSpec(spec: unknown, path: string, opts: { imageRequired: boolean }): FieldError[] {
  const errs: FieldError[] = [];
  if (!isObj(spec)) return [required(path)];
  const volumeNames = new Set<string>();
  if (Array.isArray(spec.volumes)) {
    spec.volumes.forEach((v, i) => {
      if (!isObj(v)) return;
      const vp = `${path}.volumes[${i}].name`;
      if (typeof v.name !== 'string' || v.name === '') errs.push(required(vp));
      else {
        for (const m of nameErrors(v.name, 'dns1123-label')) errs.push(invalidValue(vp, v.name, m));
        if (volumeNames.has(v.name)) errs.push(duplicate(vp, v.name));
        volumeNames.add(v.name);
      }
    });
  }
  const containers = spec.containers;
  if (!Array.isArray(containers) || containers.length === 0) errs.push(required(`${path}.containers`));
  // Container names are unique across containers and initContainers (spec 2.2 "unique within the pod").
  const seen = new Set<string>();
  for (const list of ['initContainers', 'containers']) {
    const cs = spec[list];
    if (!Array.isArray(cs)) continue;
    cs.forEach((c, i) => {
      const cp = `${path}.${list}[${i}]`;
      if (!isObj(c)) {
        errs.push(invalidValue(cp, c, 'must be an object'));
        return;
      }
      validateContainer(c, cp, opts, errs);
      if (typeof c.name === 'string' && c.name !== '') {
        if (seen.has(c.name)) errs.push(duplicate(`${cp}.name`, c.name));
        seen.add(c.name);
      }
      if (Array.isArray(c.volumeMounts)) {
        c.volumeMounts.forEach((m, j) => {
          if (!isObj(m)) return;
          const mp = `${cp}.volumeMounts[${j}]`;
          if (typeof m.name !== 'string' || m.name === '') errs.push(required(`${mp}.name`));
          else if (!volumeNames.has(m.name)) errs.push({ type: 'FieldValueNotFound', field: `${mp}.name`, value: m.name });
          if (typeof m.mountPath !== 'string' || m.mountPath === '') errs.push(required(`${mp}.mountPath`));
        });
      }
    });
  }
  validateVolumeSources(spec.volumes, `${path}.volumes`, errs);
  validateHostPorts(spec, path, errs);
  if (!isUnset(spec.restartPolicy) && !RESTART_POLICIES.includes(spec.restartPolicy as string)) errs.push(notSupported(`${path}.restartPolicy`, spec.restartPolicy, RESTART_POLICIES));
  if (!isUnset(spec.dnsPolicy) && !DNS_POLICIES.includes(spec.dnsPolicy as string)) errs.push(notSupported(`${path}.dnsPolicy`, spec.dnsPolicy, DNS_POLICIES));
  nonNegative(errs, `${path}.terminationGracePeriodSeconds`, spec.terminationGracePeriodSeconds);
  atLeast(errs, `${path}.activeDeadlineSeconds`, spec.activeDeadlineSeconds, 1);
  return errs;
}

/** PodSpec fields a Pod update may change (besides the updatable Container fields). */
const POD_SPEC_MUTABLE = ['activeDeadlineSeconds', 'tolerations'];

/**
 * Pod updates (the real ValidatePodUpdate): the spec may change only in container and init container images,
 * activeDeadlineSeconds (set, or lowered) and tolerations (only added); any other change, tty, stdin or
 * securityContext included, is Forbidden at `spec`.
 */
export function validatePodSpecUpdate(next: unknown, old: unknown): FieldError[] {
  if (!isObj(next) || !isObj(old)) return [];
  const errs: FieldError[] = [];
  const mask = (spec: Obj): Obj => {
    const out: Obj = { ...spec };
    for (const f of POD_SPEC_MUTABLE) delete out[f];
    for (const list of ['containers', 'initContainers']) {
      if (!Array.isArray(spec[list])) continue;
      out[list] = (spec[list] as unknown[]).map((c) => {
        if (!isObj(c)) return c;
        const { image: _image, ...rest } = c;
        void _image;
        return rest;
      });
    }
    return out;
  };
  const oldDeadline = old.activeDeadlineSeconds;
  const newDeadline = next.activeDeadlineSeconds;
  if (isJsonNumber(oldDeadline)) {
    if (isUnset(newDeadline)) errs.push(invalidValue('spec.activeDeadlineSeconds', null, 'must not update from a positive integer to nil value'));
    else if (isJsonNumber(newDeadline) && newDeadline > oldDeadline) errs.push(invalidValue('spec.activeDeadlineSeconds', newDeadline, 'must be less than or equal to previous value'));
  }
  // Tolerations may only be added: every existing one stays (its tolerationSeconds may change).
  const sansSeconds = (t: unknown) => (isObj(t) ? { ...t, tolerationSeconds: undefined } : t);
  const newTolerations = Array.isArray(next.tolerations) ? next.tolerations.map(sansSeconds) : [];
  (Array.isArray(old.tolerations) ? old.tolerations : []).forEach((t, i) => {
    if (!newTolerations.some((n) => isDeepStrictEqual(n, sansSeconds(t)))) errs.push(forbiddenField(`spec.tolerations[${i}]`, 'existing toleration can not be modified except its tolerationSeconds'));
  });
  if (!isDeepStrictEqual(mask(next), mask(old))) {
    const allowed = ['`spec.containers[*].image`', '`spec.initContainers[*].image`', '`spec.activeDeadlineSeconds`', '`spec.tolerations` (only additions to existing tolerations)'];
    errs.push(forbiddenField('spec', `pod updates may not change fields other than ${allowed.join(', ').replace(/, ([^,]*)$/, ' or $1')}`));
  }
  return errs;
}
