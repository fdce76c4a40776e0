// admissionregistration.k8s.io/v1beta1 webhook configurations (Mutating and Validating): 1.9's defaults
// (failurePolicy Ignore, an empty namespaceSelector: every namespace) and validation (names of three DNS segments,
// unique; exactly one of url or service; url https; rules with known operations and non-empty lists;
// failurePolicy Ignore or Fail). The admission chain that calls them is server/admission/webhooks.ts.

import type { KubeObject } from '../meta.ts';
import { registerStrategy } from '../strategy.ts';
import { type FieldError, duplicate, forbiddenField, invalidValue, notSupported, required } from '../field-errors.ts';
import { validateLabelSelector } from './selector.ts';
import { type Obj, isObj } from './util.ts';

const OPERATIONS = ['*', 'CREATE', 'UPDATE', 'DELETE', 'CONNECT'];
const FAILURE_POLICIES = ['Ignore', 'Fail'];
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function defaultWebhooks(obj: KubeObject): void {
  const hooks = (obj as { webhooks?: unknown }).webhooks;
  if (!Array.isArray(hooks)) return;
  for (const h of hooks) {
    if (!isObj(h)) continue;
    h.failurePolicy ??= 'Ignore';
    h.namespaceSelector ??= {};
  }
}

function validateRule(rule: unknown, path: string, errs: FieldError[]): void {
  if (!isObj(rule)) return void errs.push(invalidValue(path, rule, 'must be an object'));
  for (const f of ['operations', 'apiGroups', 'apiVersions', 'resources']) {
    const list = rule[f];
    if (!Array.isArray(list) || list.length === 0) errs.push(required(`${path}.${f}`));
  }
  (Array.isArray(rule.operations) ? rule.operations : []).forEach((op, i) => {
    if (!OPERATIONS.includes(op as string)) errs.push(notSupported(`${path}.operations[${i}]`, op, OPERATIONS));
  });
  (Array.isArray(rule.resources) ? rule.resources : []).forEach((r, i) => {
    if (typeof r !== 'string' || r === '' || r.split('/').length > 2) errs.push(invalidValue(`${path}.resources[${i}]`, r, 'must be a resource or resource/subresource'));
  });
}

export function validateWebhookConfiguration(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const hooks = (obj as { webhooks?: unknown }).webhooks;
  if (hooks === undefined || hooks === null) return errs;
  if (!Array.isArray(hooks)) return [invalidValue('webhooks', hooks, 'must be a list')];
  const names = new Set<string>();
  hooks.forEach((h, i) => {
    const path = `webhooks[${i}]`;
    if (!isObj(h)) return void errs.push(invalidValue(path, h, 'must be an object'));
    const name = h.name;
    if (typeof name !== 'string' || name === '') errs.push(required(`${path}.name`));
    else if (name.split('.').length < 3 || !DNS1123_SUBDOMAIN.test(name)) errs.push(invalidValue(`${path}.name`, name, 'should be a domain with at least three segments separated by dots'));
    else if (names.has(name)) errs.push(duplicate(`${path}.name`, name));
    if (typeof name === 'string') names.add(name);
    const cc = (h.clientConfig ?? {}) as Obj;
    const hasUrl = typeof cc.url === 'string' && cc.url !== '';
    if (hasUrl === isObj(cc.service)) errs.push(required(`${path}.clientConfig`, 'exactly one of url or service is required'));
    if (hasUrl) {
      let u: URL | undefined;
      try {
        u = new URL(cc.url as string);
      } catch {
        errs.push(invalidValue(`${path}.clientConfig.url`, cc.url, 'must be a valid URL'));
      }
      if (u && u.protocol !== 'https:') errs.push(invalidValue(`${path}.clientConfig.url`, cc.url, "'https' is the only allowed URL scheme"));
      if (u && (u.username || u.password)) errs.push(invalidValue(`${path}.clientConfig.url`, cc.url, 'user information is not permitted in the URL'));
    }
    if (isObj(cc.service)) {
      if (!cc.service.name) errs.push(required(`${path}.clientConfig.service.name`, 'service name is required'));
      if (!cc.service.namespace) errs.push(required(`${path}.clientConfig.service.namespace`, 'service namespace is required'));
    }
    (Array.isArray(h.rules) ? h.rules : []).forEach((r, j) => validateRule(r, `${path}.rules[${j}]`, errs));
    if (h.failurePolicy !== undefined && !FAILURE_POLICIES.includes(h.failurePolicy as string)) errs.push(notSupported(`${path}.failurePolicy`, h.failurePolicy, FAILURE_POLICIES));
    if (isObj(h.namespaceSelector)) errs.push(...validateLabelSelector(h.namespaceSelector, `${path}.namespaceSelector`));
  });
  return errs;
}

for (const kind of ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']) {
  registerStrategy(kind, { applyDefaults: defaultWebhooks, validate: validateWebhookConfiguration });
}

// ---- apiregistration.k8s.io/v1beta1 APIService ----

/** 1.9's ValidateAPIService: the name is <version>.<group>, priorities in range, a service's CA or insecure, not both. */
export function validateAPIService(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = (obj.spec ?? {}) as Obj;
  const group = typeof spec.group === 'string' ? spec.group : '';
  const version = typeof spec.version === 'string' ? spec.version : '';
  if (!version) errs.push(required('spec.version'));
  if (obj.metadata.name !== `${version}.${group}`) errs.push(invalidValue('metadata.name', obj.metadata.name, `must be ${version}.${group}`));
  const gpm = spec.groupPriorityMinimum;
  if (typeof gpm !== 'number' || gpm <= 0 || gpm > 20000) errs.push(invalidValue('spec.groupPriorityMinimum', gpm ?? 0, 'must be positive and less than 20000'));
  const vp = spec.versionPriority;
  if (typeof vp !== 'number' || vp <= 0 || vp > 1000) errs.push(invalidValue('spec.versionPriority', vp ?? 0, 'must be positive and less than 1000'));
  if (isObj(spec.service)) {
    if (spec.insecureSkipTLSVerify && spec.caBundle) errs.push(invalidValue('spec.insecureSkipTLSVerify', true, 'may not be true if caBundle is present'));
    if (!spec.service.name) errs.push(required('spec.service.name'));
    if (!spec.service.namespace) errs.push(required('spec.service.namespace'));
  } else if (spec.service !== undefined && spec.service !== null) errs.push(invalidValue('spec.service', spec.service, 'must be an object'));
  else if (spec.caBundle || spec.insecureSkipTLSVerify) errs.push(forbiddenField('spec.caBundle', 'local APIServices may not have a caBundle or skip TLS verification'));
  return errs;
}

registerStrategy('APIService', { validate: validateAPIService });
